package server_test

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/clock"
)

var rateLimitField = regexp.MustCompile(`^"default";r=(\d+);t=(\d+)$`)

// Every authenticated answer, a success, a refusal or a 429, carries the
// IETF draft's RateLimit-Policy and RateLimit beside X-RateLimit-*, saying
// the same: q the limit, r what remains (counting down, 0 on a 429), t the
// seconds to X-RateLimit-Reset (Retry-After on a 429). An answer without a
// key carries none.
func TestRateLimitHeadersOfTheIETFDraft(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 1, 2, 12, 0, 35, 0, time.UTC) // 25 s before the window ends
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clock.NewManual(at)))
	key := env.NewKeyWithLimit("limited", 4)

	for i, req := range []apptest.Request{
		{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: key},
		{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key, Body: map[string]any{"url": "https://example.com/a b"}},
		{Method: http.MethodGet, Path: "/v1/webhook-subscriptions/wh_01JZZZZZZZZZZZZZZZZZZZZZZZ", Key: key},
		{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: key},
		{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: key},
		{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key, Body: channel("Over")},
	} {
		res := env.Do(req)
		remaining := max(0, 3-i)
		if want := []int{200, 422, 404, 200, 429, 429}[i]; res.Status != want {
			t.Fatalf("request %d: %d, want %d: %s", i+1, res.Status, want, res.Body)
		}
		h := res.Header
		if h.Get("RateLimit-Policy") != `"default";q=4;w=60` || h.Get("X-RateLimit-Limit") != "4" {
			t.Errorf("request %d: RateLimit-Policy %q, X-RateLimit-Limit %q", i+1, h.Get("RateLimit-Policy"), h.Get("X-RateLimit-Limit"))
		}
		m := rateLimitField.FindStringSubmatch(h.Get("RateLimit"))
		if m == nil || m[1] != strconv.Itoa(remaining) || m[1] != h.Get("X-RateLimit-Remaining") {
			t.Errorf("request %d: RateLimit %q, X-RateLimit-Remaining %q; want r=%d in both", i+1, h.Get("RateLimit"), h.Get("X-RateLimit-Remaining"), remaining)
			continue
		}
		reset, _ := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
		if m[2] != "25" || reset-at.Unix() != 25 {
			t.Errorf("request %d: RateLimit t=%s, X-RateLimit-Reset %d s away; want 25 in both", i+1, m[2], reset-at.Unix())
		}
		if res.Status == http.StatusTooManyRequests && h.Get("Retry-After") != m[2] {
			t.Errorf("request %d: Retry-After %q, RateLimit t=%s", i+1, h.Get("Retry-After"), m[2])
		}
	}
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels"}); res.Status != http.StatusUnauthorized ||
		res.Header.Get("RateLimit") != "" || res.Header.Get("RateLimit-Policy") != "" {
		t.Errorf("without a key: %d, RateLimit %q, RateLimit-Policy %q", res.Status, res.Header.Get("RateLimit"), res.Header.Get("RateLimit-Policy"))
	}
}
