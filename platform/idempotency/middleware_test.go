package idempotency_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
	"shipd/platform/idempotency"
)

var principal = auth.Principal{AccountID: "acc_1", Permissions: auth.AllPermissions}

type request struct {
	method, path, key, body string
	anonymous               bool
}

// server wraps handler in the idempotency middleware as the app does
// (request id outside, principal already in the context).
func server(t testing.TB, handler http.HandlerFunc) func(request) *httptest.ResponseRecorder {
	t.Helper()
	s, _, _ := newStore(t)
	return serverOn(s, handler)
}

// serverOn is server on a given store.
func serverOn(s *idempotency.Store, handler http.HandlerFunc) func(request) *httptest.ResponseRecorder {
	h := httpapi.WithRequestID(idempotency.Middleware(s)(handler))
	return func(r request) *httptest.ResponseRecorder {
		if r.method == "" {
			r.method = http.MethodPost
		}
		if r.path == "" {
			r.path = "/v1/shipments"
		}
		req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
		if r.key != "" {
			req.Header.Set(idempotency.HeaderName, r.key)
		}
		if !r.anonymous {
			req = req.WithContext(auth.WithPrincipal(req.Context(), principal))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
}

// creating answers 201 with a JSON body naming the call number.
func creating(calls *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		var in map[string]any
		_ = json.NewDecoder(r.Body).Decode(&in) // the middleware must leave the body readable
		w.Header().Set("Location", "/v1/shipments/sh_1")
		httpapi.WriteData(w, http.StatusCreated, map[string]any{"call": n, "echo": in}, "Created")
	}
}

func errorCode(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var body struct {
		Error struct {
			Code   string              `json:"code"`
			Errors map[string][]string `json:"errors"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body: %v: %s", err, rec.Body)
	}
	return body.Error.Code
}

func TestMiddlewareReplaysFirstAnswer(t *testing.T) {
	var calls atomic.Int32
	serve := server(t, creating(&calls))
	req := request{key: "k-1", body: `{"name":"x"}`}

	first := serve(req)
	if first.Code != http.StatusCreated || calls.Load() != 1 {
		t.Fatalf("first: status %d, calls %d: %s", first.Code, calls.Load(), first.Body)
	}
	if first.Header().Get("Idempotent-Replayed") != "" {
		t.Error("the first answer says it is replayed")
	}
	if !strings.Contains(first.Body.String(), `"echo":{"name":"x"}`) {
		t.Errorf("the handler did not read the body: %s", first.Body)
	}

	second := serve(req)
	if calls.Load() != 1 {
		t.Errorf("the handler ran %d times, want once", calls.Load())
	}
	if second.Code != http.StatusCreated || second.Body.String() != first.Body.String() {
		t.Errorf("replay: %d %s, want %d %s", second.Code, second.Body, first.Code, first.Body)
	}
	if second.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed = %q", second.Header().Get("Idempotent-Replayed"))
	}
	for _, h := range []string{"Content-Type", "Location"} {
		if second.Header().Get(h) != first.Header().Get(h) {
			t.Errorf("replayed %s = %q, first %q", h, second.Header().Get(h), first.Header().Get(h))
		}
	}
	if id := second.Header().Get("X-Request-Id"); id == "" || id == first.Header().Get("X-Request-Id") {
		t.Errorf("replayed X-Request-Id %q should be this request's, not the first's", id)
	}
}

func TestMiddlewareKeyReused(t *testing.T) {
	var calls atomic.Int32
	serve := server(t, creating(&calls))
	serve(request{key: "k-1", body: `{"name":"x"}`})

	for name, req := range map[string]request{
		"other body": {key: "k-1", body: `{"name":"y"}`},
		"other path": {key: "k-1", body: `{"name":"x"}`, path: "/v1/shipping-channels"},
	} {
		t.Run(name, func(t *testing.T) {
			rec := serve(req)
			if rec.Code != http.StatusUnprocessableEntity || errorCode(t, rec) != "idempotency_key_reused" {
				t.Errorf("status %d: %s", rec.Code, rec.Body)
			}
			if !strings.Contains(rec.Body.String(), `"Idempotency-Key"`) {
				t.Errorf("the error does not name the header: %s", rec.Body)
			}
		})
	}
	if calls.Load() != 1 {
		t.Errorf("the handler ran %d times, want once", calls.Load())
	}
}

func TestMiddlewareReleasesKeyOnServerError(t *testing.T) {
	var calls atomic.Int32
	serve := server(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			httpapi.WriteErrorBody(w, r, http.StatusInternalServerError, "internal_error", "Internal server error.", nil)
			return
		}
		httpapi.WriteData(w, http.StatusCreated, map[string]string{"id": "sh_1"}, "")
	})
	req := request{key: "k-1", body: `{}`}

	if rec := serve(req); rec.Code != http.StatusInternalServerError {
		t.Fatalf("first: status %d", rec.Code)
	}
	if rec := serve(req); rec.Code != http.StatusCreated || rec.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry: status %d, replayed %q; want the handler to run again", rec.Code, rec.Header().Get("Idempotent-Replayed"))
	}
	if rec := serve(req); rec.Code != http.StatusCreated || rec.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("third: status %d, replayed %q; want the retry's answer replayed", rec.Code, rec.Header().Get("Idempotent-Replayed"))
	}
	if calls.Load() != 2 {
		t.Errorf("the handler ran %d times, want 2", calls.Load())
	}
}

func TestMiddlewareConflictWhileRunning(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	serve := server(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		w.WriteHeader(http.StatusCreated)
	})
	req := request{key: "k-1", body: `{}`}

	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- serve(req) }()
	<-entered

	rec := serve(req)
	if rec.Code != http.StatusConflict || errorCode(t, rec) != "conflict" {
		t.Errorf("while the first runs: status %d: %s", rec.Code, rec.Body)
	}
	close(release)
	if first := <-done; first.Code != http.StatusCreated {
		t.Errorf("first: status %d", first.Code)
	}
	if calls.Load() != 1 {
		t.Errorf("the handler ran %d times, want once", calls.Load())
	}
}

func TestMiddlewarePassesThrough(t *testing.T) {
	var calls atomic.Int32
	serve := server(t, creating(&calls))
	tests := map[string]request{
		"GET with a key":         {method: http.MethodGet, key: "k-get"},
		"POST without a key":     {body: `{}`},
		"POST without principal": {key: "k-anon", body: `{}`, anonymous: true},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			before := calls.Load()
			for range 2 {
				rec := serve(req)
				if rec.Header().Get("Idempotent-Replayed") != "" {
					t.Errorf("answer marked as replayed")
				}
			}
			if got := calls.Load() - before; got != 2 {
				t.Errorf("the handler ran %d times for two requests, want 2", got)
			}
		})
	}
}

func TestMiddlewareKeyLength(t *testing.T) {
	var calls atomic.Int32
	serve := server(t, creating(&calls))

	rec := serve(request{key: strings.Repeat("k", 256), body: `{}`})
	if rec.Code != http.StatusBadRequest || errorCode(t, rec) != "invalid_request" {
		t.Errorf("256-character key: status %d: %s", rec.Code, rec.Body)
	}
	if calls.Load() != 0 {
		t.Error("the handler ran for an overlong key")
	}
	if rec := serve(request{key: strings.Repeat("k", 255), body: `{}`}); rec.Code != http.StatusCreated {
		t.Errorf("255-character key: status %d: %s", rec.Code, rec.Body)
	}
}
