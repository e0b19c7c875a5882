package auth

import (
	"context"
	"net/http"
	"slices"
)

// Principal is who a request acts for: an account, through one of its keys.
type Principal struct {
	AccountID   string
	KeyID       string
	Plan        Plan
	RateLimit   int // requests per minute
	Permissions []Permission
}

// Can reports whether the key holds p.
func (p Principal) Can(perm Permission) bool { return slices.Contains(p.Permissions, perm) }

type principalKey struct{}

// WithPrincipal stores p in ctx.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the request's principal. Routes behind Authenticate
// always have one.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// RequestPrincipal returns the principal of a request behind Authenticate
// (the zero Principal elsewhere).
func RequestPrincipal(r *http.Request) Principal {
	p, _ := FromContext(r.Context())
	return p
}
