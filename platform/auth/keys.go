// Package auth knows accounts and their API keys: it creates keys, checks the
// bearer key of each request and the permission a route needs.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"strings"
)

const (
	keyPrefix = "shp_"
	keyLength = 40
	base62    = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// newKey returns a fresh API key: "shp_" and 40 random base62 characters.
func newKey() string {
	var b strings.Builder
	b.WriteString(keyPrefix)
	limit := big.NewInt(int64(len(base62)))
	for range keyLength {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		b.WriteByte(base62[n.Int64()])
	}
	return b.String()
}

// hashKey is what the database keeps instead of the key.
func hashKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// looksLikeKey rejects obvious garbage before it costs a query.
func looksLikeKey(key string) bool {
	return strings.HasPrefix(key, keyPrefix) && len(key) == len(keyPrefix)+keyLength
}
