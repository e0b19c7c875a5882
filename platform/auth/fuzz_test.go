package auth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// FuzzMiddleware sends any Authorization header to the middleware with a
// real key store: only the account's own key, sent as a bearer token, gets
// through; everything else is a 401 in the error shape, never a lookup
// failure turned 500.
func FuzzMiddleware(f *testing.F) {
	s, _ := newStore(f)
	info, key := createKey(f, s, auth.NewKeyRequest{AccountName: "acme"})
	for _, header := range []string{
		"Bearer " + key, "bearer " + key, "BEARER \t" + key + " ", "Bearer  " + key + "x", "Basic " + key, key,
		"Bearer   ", "Bearer", "", "Bearer not-a-key", "Bearer shp_" + strings.Repeat("0", 40),
		"Bearer shp_" + strings.Repeat("\xff", 40), "Bearer " + strings.ToLower(key), "Bearer " + key[:len(key)-1] + "\x00",
	} {
		f.Add(header)
	}
	var seen string
	h := httpapi.WithRequestID(auth.Middleware(s, neverSlowed{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := auth.FromContext(r.Context())
		seen = p.AccountID
		w.WriteHeader(http.StatusNoContent)
	})))
	f.Fuzz(func(t *testing.T, authorization string) {
		seen = ""
		req := httptest.NewRequest(http.MethodGet, "/v1/shipments", nil)
		req.Header.Set("Authorization", authorization)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusNoContent {
			if seen != info.AccountID || !strings.Contains(authorization, key) {
				t.Fatalf("Authorization %q let in as account %q", authorization, seen)
			}
			return
		}
		checkError(t, rec, http.StatusUnauthorized, "unauthenticated")
		if rec.Header().Get("WWW-Authenticate") == "" || seen != "" {
			t.Fatalf("Authorization %q: WWW-Authenticate %q, handler ran: %v", authorization, rec.Header().Get("WWW-Authenticate"), seen != "")
		}
	})
}
