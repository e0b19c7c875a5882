package auth

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"shipd/platform/httpapi"
)

// FailedKeys slows a client address that keeps sending wrong API keys
// (ADR 0046), so keys cannot be guessed at the speed of the network.
type FailedKeys interface {
	// Wait is how long a key from addr must still wait before it is checked.
	Wait(ctx context.Context, addr string) (time.Duration, error)
	// Failed records a wrong key from addr.
	Failed(ctx context.Context, addr string) error
}

// Middleware lets through only requests with a live bearer key and puts the
// principal in their context. A client address that sent too many wrong
// keys in a row gets 429 with Retry-After, before its key is even looked at.
func Middleware(store *Store, failed FailedKeys) func(http.Handler) http.Handler {
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
			addr := httpapi.ClientAddress(r)
			wait, err := failed.Wait(r.Context(), addr)
			if err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
			if wait > 0 {
				tooManyWrongKeys(w, r, wait)
				return
			}
			p, err := store.Authenticate(r.Context(), key)
			if errors.Is(err, ErrUnknownKey) {
				if err := failed.Failed(r.Context(), addr); err != nil {
					httpapi.WriteError(w, r, err)
					return
				}
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

func tooManyWrongKeys(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	seconds := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(seconds))
	body := httpapi.NewErrorBody(r, http.StatusTooManyRequests, "rate_limit_exceeded",
		"Too many invalid API keys from this address: try again in "+strconv.Itoa(seconds)+" s.", nil)
	body.Error.RetryAfter = &seconds
	httpapi.WriteJSON(w, http.StatusTooManyRequests, body)
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
