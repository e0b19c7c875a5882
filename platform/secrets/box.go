// Package secrets encrypts secret settings at rest with AES-256-GCM under a
// key derived from SECRET_KEY, and masks them wherever they are shown.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Mask is what every response shows in place of a secret value.
const Mask = "••••••••"

const version = "v1:"

// Box seals and opens secret values, and authenticates values the server
// hands out and must recognise when they come back (MAC).
type Box struct {
	aead   cipher.AEAD
	macKey []byte
}

// NewBox derives the encryption key from secretKey (at least 32 characters).
func NewBox(secretKey string) (*Box, error) {
	if len(secretKey) < 32 {
		return nil, errors.New("secret key must be at least 32 characters")
	}
	key, err := hkdf.Key(sha256.New, []byte(secretKey), nil, "shipd settings encryption v1", 32)
	if err != nil {
		return nil, err
	}
	macKey, err := hkdf.Key(sha256.New, []byte(secretKey), nil, "shipd message authentication v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead, macKey: macKey}, nil
}

// Seal encrypts plaintext; the result is text safe to store in any column.
func (b *Box) Seal(plaintext []byte) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	sealed := b.aead.Seal(nonce, nonce, plaintext, nil)
	return version + base64.RawStdEncoding.EncodeToString(sealed), nil
}

// Open decrypts what Seal produced.
func (b *Box) Open(ciphertext string) ([]byte, error) {
	rest, ok := strings.CutPrefix(ciphertext, version)
	if !ok {
		return nil, errors.New("secrets: unknown ciphertext version")
	}
	raw, err := base64.RawStdEncoding.DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	n := b.aead.NonceSize()
	if len(raw) < n {
		return nil, errors.New("secrets: ciphertext too short")
	}
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, errors.New("secrets: cannot decrypt (was SECRET_KEY changed?)")
	}
	return plain, nil
}

// MAC is HMAC-SHA256 of msg under a key derived from SECRET_KEY, bound to
// purpose ("sign-in form"), so a MAC made for one use is no good for another.
func (b *Box) MAC(purpose string, msg []byte) []byte {
	m := hmac.New(sha256.New, b.macKey)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(msg)
	return m.Sum(nil)
}

// MACMatches reports, in constant time, whether mac is MAC(purpose, msg).
func (b *Box) MACMatches(purpose string, msg, mac []byte) bool {
	return hmac.Equal(b.MAC(purpose, msg), mac)
}
