package shipd

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

var errNoRewind = errors.New("shipd: cannot retry a request whose body cannot be read again")

type retryPolicy struct {
	max     int
	maxWait time.Duration
	base    time.Duration
}

// retryable answers are the ones shipd gives before doing anything: 429
// (over the rate limit) and 503 (its database or the carrier unreachable).
// Sending them again is safe for every method.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// isIdempotent says whether req may be sent again after a network error,
// when the first one may have arrived and done its work before the
// connection broke: a read (GET, HEAD, OPTIONS), or a POST with an
// Idempotency-Key, which shipd answers a second time with the first answer.
// Not PUT, PATCH or DELETE: a DELETE sent again after it worked answers 404,
// which would report a failure for a delete that succeeded, and shipd keeps
// no key for them.
func isIdempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	case http.MethodPost:
		return req.Header.Get(IdempotencyKeyHeader) != ""
	}
	return false
}

// wait is how long to wait before retrying resp: its Retry-After when it
// has one, else the backoff. ok is false when that is longer than the
// policy allows, and the answer is then returned as it is.
func (p retryPolicy) wait(resp *http.Response, attempt int) (time.Duration, bool) {
	d, ok := retryAfter(resp.Header, time.Now())
	if !ok {
		d = p.backoff(attempt)
	}
	return d, d <= p.maxWait
}

// backoff doubles from base with each attempt, each wait drawn between half
// and all of it so that many clients refused at once do not return at once.
func (p retryPolicy) backoff(attempt int) time.Duration {
	d := p.base << min(attempt, 16)
	if p.maxWait > 0 {
		d = min(d, p.maxWait)
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads Retry-After in either of its forms (RFC 9110, 10.2.3):
// seconds, or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}
