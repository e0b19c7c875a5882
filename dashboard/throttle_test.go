package dashboard_test

import (
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
)

// newBrowserFrom is a browser whose connections come from localIP (any
// 127.x address reaches the loopback server), another client address.
func newBrowserFrom(t *testing.T, base, localIP string) *browser {
	b := newBrowser(t, base)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
	b.http.Transport = &http.Transport{DialContext: dialer.DialContext}
	return b
}

func signInAttempt(t *testing.T, b *browser, email, password string) (int, *http.Response) {
	t.Helper()
	_, page, _ := b.do(http.MethodGet, "/dashboard/sign-in", nil)
	status, _, res := b.do(http.MethodPost, "/dashboard/sign-in", url.Values{"csrf_token": {csrf(t, page)}, "email": {email}, "password": {password}})
	return status, res
}

// An attacker's wrong passwords slow the attacker's address only, by
// growing waits; the owner signs in from elsewhere at once, and from the
// attacker's address once the wait is over.
func TestSignInSlowsTheAttackerNeverLocksOutTheOwner(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 11, 21, 9, 0, 30, 0, time.UTC))
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clk))
	const password = "long enough password"
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: "acme", Email: "jana@example.com", Password: password}); err != nil {
		t.Fatal(err)
	}
	attacker := newBrowserFrom(t, env.URL(), "127.0.0.2")
	for i := range 5 {
		if status, _ := signInAttempt(t, attacker, "jana@example.com", "guess "+string(rune('a'+i))); status != http.StatusUnauthorized {
			t.Fatalf("free attempt %d: %d, want 401", i+1, status)
		}
	}
	// The sixth failure earns a wait of 1 s, the seventh 2 s: meanwhile the
	// password is not even checked, the right one included, whatever the
	// letter case or spaces of the address.
	// In this order: a map's would be random, and the 2 s wait needs the 1 s one first.
	for _, step := range []struct{ want, spelling string }{{"1", "jana@example.com"}, {"2", " JANA@Example.COM "}} {
		want, spelling := step.want, step.spelling
		if status, _ := signInAttempt(t, attacker, spelling, "guess again"); status != http.StatusUnauthorized {
			t.Fatalf("failure before a %s s wait: %d, want 401", want, status)
		}
		status, res := signInAttempt(t, attacker, "Jana@example.com", password)
		if status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != want {
			t.Fatalf("attempt within the wait: %d, Retry-After %q; want 429, %s", status, res.Header.Get("Retry-After"), want)
		}
		clk.Advance(time.Second)
		if want == "2" {
			if status, _ := signInAttempt(t, attacker, "jana@example.com", password); status != http.StatusTooManyRequests {
				t.Fatalf("1 s into a 2 s wait: %d, want 429", status)
			}
			clk.Advance(time.Second)
		}
	}
	owner := newBrowserFrom(t, env.URL(), "127.0.0.1")
	if status, _ := signInAttempt(t, owner, "jana@example.com", password); status != http.StatusSeeOther {
		t.Fatalf("the owner from another address: %d, want to be signed in", status)
	}
	if status, _ := signInAttempt(t, attacker, "jana@example.com", password); status != http.StatusSeeOther {
		t.Fatalf("the right password from the attacker's address after the wait: %d, want to be signed in", status)
	}
	// Success forgets the run: the next wrong password is a free one again.
	if status, _ := signInAttempt(t, attacker, "jana@example.com", "guess z"); status != http.StatusUnauthorized {
		t.Errorf("after a success: %d, want 401", status)
	}
}

// One client address may try 30 sign-ins a minute, whatever the addresses;
// another client is not limited by it.
func TestSignInsPerClientAddressAreLimited(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clock.NewManual(time.Date(2026, 11, 21, 9, 0, 30, 0, time.UTC))))
	sprayer := newBrowserFrom(t, env.URL(), "127.0.0.3")
	for i := range 30 {
		if status, _ := signInAttempt(t, sprayer, "user"+string(rune('a'+i))+"@example.com", "some password"); status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d, want 401", i+1, status)
		}
	}
	status, res := signInAttempt(t, sprayer, "other@example.com", "some password")
	if status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "30" {
		t.Errorf("31st attempt: %d, Retry-After %q; want 429, 30", status, res.Header.Get("Retry-After"))
	}
	if status, _ := signInAttempt(t, newBrowserFrom(t, env.URL(), "127.0.0.4"), "other@example.com", "some password"); status != http.StatusUnauthorized {
		t.Errorf("another client address: %d, want 401", status)
	}
}

// A token planted in the cookie and the form (login CSRF) is not one the
// server made: refused, nobody signed in.
func TestSignInRefusesAPlantedFormToken(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	const password = "long enough password"
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: "acme", Email: "jana@example.com", Password: password}); err != nil {
		t.Fatal(err)
	}
	_, page, _ := newBrowser(t, env.URL()).do(http.MethodGet, "/dashboard/sign-in", nil)
	real := csrf(t, page)
	nonce, _, _ := strings.Cut(real, ".")
	for name, planted := range map[string]string{
		"a value of the attacker's":     "attacker",
		"a real token with its MAC cut": real[:strings.LastIndexByte(real, '.')] + ".",
		"a real nonce, expiry changed":  nonce + ".99999999999." + real[strings.LastIndexByte(real, '.')+1:],
	} {
		jar, _ := cookiejar.New(nil)
		b := newBrowser(t, env.URL())
		b.http.Jar = jar
		u, _ := url.Parse(env.URL() + "/dashboard")
		jar.SetCookies(u, []*http.Cookie{{Name: "shipd_sign_in", Value: planted, Path: "/dashboard"}})
		status, _, _ := b.do(http.MethodPost, "/dashboard/sign-in", url.Values{"csrf_token": {planted}, "email": {"jana@example.com"}, "password": {password}})
		if status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, status)
		}
	}
	var sessions int
	if err := env.DB.Get(&sessions, `SELECT count(*) FROM platform.sessions`); err != nil || sessions != 0 {
		t.Errorf("%d sessions started with planted tokens (%v)", sessions, err)
	}
}

// Wrong API keys from one client address: ten free, the eleventh earns a
// 1 s wait; within it every key, a good one too, gets 429 with Retry-After,
// not even looked at.
func TestWrongAPIKeysAreSlowedPerClientAddress(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clock.NewManual(time.Date(2026, 11, 21, 9, 0, 30, 0, time.UTC))))
	good := env.NewKey("acme")
	for i := range 11 {
		if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments", Key: "shp_wrong" + string(rune('a'+i))}); res.Status != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %d, want 401", i+1, res.Status)
		}
	}
	for _, key := range []string{"shp_wrongz", good} {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments", Key: key})
		if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" {
			t.Errorf("a key after eleven wrong ones: %d, Retry-After %q; want 429, 1", res.Status, res.Header.Get("Retry-After"))
		}
	}
}

// A dashboard page counts against the account's rate limit like an API
// request, keys page included, and answers 429 past it.
func TestDashboardPagesAreRateLimited(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clock.NewManual(time.Date(2026, 11, 21, 9, 0, 30, 0, time.UTC))))
	env.NewKeyWithLimit("acme", 3)
	b := signIn(t, env, "acme", "jana@example.com")
	for _, path := range []string{"/dashboard/keys", "/dashboard", "/dashboard/shipments"} {
		if status, _, _ := b.do(http.MethodGet, path, nil); status != http.StatusOK {
			t.Fatalf("GET %s within the limit: %d", path, status)
		}
	}
	status, _, res := b.do(http.MethodGet, "/dashboard/keys", nil)
	if status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "30" {
		t.Errorf("GET /dashboard/keys past the limit: %d, Retry-After %q; want 429, 30", status, res.Header.Get("Retry-After"))
	}
}
