package ratelimit_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/httpapi"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/ratelimit"
)

// start is half a minute into a window, so the window ends at 12:01:00.
var start = time.Date(2030, 1, 2, 12, 0, 30, 0, time.UTC)

func newLimiter(t *testing.T) (*ratelimit.Limiter, *clock.Manual, *sqlx.DB) {
	t.Helper()
	db := pgtest.Open(t)
	clk := clock.NewManual(start)
	return ratelimit.New(db, clk), clk, db
}

func take(t *testing.T, l *ratelimit.Limiter, account string, limit int) ratelimit.Decision {
	t.Helper()
	d, err := l.Take(t.Context(), account, limit)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	return d
}

func TestTakeCountsWithinWindow(t *testing.T) {
	l, clk, _ := newLimiter(t)
	windowEnd := time.Date(2030, 1, 2, 12, 1, 0, 0, time.UTC)
	want := []ratelimit.Decision{
		{Allowed: true, Limit: 3, Remaining: 2, Reset: windowEnd},
		{Allowed: true, Limit: 3, Remaining: 1, Reset: windowEnd},
		{Allowed: true, Limit: 3, Remaining: 0, Reset: windowEnd},
		{Allowed: false, Limit: 3, Remaining: 0, Reset: windowEnd},
		{Allowed: false, Limit: 3, Remaining: 0, Reset: windowEnd},
	}
	for i, w := range want {
		clk.Advance(time.Second) // still inside the same window
		if d := take(t, l, "acc_a", 3); d != w {
			t.Errorf("request %d: %+v, want %+v", i+1, d, w)
		}
	}

	// Another account has its own count.
	if d := take(t, l, "acc_b", 3); !d.Allowed || d.Remaining != 2 {
		t.Errorf("other account: %+v", d)
	}
}

func TestTakeNewWindowResets(t *testing.T) {
	l, clk, _ := newLimiter(t)
	for range 3 {
		take(t, l, "acc_a", 2)
	}
	if d := take(t, l, "acc_a", 2); d.Allowed {
		t.Fatalf("over the limit yet allowed: %+v", d)
	}

	clk.Set(time.Date(2030, 1, 2, 12, 1, 0, 0, time.UTC)) // the first instant of the next window
	d := take(t, l, "acc_a", 2)
	want := ratelimit.Decision{Allowed: true, Limit: 2, Remaining: 1, Reset: time.Date(2030, 1, 2, 12, 2, 0, 0, time.UTC)}
	if d != want {
		t.Errorf("in the next window: %+v, want %+v", d, want)
	}
}

func TestTakeIsExactUnderConcurrency(t *testing.T) {
	l, _, db := newLimiter(t)
	const requests, limit = 200, 150

	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		allowed   int
		remaining []int
		errs      []error
	)
	for range requests {
		wg.Go(func() {
			d, err := l.Take(t.Context(), "acc_busy", limit)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			if d.Allowed {
				allowed++
				remaining = append(remaining, d.Remaining)
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d Take calls failed, first: %v", len(errs), errs[0])
	}
	if allowed != limit {
		t.Errorf("allowed %d of %d requests, want exactly %d", allowed, requests, limit)
	}
	// Each allowed request saw a different count: remaining 149, 148, ..., 0.
	slices.Sort(remaining)
	for i, r := range remaining {
		if r != i {
			t.Fatalf("remaining values %v are not 0..%d, each once", remaining, limit-1)
		}
	}
	var count int
	if err := db.GetContext(t.Context(), &count, `SELECT count FROM platform.rate_limit_windows WHERE account_id = 'acc_busy'`); err != nil {
		t.Fatal(err)
	}
	if count != requests {
		t.Errorf("stored count = %d, want %d", count, requests)
	}
}

func TestPurgeRemovesOldWindowsOnly(t *testing.T) {
	l, clk, db := newLimiter(t)
	// One request in each of four consecutive windows: 11:57, 11:58, 11:59, 12:00.
	clk.Set(start.Add(-3 * time.Minute))
	for range 4 {
		take(t, l, "acc_a", 10)
		clk.Advance(time.Minute)
	}
	clk.Set(start)
	if err := l.Purge(t.Context()); err != nil {
		t.Fatalf("Purge: %v", err)
	}

	var kept []time.Time
	if err := db.SelectContext(t.Context(), &kept, `SELECT window_start FROM platform.rate_limit_windows ORDER BY window_start`); err != nil {
		t.Fatal(err)
	}
	want := []time.Time{time.Date(2030, 1, 2, 11, 59, 0, 0, time.UTC), time.Date(2030, 1, 2, 12, 0, 0, 0, time.UTC)}
	if len(kept) != len(want) || !kept[0].Equal(want[0]) || !kept[1].Equal(want[1]) {
		t.Errorf("windows kept = %v, want the previous and the current %v", kept, want)
	}

	// The current window's count survived the purge.
	if d := take(t, l, "acc_a", 10); d.Remaining != 8 {
		t.Errorf("after purge: remaining %d, want 8 (second request of the window)", d.Remaining)
	}
}

func TestMiddleware(t *testing.T) {
	l, clk, _ := newLimiter(t)
	calls := 0
	h := httpapi.WithRequestID(ratelimit.Middleware(l)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.WriteHeader(http.StatusNoContent)
	})))
	principal := auth.Principal{AccountID: "acc_a", RateLimit: 2}
	serve := func(p *auth.Principal) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/v1/shipments", nil)
		if p != nil {
			req = req.WithContext(auth.WithPrincipal(req.Context(), *p))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	reset := strconv.FormatInt(time.Date(2030, 1, 2, 12, 1, 0, 0, time.UTC).Unix(), 10)

	for i, remaining := range []string{"1", "0"} {
		rec := serve(&principal)
		if rec.Code != http.StatusNoContent {
			t.Fatalf("request %d: status %d: %s", i+1, rec.Code, rec.Body)
		}
		h := rec.Header()
		if h.Get("X-RateLimit-Limit") != "2" || h.Get("X-RateLimit-Remaining") != remaining || h.Get("X-RateLimit-Reset") != reset {
			t.Errorf("request %d: headers limit %q remaining %q reset %q; want 2 %s %s", i+1,
				h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"), remaining, reset)
		}
		if h.Get("Retry-After") != "" {
			t.Errorf("request %d: Retry-After %q on an allowed request", i+1, h.Get("Retry-After"))
		}
	}

	clk.Advance(10 * time.Second) // 12:00:40, 20 s before the window ends
	rec := serve(&principal)
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("third request: status %d, want 429", rec.Code)
	}
	if calls != 2 {
		t.Errorf("handler ran %d times, want 2", calls)
	}
	if got := rec.Header().Get("Retry-After"); got != "20" {
		t.Errorf("Retry-After = %q, want 20", got)
	}
	if rec.Header().Get("X-RateLimit-Remaining") != "0" || rec.Header().Get("X-RateLimit-Limit") != "2" {
		t.Errorf("429 headers: %v", rec.Header())
	}
	var body struct {
		Message string `json:"message"`
		Error   struct {
			Code       string `json:"code"`
			Status     int    `json:"status"`
			RetryAfter *int   `json:"retry_after"`
			RequestID  string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body: %v: %s", err, rec.Body)
	}
	if body.Error.Code != "rate_limit_exceeded" || body.Error.Status != 429 || body.Message == "" || body.Error.RequestID == "" {
		t.Errorf("body = %s", rec.Body)
	}
	if body.Error.RetryAfter == nil || *body.Error.RetryAfter != 20 {
		t.Errorf("error.retry_after = %v, want 20", body.Error.RetryAfter)
	}

	// The next window lets requests through again.
	clk.Advance(20 * time.Second)
	if rec := serve(&principal); rec.Code != http.StatusNoContent || rec.Header().Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("next window: status %d, remaining %q", rec.Code, rec.Header().Get("X-RateLimit-Remaining"))
	}

	// Unauthenticated requests are not counted here (auth refuses them first).
	if rec := serve(nil); rec.Code != http.StatusNoContent || rec.Header().Get("X-RateLimit-Limit") != "" ||
		rec.Header().Get("RateLimit") != "" || rec.Header().Get("RateLimit-Policy") != "" {
		t.Errorf("without principal: status %d, headers %v", rec.Code, rec.Header())
	}
}

var (
	policyField = regexp.MustCompile(`^"default";q=(\d+);w=(\d+)$`)
	limitField  = regexp.MustCompile(`^"default";r=(\d+);t=(\d+)$`)
)

// ietfHeaders reads RateLimit-Policy and RateLimit (draft-ietf-httpapi-
// ratelimit-headers-11) and holds them to the X-RateLimit-* headers of the
// same answer at now: q is the limit, r what remains, t the seconds until
// X-RateLimit-Reset. It returns r and t.
func ietfHeaders(t *testing.T, h http.Header, now time.Time) (r, secs int) {
	t.Helper()
	p := policyField.FindStringSubmatch(h.Get("RateLimit-Policy"))
	l := limitField.FindStringSubmatch(h.Get("RateLimit"))
	if p == nil || l == nil {
		t.Fatalf("RateLimit-Policy %q, RateLimit %q: not the draft's fields", h.Get("RateLimit-Policy"), h.Get("RateLimit"))
	}
	reset, _ := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	r, _ = strconv.Atoi(l[1])
	secs, _ = strconv.Atoi(l[2])
	if p[1] != h.Get("X-RateLimit-Limit") || p[2] != "60" || l[1] != h.Get("X-RateLimit-Remaining") || int64(secs) != reset-now.Unix() {
		t.Errorf("RateLimit-Policy %q, RateLimit %q disagree with X-RateLimit-Limit %q, -Remaining %q, -Reset %q at %d",
			h.Get("RateLimit-Policy"), h.Get("RateLimit"), h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"), now.Unix())
	}
	return r, secs
}

// The IETF draft's fields say what X-RateLimit-* say, count down with them,
// and on a 429 say r=0 with t equal to Retry-After.
func TestMiddlewareIETFHeaders(t *testing.T) {
	l, clk, _ := newLimiter(t)
	h := httpapi.WithRequestID(ratelimit.Middleware(l)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})))
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/v1/shipments", nil)
		req = req.WithContext(auth.WithPrincipal(req.Context(), auth.Principal{AccountID: "acc_a", RateLimit: 3}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	steps := []struct {
		advance time.Duration
		status  int
		policy  string
		limit   string
	}{
		{0, http.StatusNoContent, `"default";q=3;w=60`, `"default";r=2;t=30`},                       // 12:00:30
		{1500 * time.Millisecond, http.StatusNoContent, `"default";q=3;w=60`, `"default";r=1;t=29`}, // 12:00:31.5: 28.5 s, rounded up
		{8500 * time.Millisecond, http.StatusNoContent, `"default";q=3;w=60`, `"default";r=0;t=20`}, // 12:00:40
		{19 * time.Second, http.StatusTooManyRequests, `"default";q=3;w=60`, `"default";r=0;t=1`},   // 12:00:59
		{time.Second, http.StatusNoContent, `"default";q=3;w=60`, `"default";r=2;t=60`},             // 12:01:00, a new window
	}
	for i, s := range steps {
		clk.Advance(s.advance)
		rec := serve()
		if rec.Code != s.status || rec.Header().Get("RateLimit-Policy") != s.policy || rec.Header().Get("RateLimit") != s.limit {
			t.Errorf("request %d: %d, RateLimit-Policy %q, RateLimit %q; want %d, %s, %s", i+1, rec.Code,
				rec.Header().Get("RateLimit-Policy"), rec.Header().Get("RateLimit"), s.status, s.policy, s.limit)
		}
		_, secs := ietfHeaders(t, rec.Header(), clk.Now())
		if rec.Code == http.StatusTooManyRequests && rec.Header().Get("Retry-After") != strconv.Itoa(secs) {
			t.Errorf("request %d: Retry-After %q, RateLimit t=%d", i+1, rec.Header().Get("Retry-After"), secs)
		}
	}
}
