package server

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"shipd/platform/httpapi"
)

// requireInternalToken lets through only calls from other shipd processes:
// "Authorization: Bearer <INTERNAL_TOKEN>" (ADR 0033).
func requireInternalToken(token string) mux.MiddlewareFunc {
	want := []byte("Bearer " + token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
			if subtle.ConstantTimeCompare(got, want) != 1 {
				httpapi.WriteErrorBody(w, r, http.StatusUnauthorized, "unauthenticated", "This route is for shipd processes: INTERNAL_TOKEN is missing or wrong.", nil)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
