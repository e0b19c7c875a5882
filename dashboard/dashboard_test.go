package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
)

func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: "acme", Email: "jana@example.com", Password: "long enough password"}); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, env.URL())

	if status, _, res := b.do(http.MethodGet, "/dashboard", nil); status != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/sign-in" {
		t.Fatalf("signed out: %d to %q, want the sign-in page", status, res.Header.Get("Location"))
	}
	status, page, res := b.do(http.MethodGet, "/dashboard/sign-in", nil)
	if status != http.StatusOK || !strings.Contains(page, `type="password"`) {
		t.Fatalf("sign-in page: %d", status)
	}
	if h := res.Header.Get("Content-Security-Policy"); !strings.Contains(h, "default-src 'none'") {
		t.Errorf("CSP %q", h)
	}
	token := csrf(t, page)

	// A form posted from elsewhere has no token: nothing happens.
	if status, page, _ := b.do(http.MethodPost, "/dashboard/sign-in", url.Values{"email": {"jana@example.com"}, "password": {"long enough password"}}); status != http.StatusForbidden || !strings.Contains(page, "came from elsewhere") {
		t.Errorf("without the form token: %d", status)
	}
	status, page, _ = b.do(http.MethodGet, "/dashboard/sign-in", nil)
	token = csrf(t, page)
	if status, page, _ := b.do(http.MethodPost, "/dashboard/sign-in", url.Values{"csrf_token": {token}, "email": {"jana@example.com"}, "password": {"wrong password!!"}}); status != http.StatusUnauthorized || !strings.Contains(page, "The e-mail address or the password is wrong.") {
		t.Errorf("wrong password: %d", status)
	}

	_, page, _ = b.do(http.MethodGet, "/dashboard/sign-in", nil)
	status, _, res = b.do(http.MethodPost, "/dashboard/sign-in", url.Values{"csrf_token": {csrf(t, page)}, "email": {"Jana@Example.com"}, "password": {"long enough password"}})
	if status != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard" {
		t.Fatalf("sign-in: %d to %q", status, res.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "shipd_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/dashboard" || session.Secure {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Lax, /dashboard, not Secure over plain HTTP", session)
	}
	status, page, _ = b.do(http.MethodGet, "/dashboard", nil)
	if status != http.StatusOK || !strings.Contains(page, "jana@example.com") || !strings.Contains(page, "Account acme") {
		t.Fatalf("signed in: %d\n%s", status, page)
	}

	if status, _, _ := b.do(http.MethodPost, "/dashboard/sign-out", url.Values{"csrf_token": {"forged"}}); status != http.StatusForbidden {
		t.Errorf("sign-out with a forged token: %d, want 403", status)
	}
	if status, _, _ := b.do(http.MethodGet, "/dashboard", nil); status != http.StatusOK {
		t.Errorf("still signed in after the forged sign-out: %d", status)
	}
	if status, _, _ := b.do(http.MethodPost, "/dashboard/sign-out", url.Values{"csrf_token": {csrf(t, page)}}); status != http.StatusSeeOther {
		t.Errorf("sign-out: %d", status)
	}
	var sessions int
	if err := env.DB.Get(&sessions, `SELECT count(*) FROM platform.sessions`); err != nil || sessions != 0 {
		t.Errorf("%d sessions left after signing out (%v)", sessions, err)
	}
	// The old cookie, replayed, signs nobody in.
	replay := newBrowser(t, env.URL())
	u, _ := url.Parse(env.URL() + "/dashboard")
	replay.http.Jar.SetCookies(u, []*http.Cookie{{Name: "shipd_session", Value: session.Value, Path: "/dashboard"}})
	if status, _, _ := replay.do(http.MethodGet, "/dashboard", nil); status != http.StatusSeeOther {
		t.Errorf("replayed session after sign-out: %d, want the sign-in page", status)
	}
}

// The pages call every module's /v1 routes in process, so a process that
// runs only some modules serves none of them (ADR 0033); the one running
// them all, as above, serves them all.
func TestNotServedByAProcessOfSomeModules(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.Modules = []string{"webhooks"} }))
	b := newBrowser(t, env.URL())
	for _, path := range []string{"/dashboard", "/dashboard/sign-in", "/dashboard/shipments"} {
		if status, _, _ := b.do(http.MethodGet, path, nil); status != http.StatusNotFound {
			t.Errorf("GET %s on a webhooks process: %d, want 404", path, status)
		}
	}
	if status, _, _ := b.do(http.MethodGet, "/healthz", nil); status != http.StatusOK {
		t.Errorf("GET /healthz: %d: the process is not serving at all", status)
	}
}
