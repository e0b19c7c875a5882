package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
)

var shownKey = regexp.MustCompile(`<code id="new-key">([^<]+)</code>`)

// A key made in the dashboard is shown once, works against the API with the
// permissions ticked, is listed without its secret, and stops working when
// revoked.
func TestKeysAreCreatedShownOnceListedAndRevoked(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	b := signIn(t, env, "acme", "jana@example.com")

	page, key := b.createShownOnce("/dashboard/keys", url.Values{"name": {"Shop"}, "permissions": {"shipments:read", "channels:read"}}, shownKey, "new key")
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments", Key: key}); res.Status != http.StatusOK {
		t.Errorf("the new key reading shipments: %d %s", res.Status, res.Body)
	}
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions", Key: key}); res.Status != http.StatusForbidden {
		t.Errorf("the new key without webhooks:read: %d, want 403", res.Status)
	}

	_, page, _ = b.do(http.MethodGet, "/dashboard/keys", nil)
	if strings.Contains(page, key) {
		t.Error("the key is shown again on the list")
	}
	if got := text(page); !strings.Contains(got, "Shop") || !strings.Contains(got, "shipments:read, channels:read") || !strings.Contains(got, key[:10]) {
		t.Errorf("the list lacks the key's name, permissions or prefix:\n%s", got)
	}
	id := regexp.MustCompile(`data-key-id="([^"]+)"><td>Shop<`).FindStringSubmatch(page)
	if id == nil {
		t.Fatalf("no row for the key:\n%s", page)
	}

	// Another account's user cannot revoke it, even with a valid form token.
	other := signIn(t, env, "globex", "max@example.com")
	if status, page, _ := other.post("/dashboard/keys", "/dashboard/keys/"+id[1]+"/revoke", nil); status != http.StatusForbidden || !strings.Contains(text(page), "nothing was changed") {
		t.Errorf("another account revoking: %d\n%s", status, text(page))
	}
	// Nor can a form without the session's token.
	if status, _, _ := b.do(http.MethodPost, "/dashboard/keys/"+id[1]+"/revoke", url.Values{"csrf_token": {"forged"}}); status != http.StatusForbidden {
		t.Errorf("revoke with a forged form token: %d, want 403", status)
	}
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments", Key: key}); res.Status != http.StatusOK {
		t.Fatalf("the key stopped working after refused revokes: %d", res.Status)
	}

	status, _, res := b.post("/dashboard/keys", "/dashboard/keys/"+id[1]+"/revoke", nil)
	if status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", status)
	}
	_, page, _ = b.do(http.MethodGet, res.Header.Get("Location"), nil)
	if got := text(page); !strings.Contains(got, "The key was revoked") || !strings.Contains(got, "revoked 20") {
		t.Errorf("after revoking:\n%s", got)
	}
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments", Key: key}); res.Status != http.StatusUnauthorized {
		t.Errorf("the revoked key: %d, want 401", res.Status)
	}
}

func TestKeyFormRefusesWhatCannotBeAKey(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	b := signIn(t, env, "acme", "jana@example.com")
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"name": {""}, "permissions": {"shipments:read"}}, "name: give the key a name"},
		{url.Values{"name": {"Shop"}}, "permissions: tick at least one"},
		{url.Values{"name": {"Shop"}, "permissions": {"everything"}}, "permissions: there is no permission everything"},
		{url.Values{"name": {strings.Repeat("x", 101)}, "permissions": {"shipments:read"}}, "name: at most 100 characters"},
		{url.Values{"name": {"bad\x00name"}, "permissions": {"shipments:read"}}, "name: at most 100 characters of text"},
	} {
		status, page, _ := b.post("/dashboard/keys", "/dashboard/keys", c.form)
		if status != http.StatusUnprocessableEntity || !strings.Contains(text(page), c.want) || shownKey.MatchString(page) {
			t.Errorf("%v: %d, want 422 saying %q and no key:\n%s", c.form, status, c.want, text(page))
		}
	}
	var keys int
	if err := env.DB.Get(&keys, `SELECT count(*) FROM platform.api_keys k JOIN platform.accounts a ON a.id = k.account_id WHERE a.name = 'acme'`); err != nil || keys != 0 {
		t.Errorf("%d keys made by refused forms (%v)", keys, err)
	}
}

// After its 12 hours a session signs nobody in: pages lead to the sign-in
// page and a form posted with it changes nothing.
func TestExpiredSessionChangesNothing(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clk))
	b := signIn(t, env, "acme", "jana@example.com")
	_, page, _ := b.do(http.MethodGet, "/dashboard/keys", nil)
	token := csrf(t, page)

	clk.Advance(auth.SessionLifetime + time.Second)
	for _, path := range []string{"/dashboard", "/dashboard/keys", "/dashboard/channels", "/dashboard/shipments", "/dashboard/webhooks"} {
		if status, _, res := b.do(http.MethodGet, path, nil); status != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/sign-in" {
			t.Errorf("GET %s with an expired session: %d to %q, want the sign-in page", path, status, res.Header.Get("Location"))
		}
	}
	status, _, res := b.do(http.MethodPost, "/dashboard/keys", url.Values{"csrf_token": {token}, "name": {"Late"}, "permissions": {"shipments:read"}})
	if status != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/sign-in" {
		t.Errorf("POST with an expired session: %d to %q, want the sign-in page", status, res.Header.Get("Location"))
	}
	var keys int
	if err := env.DB.Get(&keys, `SELECT count(*) FROM platform.api_keys`); err != nil || keys != 0 {
		t.Errorf("%d keys made with an expired session (%v)", keys, err)
	}
}
