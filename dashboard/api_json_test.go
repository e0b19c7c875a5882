package dashboard

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// apiJSON writes what json.Marshal writes, but for strings that are not
// UTF-8, which keep their bytes (json.Marshal writes U+FFFD) and read back
// as json.Marshal's would.
func FuzzAPIJSON(f *testing.F) {
	for _, s := range []string{"Shop", "", "Nováková", "a\"b\\c", "\x00\x1f\x7f", "<&>", "\u2028", "Sh\xffop", "\xc3", "\xed\xa0\x80", "a\"\xfe\\\n"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		body := map[string]any{"name": s, "events": []string{other, s}, "settings": map[string]any{"id": s, "on": true, "n": 2}}
		got, err := apiJSON(body)
		if err != nil {
			t.Fatal(err)
		}
		std, _ := json.Marshal(body)
		if utf8.ValidString(s) && utf8.ValidString(other) && !bytes.Equal(got, std) {
			t.Fatalf("apiJSON = %s, json.Marshal = %s", got, std)
		}
		if !utf8.ValidString(s) && utf8.Valid(got) {
			t.Fatalf("apiJSON(%q) = %q: the bytes are not kept", s, got)
		}
		var read, readStd map[string]any
		if err := json.Unmarshal(got, &read); err != nil {
			t.Fatalf("apiJSON(%q) = %q, not JSON: %v", s, got, err)
		}
		_ = json.Unmarshal(std, &readStd)
		if !reflect.DeepEqual(read, readStd) {
			t.Fatalf("apiJSON(%q) reads as %v, json.Marshal's as %v", s, read, readStd)
		}
	})
}
