package secrets_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"shipd/platform/secrets"
)

const testKey = "0123456789abcdef0123456789abcdef" // exactly 32 characters

func newBox(t *testing.T, key string) *secrets.Box {
	t.Helper()
	b, err := secrets.NewBox(key)
	if err != nil {
		t.Fatalf("NewBox: %v", err)
	}
	return b
}

func TestSealOpenRoundTrip(t *testing.T) {
	box := newBox(t, testKey)
	for _, plain := range [][]byte{[]byte("top-secret-value"), {}, bytes.Repeat([]byte{0, 0xff, 'x'}, 1000)} {
		sealed, err := box.Seal(plain)
		if err != nil {
			t.Fatal(err)
		}
		if len(plain) > 0 && strings.Contains(sealed, string(plain)) {
			t.Errorf("sealed text %q contains the plaintext", sealed)
		}
		got, err := box.Open(sealed)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if !bytes.Equal(got, plain) {
			t.Errorf("Open(Seal(%q)) = %q", plain, got)
		}
	}
}

func TestSealTwiceDiffers(t *testing.T) {
	box := newBox(t, testKey)
	a, err := box.Seal([]byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := box.Seal([]byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two seals of the same plaintext are equal: %q", a)
	}
}

func TestSameKeyOpensAcrossBoxes(t *testing.T) {
	sealed, err := newBox(t, testKey).Seal([]byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := newBox(t, testKey).Open(sealed)
	if err != nil || string(got) != "v" {
		t.Fatalf("a second box with the same key: Open = %q, %v", got, err)
	}
}

func TestOpenWithAnotherKeyFails(t *testing.T) {
	sealed, err := newBox(t, testKey).Seal([]byte("top-secret-value"))
	if err != nil {
		t.Fatal(err)
	}
	other := newBox(t, strings.Repeat("z", 32))
	if got, err := other.Open(sealed); err == nil {
		t.Fatalf("Open with another key succeeded: %q", got)
	}
}

func TestOpenTampered(t *testing.T) {
	box := newBox(t, testKey)
	sealed, err := box.Seal([]byte("top-secret-value"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	if err != nil {
		t.Fatalf("sealed text is not v1:base64: %q", sealed)
	}
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-1] ^= 0x01

	tests := map[string]string{
		"flipped ciphertext bit": "v1:" + base64.RawStdEncoding.EncodeToString(flipped),
		"truncated":              "v1:" + base64.RawStdEncoding.EncodeToString(raw[:len(raw)-1]),
		"too short for a nonce":  "v1:" + base64.RawStdEncoding.EncodeToString(raw[:4]),
		"unknown version":        "v2:" + strings.TrimPrefix(sealed, "v1:"),
		"no version":             strings.TrimPrefix(sealed, "v1:"),
		"not base64":             "v1:!!!not base64!!!",
		"empty":                  "",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			if got, err := box.Open(text); err == nil {
				t.Fatalf("Open(%q) = %q, want an error", text, got)
			}
		})
	}
}

func TestNewBoxRejectsShortKeys(t *testing.T) {
	for _, key := range []string{"", "short", testKey[:31]} {
		if _, err := secrets.NewBox(key); err == nil {
			t.Errorf("NewBox(%d characters) succeeded, want an error", len(key))
		}
	}
	if _, err := secrets.NewBox(testKey); err != nil {
		t.Errorf("NewBox(32 characters): %v", err)
	}
}

func TestLocalKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // does not exist yet
	first, err := secrets.LocalKey(dir)
	if err != nil {
		t.Fatalf("LocalKey: %v", err)
	}
	if len(first) < 32 {
		t.Errorf("generated key has %d characters, NewBox needs 32", len(first))
	}
	if _, err := secrets.NewBox(first); err != nil {
		t.Errorf("NewBox(generated key): %v", err)
	}

	info, err := os.Stat(filepath.Join(dir, "secret_key"))
	if err != nil {
		t.Fatalf("key file: %v", err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("key file mode = %o, want 600", perm)
	}
	content, err := os.ReadFile(filepath.Join(dir, "secret_key"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(content)) != first {
		t.Errorf("file holds %q, LocalKey returned %q", content, first)
	}

	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("the directory holds %v (%v), want the key file alone", entries, err)
	}

	second, err := secrets.LocalKey(dir)
	if err != nil {
		t.Fatalf("second LocalKey: %v", err)
	}
	if second != first {
		t.Errorf("second call returned %q, first %q", second, first)
	}

	other, err := secrets.LocalKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if other == first {
		t.Error("two directories got the same generated key")
	}
}

// Processes starting together on a new directory agree on one key: none
// reads another's half-written file.
func TestLocalKeyMadeOnceWhenAskedTogether(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	keys := make([]string, 8)
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = secrets.LocalKey(dir) })
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil || keys[i] != keys[0] || len(keys[i]) < 32 {
			t.Errorf("caller %d: key %q, err %v; want %q", i, keys[i], errs[i], keys[0])
		}
	}
}
