package ratelimit

import (
	"math"
	"net/http"
	"strconv"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// Middleware counts each authenticated request, sets the X-RateLimit
// headers on every answer and refuses with 429 past the limit.
func Middleware(l *Limiter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := auth.FromContext(r.Context())
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			d, err := l.Take(r.Context(), p.AccountID, p.RateLimit)
			if err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
			h := w.Header()
			h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
			h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
			h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
			if !d.Allowed {
				retry := int(math.Ceil(d.Reset.Sub(l.clock.Now()).Seconds()))
				retry = max(retry, 1)
				h.Set("Retry-After", strconv.Itoa(retry))
				body := httpapi.NewErrorBody(r, http.StatusTooManyRequests, "rate_limit_exceeded",
					"Too many requests: the limit is "+strconv.Itoa(d.Limit)+" per minute.", nil)
				body.Error.RetryAfter = &retry
				httpapi.WriteJSON(w, http.StatusTooManyRequests, body)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
