package auth

import (
	"errors"
	"net/http"
	"strings"

	"shipd/platform/httpapi"
)

// Middleware lets through only requests with a live bearer key and puts the
// principal in their context.
func Middleware(store *Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p, ok := FromContext(r.Context()); ok {
				// The dashboard's in-process call, acting for its signed-in
				// user's account. Only code in this process can put a
				// principal in a request's context; no header can.
				httpapi.NoteAccount(r.Context(), p.AccountID)
				next.ServeHTTP(w, r)
				return
			}
			key, ok := bearer(r.Header.Get("Authorization"))
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="shipd"`)
				httpapi.WriteErrorBody(w, r, http.StatusUnauthorized, "unauthenticated", "Missing API key: send Authorization: Bearer <API_KEY>.", nil)
				return
			}
			p, err := store.Authenticate(r.Context(), key)
			if errors.Is(err, ErrUnknownKey) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="shipd", error="invalid_token"`)
				httpapi.WriteErrorBody(w, r, http.StatusUnauthorized, "unauthenticated", "Invalid or revoked API key.", nil)
				return
			}
			if err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
			httpapi.NoteAccount(r.Context(), p.AccountID)
			next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
		})
	}
}

func bearer(header string) (string, bool) {
	scheme, key, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != ""
}

// Require wraps h so that only keys holding perm reach it. The handler it
// returns says which permission it asks (Guarded), so that what runs before
// it on the route (the idempotency layer, ADR 0007) can refuse a key that
// may not make the request before answering anything for it.
func Require(perm Permission, h http.HandlerFunc) http.Handler {
	return required{perm: perm, next: h}
}

// Guarded is a route's handler that asks a permission of the caller.
type Guarded interface {
	RequiredPermission() Permission
}

type required struct {
	perm Permission
	next http.HandlerFunc
}

func (q required) RequiredPermission() Permission { return q.perm }

func (q required) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, ok := FromContext(r.Context())
	if !ok {
		httpapi.WriteErrorBody(w, r, http.StatusUnauthorized, "unauthenticated", "Missing API key.", nil)
		return
	}
	if !p.Can(q.perm) {
		httpapi.WriteErrorBody(w, r, http.StatusForbidden, "forbidden", "This API key lacks the permission "+string(q.perm)+".", nil)
		return
	}
	q.next(w, r)
}
