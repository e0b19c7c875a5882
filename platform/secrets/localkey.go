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
	// Written whole to a file of its own and linked into place, which fails
	// when the name exists: no process ever reads half a key, and a write
	// that fails (a full disk) leaves no file that a restart would read as
	// the key that encrypted every secret.
	tmp, err := os.CreateTemp(dir, ".secret_key-*") // mode 0600
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // best effort: once linked it is a second name of the key file, mode 0600 as it
	if err := writeSynced(tmp, key+"\n"); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	err = os.Link(tmp.Name(), path)
	if errors.Is(err, fs.ErrExist) { // another process made it first
		return LocalKey(dir)
	}
	if err != nil {
		return "", err
	}
	return key, nil
}

// writeSynced writes s to f, flushes it to the disk and closes f, reporting
// the first failure of the three.
func writeSynced(f *os.File, s string) error {
	_, err := f.WriteString(s)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}
