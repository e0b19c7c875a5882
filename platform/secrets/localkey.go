package secrets

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LocalKey returns the secret key kept in dir/secret_key, creating a random
// one on first use. Only local mode uses it: a deployment with its own
// database must set SECRET_KEY, so losing .data never loses the key there.
func LocalKey(dir string) (string, error) {
	path := filepath.Join(dir, "secret_key")
	b, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	key := rand.Text() + rand.Text() // 52 base32 characters, 260 bits
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another process made it first
		return LocalKey(dir)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.WriteString(key + "\n"); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return key, nil
}
