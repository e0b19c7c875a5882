package idempotency

import (
	"bytes"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// HeaderName is the request header that carries the key.
const HeaderName = "Idempotency-Key"

const maxKeyLength = 255

// Middleware makes every POST with an Idempotency-Key repeatable: the same
// key and body get the first answer again (Idempotent-Replayed: true), the
// same key with another body a 422, a key still in use a 409.
func Middleware(s *Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get(HeaderName)
			p, authed := auth.FromContext(r.Context())
			if r.Method != http.MethodPost || key == "" || !authed || !mayMake(r, p) {
				// A key that may not make the request is answered its
				// refusal by the route, and nothing is claimed, replayed or
				// stored for it.
				next.ServeHTTP(w, r)
				return
			}
			if len(key) > maxKeyLength {
				httpapi.WriteErrorBody(w, r, http.StatusBadRequest, "invalid_request", "Idempotency-Key must be at most 255 characters.", nil)
				return
			}
			// HTTP lets header values carry any byte above 0x7f; the key
			// column is text, which takes only UTF-8.
			if !utf8.ValidString(key) {
				httpapi.WriteErrorBody(w, r, http.StatusBadRequest, "invalid_request", "Idempotency-Key must be UTF-8 text.", nil)
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				httpapi.WriteErrorBody(w, r, http.StatusBadRequest, "invalid_request", "The request body is larger than 1 MiB.", nil)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			outcome, stored, token, err := s.Claim(r.Context(), p.AccountID, key, NewRequest(r.Method, r.URL.Path, body))
			if err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
			switch outcome {
			case Reused:
				httpapi.WriteErrorBody(w, r, http.StatusUnprocessableEntity, "idempotency_key_reused",
					"This Idempotency-Key was used with a different request.", map[string][]string{HeaderName: {"was used with a different request"}})
			case Running:
				httpapi.WriteErrorBody(w, r, http.StatusConflict, "conflict", "A request with this Idempotency-Key is still being processed.", nil)
			case Replay:
				for k, v := range stored.Header {
					w.Header()[k] = v
				}
				w.Header().Set("Idempotent-Replayed", "true")
				w.WriteHeader(stored.Status)
				_, _ = w.Write(stored.Body)
			case Claimed:
				s.serveClaimed(w, r, next, claim{account: p.AccountID, key: key, token: token})
			}
		})
	}
}

// mayMake reports whether the principal holds the permission the matched
// route asks (auth.Require); a route that asks none, or none matched, is
// the route's to answer.
func mayMake(r *http.Request, p auth.Principal) bool {
	route := mux.CurrentRoute(r)
	if route == nil {
		return true
	}
	guarded, ok := route.GetHandler().(auth.Guarded)
	return !ok || p.Can(guarded.RequiredPermission())
}
