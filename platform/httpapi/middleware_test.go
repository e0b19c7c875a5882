package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"shipd/platform/httpapi"
	"shipd/platform/logtest"
)

func TestWithRequestID(t *testing.T) {
	var seen string
	h := httpapi.WithRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = httpapi.RequestID(r.Context())
	}))
	serve := func(incoming string) string {
		seen = ""
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		if incoming != "" {
			req.Header.Set("X-Request-Id", incoming)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := rec.Header().Get("X-Request-Id")
		if got != seen {
			t.Errorf("header X-Request-Id %q differs from the id in the context %q", got, seen)
		}
		return got
	}

	t.Run("none sent", func(t *testing.T) {
		a, b := serve(""), serve("")
		if !strings.HasPrefix(a, "req_") || len(a) < 20 {
			t.Errorf("generated id = %q", a)
		}
		if a == b {
			t.Errorf("two requests got the same id %q", a)
		}
	})
	t.Run("sane one kept", func(t *testing.T) {
		if got := serve("client-req-42"); got != "client-req-42" {
			t.Errorf("id = %q, want the caller's", got)
		}
		max := strings.Repeat("a", 128)
		if got := serve(max); got != max {
			t.Errorf("a 128-character id was replaced by %q", got)
		}
	})
	t.Run("overlong one replaced", func(t *testing.T) {
		long := strings.Repeat("a", 129)
		got := serve(long)
		if got == long || !strings.HasPrefix(got, "req_") {
			t.Errorf("id = %q, want a fresh one", got)
		}
	})
	t.Run("no request id outside the middleware", func(t *testing.T) {
		if got := httpapi.RequestID(httptest.NewRequest(http.MethodGet, "/", nil).Context()); got != "" {
			t.Errorf("RequestID = %q", got)
		}
	})
}

func TestWithRecovery(t *testing.T) {
	logs := logtest.Capture(t)
	h := httpapi.WithRequestID(httpapi.WithRecovery(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("secret detail in panic")
	})))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))

	b := readError(t, rec, http.StatusInternalServerError)
	if b.Error.Code != "internal_error" || b.Error.RequestID == "" {
		t.Errorf("code %q, request id %q", b.Error.Code, b.Error.RequestID)
	}
	if strings.Contains(rec.Body.String(), "secret detail") {
		t.Errorf("the panic value is in the body: %s", rec.Body)
	}
	if !strings.Contains(logs.String(), "secret detail in panic") {
		t.Errorf("the panic was not logged: %q", logs)
	}
}

func TestWithRecoveryLetsAbortHandlerThrough(t *testing.T) {
	h := httpapi.WithRecovery(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler to propagate", p)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
}

func TestRequireJSON(t *testing.T) {
	var reached bool
	h := httpapi.RequireJSON(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = true
		w.WriteHeader(http.StatusNoContent)
	}))
	tests := []struct {
		name        string
		method      string
		contentType string
		body        string
		pass        bool
	}{
		{"POST JSON", http.MethodPost, "application/json", `{}`, true},
		{"POST JSON with charset", http.MethodPost, "application/json; charset=utf-8", `{}`, true},
		{"POST JSON upper case", http.MethodPost, "Application/JSON", `{}`, true},
		{"POST empty, no content type", http.MethodPost, "", "", true},
		{"GET without content type", http.MethodGet, "", "", true},
		{"DELETE without content type", http.MethodDelete, "", "", true},
		{"POST body, no content type", http.MethodPost, "", `{"a":1}`, false},
		{"POST text/plain", http.MethodPost, "text/plain", `{"a":1}`, false},
		{"POST form", http.MethodPost, "application/x-www-form-urlencoded", `a=1`, false},
		{"POST garbage content type", http.MethodPost, "json;;;", `{}`, false},
		{"PUT empty, no content type", http.MethodPut, "", "", false},
		{"PATCH text/plain", http.MethodPatch, "text/plain", `{}`, false},
		{"PATCH JSON", http.MethodPatch, "application/json", `{}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reached = false
			var body io.Reader // nil: no body at all
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, "/", body)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tt.pass {
				if !reached || rec.Code != http.StatusNoContent {
					t.Errorf("refused with %d: %s", rec.Code, rec.Body)
				}
				return
			}
			if reached {
				t.Error("the handler ran")
			}
			if b := readError(t, rec, http.StatusBadRequest); b.Error.Code != "invalid_request" {
				t.Errorf("code = %q", b.Error.Code)
			}
		})
	}
}

func TestWithAccessLog(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	r := httpapi.NewRouter()
	r.HandleFunc("/v1/things/{id}", func(w http.ResponseWriter, r *http.Request) {
		httpapi.NoteAccount(r.Context(), "acc_1")
		w.WriteHeader(http.StatusAccepted)
	}).Methods(http.MethodGet)
	h := httpapi.WithRequestID(httpapi.WithAccessLog(logger)(r))

	req := httptest.NewRequest(http.MethodGet, "/v1/things/sh_01SECRETLOOKINGID?token=abc", nil)
	req.Header.Set("Authorization", "Bearer shp_should_not_be_logged")
	h.ServeHTTP(httptest.NewRecorder(), req)

	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("not one JSON line: %v: %s", err, buf.String())
	}
	if line["route"] != "/v1/things/{id}" || line["status"] != 202.0 || line["method"] != "GET" || line["account_id"] != "acc_1" {
		t.Errorf("log line = %v", line)
	}
	if id, _ := line["request_id"].(string); id == "" {
		t.Error("no request id in the log line")
	}
	for _, leak := range []string{"sh_01SECRETLOOKINGID", "token=abc", "shp_should_not_be_logged"} {
		if strings.Contains(buf.String(), leak) {
			t.Errorf("log line contains %q: %s", leak, buf.String())
		}
	}
}
