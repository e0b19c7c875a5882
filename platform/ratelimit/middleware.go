package ratelimit

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// Policy is the name of the one quota policy in the RateLimit-Policy and
// RateLimit headers: an account's requests per Window.
const Policy = "default"

// Middleware counts each authenticated request, sets the rate-limit headers
// on every answer and refuses with 429 past the limit. A dashboard page's
// calls are not counted: the page was (Counted).
func Middleware(l *Limiter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := auth.FromContext(r.Context())
			if !ok || wasCounted(r.Context()) {
				next.ServeHTTP(w, r)
				return
			}
			d, err := l.Take(r.Context(), p.AccountID, p.RateLimit)
			if err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
			left := l.SetHeaders(w.Header(), d)
			if !d.Allowed {
				body := httpapi.NewErrorBody(r, http.StatusTooManyRequests, "rate_limit_exceeded",
					"Too many requests: the limit is "+strconv.Itoa(d.Limit)+" per minute.", nil)
				body.Error.RetryAfter = &left
				httpapi.WriteJSON(w, http.StatusTooManyRequests, body)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// SetHeaders sets the rate-limit headers of d, and Retry-After when d
// refuses; it returns the seconds until d's window ends.
func (l *Limiter) SetHeaders(h http.Header, d Decision) int {
	left := secondsLeft(d.Reset, l.clock.Now())
	setHeaders(h, d, left)
	if !d.Allowed {
		h.Set("Retry-After", strconv.Itoa(left))
	}
	return left
}

// secondsLeft is the whole seconds until reset, at least 1: a client that
// waits that long is in the next window.
func secondsLeft(reset, now time.Time) int {
	return max(1, int(math.Ceil(reset.Sub(now).Seconds())))
}

// setHeaders tells the decision twice: the X-RateLimit-* headers clients
// have long read (Reset in Unix seconds), and the structured fields of the
// IETF draft (draft-ietf-httpapi-ratelimit-headers-11, May 2026; the syntax
// is unchanged since -08): RateLimit-Policy names the policy with its quota
// q and window w in seconds, RateLimit what is left of it, r requests for t
// more seconds. The policy name is a constant, so the fields need no
// Structured Fields serializer.
func setHeaders(h http.Header, d Decision, left int) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
	h.Set("RateLimit-Policy", `"`+Policy+`";q=`+strconv.Itoa(d.Limit)+";w="+strconv.Itoa(int(Window.Seconds())))
	h.Set("RateLimit", `"`+Policy+`";r=`+strconv.Itoa(d.Remaining)+";t="+strconv.Itoa(left))
}
