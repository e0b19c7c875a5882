package idempotency_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// FuzzMiddleware sends any Idempotency-Key with any body through the
// middleware and its real store, twice: the second request is the first
// answer replayed, and a key the API refuses is a 4xx in the error shape,
// never a database error turned 500.
func FuzzMiddleware(f *testing.F) {
	var calls atomic.Int32
	serve := server(f, creating(&calls))
	for _, c := range []struct{ key, body string }{
		{"k-1", `{"name":"x"}`}, {"k-1", `{"name":"y"}`}, {"", `{}`}, {strings.Repeat("k", 255), `{}`},
		{strings.Repeat("k", 256), `{}`}, {"5f1d7c5e-0b3a-4c1e-9d7e-2f6a1b9c8d70", `{"shipping_channel_id":"ch_1"}`},
		{"ключ", `[]`}, {"k\xff", `{}`}, {" k ", "not json"},
	} {
		f.Add(c.key, c.body)
	}
	f.Fuzz(func(t *testing.T, key, body string) {
		if !sendable(key) {
			t.Skip("net/http refuses this header value before any handler")
		}
		first := serve(request{key: key, body: body})
		if key == "" {
			if first.Code != http.StatusCreated || first.Header().Get("Idempotent-Replayed") != "" {
				t.Fatalf("no key: %d %s", first.Code, first.Body)
			}
			return
		}
		if first.Code >= 400 {
			wantCode := map[int]string{http.StatusBadRequest: "invalid_request", http.StatusUnprocessableEntity: "idempotency_key_reused"}[first.Code]
			if got := errorCode(t, first); wantCode == "" || got != wantCode || (first.Code == http.StatusBadRequest) != (len(key) > 255 || !utf8.ValidString(key)) {
				t.Fatalf("key %q: %d %s", key, first.Code, first.Body)
			}
			return
		}
		second := serve(request{key: key, body: body})
		if second.Code != http.StatusCreated || second.Body.String() != first.Body.String() ||
			second.Header().Get("Idempotent-Replayed") != "true" || !json.Valid(second.Body.Bytes()) {
			t.Fatalf("key %q: first %d %s, again %d %s (replayed %q)", key, first.Code, first.Body,
				second.Code, second.Body, second.Header().Get("Idempotent-Replayed"))
		}
	})
}

// sendable is the rule net/http applies to header values: no control bytes
// but tab.
func sendable(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
