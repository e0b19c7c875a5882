package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// checkError asserts the error shape of ADR 0004 with status and code.
func checkError(t *testing.T, rec *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	var body struct {
		Message string `json:"message"`
		Error   struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			Status    int    `json:"status"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body is not JSON: %s", rec.Body)
	}
	if body.Error.Code != code || body.Error.Status != status || body.Message == "" || body.Message != body.Error.Message {
		t.Errorf("error body = %s, want code %q status %d", rec.Body, code, status)
	}
	if body.Error.RequestID == "" || body.Error.RequestID != rec.Header().Get("X-Request-Id") {
		t.Errorf("request_id %q, X-Request-Id %q", body.Error.RequestID, rec.Header().Get("X-Request-Id"))
	}
}

func TestMiddleware(t *testing.T) {
	s, _ := newStore(t)
	info, key := createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})
	revokedInfo, revoked := createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})
	if err := s.RevokeKey(t.Context(), revokedInfo.ID); err != nil {
		t.Fatal(err)
	}

	var seen *auth.Principal
	h := httpapi.WithRequestID(auth.Middleware(s, neverSlowed{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := auth.FromContext(r.Context())
		if ok {
			seen = &p
		}
		w.WriteHeader(http.StatusNoContent)
	})))
	serve := func(authorization string) *httptest.ResponseRecorder {
		seen = nil
		req := httptest.NewRequest(http.MethodGet, "/v1/shipments", nil)
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	t.Run("no header", func(t *testing.T) {
		rec := serve("")
		checkError(t, rec, http.StatusUnauthorized, "unauthenticated")
		if got := rec.Header().Get("WWW-Authenticate"); got != `Bearer realm="shipd"` {
			t.Errorf("WWW-Authenticate = %q", got)
		}
		if seen != nil {
			t.Error("the handler ran")
		}
	})
	for name, header := range map[string]string{
		"other scheme":  "Basic " + key,
		"bearer, empty": "Bearer   ",
		"key only":      key,
	} {
		t.Run(name, func(t *testing.T) {
			rec := serve(header)
			checkError(t, rec, http.StatusUnauthorized, "unauthenticated")
			if rec.Header().Get("WWW-Authenticate") == "" || seen != nil {
				t.Errorf("WWW-Authenticate %q, handler ran %v", rec.Header().Get("WWW-Authenticate"), seen != nil)
			}
		})
	}
	for name, header := range map[string]string{
		"garbage key": "Bearer not-a-key",
		"revoked key": "Bearer " + revoked,
	} {
		t.Run(name, func(t *testing.T) {
			rec := serve(header)
			checkError(t, rec, http.StatusUnauthorized, "unauthenticated")
			if got := rec.Header().Get("WWW-Authenticate"); got != `Bearer realm="shipd", error="invalid_token"` {
				t.Errorf("WWW-Authenticate = %q", got)
			}
			if seen != nil {
				t.Error("the handler ran")
			}
		})
	}
	for name, header := range map[string]string{
		"good key":             "Bearer " + key,
		"scheme in lower case": "bearer " + key,
	} {
		t.Run(name, func(t *testing.T) {
			rec := serve(header)
			if rec.Code != http.StatusNoContent {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if seen == nil || seen.AccountID != info.AccountID || seen.KeyID != info.ID || seen.RateLimit != 60 {
				t.Errorf("principal = %+v", seen)
			}
		})
	}
}

func TestRequire(t *testing.T) {
	var ran bool
	h := httpapi.WithRequestID(auth.Require(auth.ShipmentsWrite, func(w http.ResponseWriter, r *http.Request) {
		ran = true
		w.WriteHeader(http.StatusNoContent)
	}))
	serve := func(p *auth.Principal) *httptest.ResponseRecorder {
		ran = false
		req := httptest.NewRequest(http.MethodPost, "/v1/shipments", nil)
		if p != nil {
			req = req.WithContext(auth.WithPrincipal(req.Context(), *p))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	readOnly := auth.Principal{AccountID: "acc_1", Permissions: []auth.Permission{auth.ShipmentsRead, auth.ChannelsWrite}}
	checkError(t, serve(&readOnly), http.StatusForbidden, "forbidden")
	if ran {
		t.Error("the handler ran without the permission")
	}

	checkError(t, serve(nil), http.StatusUnauthorized, "unauthenticated")
	if ran {
		t.Error("the handler ran without a principal")
	}

	writer := auth.Principal{AccountID: "acc_1", Permissions: []auth.Permission{auth.ShipmentsWrite}}
	if rec := serve(&writer); rec.Code != http.StatusNoContent || !ran {
		t.Errorf("with the permission: status %d, ran %v", rec.Code, ran)
	}
}

// neverSlowed is a FailedKeys that slows nobody: these tests are about
// keys, not about how often a wrong one may come (ratelimit's tests are).
type neverSlowed struct{}

func (neverSlowed) Wait(context.Context, string) (time.Duration, error) { return 0, nil }
func (neverSlowed) Failed(context.Context, string) error                { return nil }
