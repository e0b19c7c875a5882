package dashboard_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
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

const masked = "••••••••"

// makeChannel creates a sandbox channel through the API and returns its id.
func makeChannel(t *testing.T, env *apptest.Env, key, name string, settings map[string]any) string {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key,
		Body: map[string]any{"name": name, "provider": "sandbox", "settings": settings}})
	if res.Status != http.StatusCreated {
		t.Fatalf("creating channel %q: %d %s", name, res.Status, res.Body)
	}
	return res.Data(t)["id"].(string)
}

// channelOf is the channel as the API answers its account.
func channelOf(t *testing.T, env *apptest.Env, key, id string) map[string]any {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels/" + id, Key: key})
	if res.Status != http.StatusOK {
		t.Fatalf("GET channel %s: %d %s", id, res.Status, res.Body)
	}
	return res.Data(t)
}

// listed waits until the API's channel list (a projection that trails the
// writes) holds what ready looks for, and returns its body.
func listed(t *testing.T, env *apptest.Env, key string, ready func(body string) bool) {
	t.Helper()
	apptest.Eventually(t, 2*time.Minute, "the channel list catches up", func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels?per_page=100", Key: key})
		return res.Status == http.StatusOK && ready(string(res.Body))
	})
}

var createdChannel = regexp.MustCompile(`^/dashboard/channels/(ch_[A-Za-z0-9]+)\?created=1$`)

// sandboxForm is the create form filled for the sandbox carrier.
func sandboxForm(name, secret string) url.Values {
	return url.Values{"provider": {"sandbox"}, "name": {name}, "description": {""}, "settings.clientId": {"client-77"},
		"settings.clientSecret": {secret}, "settings.productType": {""}, "settings.sandboxMode": {""}, "settings.defaultLabelFormat": {""}}
}

// createThroughForm posts the form and returns the new channel's id.
func createThroughForm(t *testing.T, b *browser, form url.Values) string {
	t.Helper()
	status, page, res := b.post("/dashboard/channels/new?provider="+form.Get("provider"), "/dashboard/channels", form)
	if status != http.StatusSeeOther {
		t.Fatalf("creating through the form: %d\n%s", status, text(page))
	}
	m := createdChannel.FindStringSubmatch(res.Header.Get("Location"))
	if m == nil {
		t.Fatalf("redirected to %q, want the channel's page", res.Header.Get("Location"))
	}
	return m[1]
}

func TestChannelsListShowsTheAccountsOwnChannels(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key, theirs := env.NewKey("acme"), env.NewKey("globex")
	main := makeChannel(t, env, key, "Main warehouse", map[string]any{"clientId": "c1", "clientSecret": "top-secret-value", "defaultLabelFormat": "zpl"})
	env.NextSecond() // Broken is the newer: the pages below show it first
	broken := makeChannel(t, env, key, "Broken", map[string]any{"clientId": "c2", "clientSecret": "invalid"})
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels/" + broken + "/validate", Key: key}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("validating the broken channel: %d %s", res.Status, res.Body)
	}
	makeChannel(t, env, theirs, "Globex only", map[string]any{"clientId": "c3", "clientSecret": "s"})
	listed(t, env, key, func(body string) bool {
		return strings.Contains(body, `"total":2`) && strings.Contains(body, `"status":"error"`)
	})
	b := signIn(t, env, "acme", "jana@example.com")

	status, page, _ := b.do(http.MethodGet, "/dashboard/channels", nil)
	got := text(page)
	if status != http.StatusOK {
		t.Fatalf("list: %d\n%s", status, got)
	}
	for _, want := range []string{
		"2 channels.",
		"Main warehouse Sandbox carrier (offline, for trying the API) draft zpl",
		"Broken Sandbox carrier (offline, for trying the API) error pdf (provider default)",
		"Rejected: clientSecret: the carrier rejected the client credentials (invalid_client)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the list lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Globex only") || strings.Contains(page, "top-secret-value") {
		t.Errorf("the list shows another account's channel or a secret:\n%s", got)
	}
	for _, id := range []string{main, broken} {
		if !strings.Contains(page, `<a href="/dashboard/channels/`+id+`">`) {
			t.Errorf("no link to channel %s", id)
		}
	}

	// One channel a page: newest first, with links between the pages.
	_, page, _ = b.do(http.MethodGet, "/dashboard/channels?per_page=1", nil)
	if got := text(page); !strings.Contains(got, "page 1 of 2") || !strings.Contains(got, "Broken") || strings.Contains(got, "Main warehouse") {
		t.Errorf("first page of one:\n%s", got)
	}
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">Next</a>`).FindStringSubmatch(page)
	if next == nil {
		t.Fatalf("no link to the next page:\n%s", page)
	}
	_, page, _ = b.do(http.MethodGet, strings.ReplaceAll(next[1], "&amp;", "&"), nil)
	if got := text(page); !strings.Contains(got, "page 2 of 2") || !strings.Contains(got, "Main warehouse") || strings.Contains(got, "Broken") {
		t.Errorf("second page of one:\n%s", got)
	}
	if !strings.Contains(page, ">Previous</a>") || strings.Contains(page, ">Next</a>") {
		t.Errorf("the last page's links:\n%s", page)
	}

	_, page, _ = b.do(http.MethodGet, "/dashboard/channels?status=error", nil)
	if got := text(page); !strings.Contains(got, "1 channel.") || !strings.Contains(got, "Broken") || strings.Contains(got, "Main warehouse") {
		t.Errorf("filtered by status error:\n%s", got)
	}
}

func TestChannelIsCreatedThroughTheForm(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	b := signIn(t, env, "acme", "jana@example.com")

	_, page, _ := b.do(http.MethodGet, "/dashboard/channels", nil)
	for _, code := range []string{"sandbox", "ppl", "gls", "inpost", "dhl_parcel_de"} {
		if !strings.Contains(page, `<option value="`+code+`">`) {
			t.Errorf("the list page offers no provider %s", code)
		}
	}
	status, page, _ := b.do(http.MethodGet, "/dashboard/channels/new?provider=sandbox", nil)
	if status != http.StatusOK {
		t.Fatalf("the form: %d\n%s", status, text(page))
	}
	if !regexp.MustCompile(`<input [^>]*type="password" name="settings.clientSecret"`).MatchString(page) ||
		!regexp.MustCompile(`<input [^>]*type="text" name="settings.clientId"[^>]* required`).MatchString(page) {
		t.Errorf("the secret is not a password input, or the client id not a required text input:\n%s", page)
	}
	if got := text(page); !strings.Contains(got, "clientId (required)") || !strings.Contains(got, "Client id of the carrier account.") ||
		!strings.Contains(got, "productType default (STANDARD) STANDARD EXPRESS") {
		t.Errorf("the form does not describe the settings as /v1/providers does:\n%s", got)
	}

	form := sandboxForm("Shop DE", "typed-secret-1")
	form.Set("description", "parcels of the German shop")
	form.Set("settings.productType", "EXPRESS")
	form.Set("settings.sandboxMode", "false")
	id := createThroughForm(t, b, form)

	status, page, _ = b.do(http.MethodGet, "/dashboard/channels/"+id+"?created=1", nil)
	got := text(page)
	if status != http.StatusOK {
		t.Fatalf("the new channel's page: %d\n%s", status, got)
	}
	for _, want := range []string{"The channel was created as a draft", "Shop DE", "parcels of the German shop", "Not validated yet",
		"clientId client-77", "clientSecret " + masked + " (secret, masked)", "productType EXPRESS", "sandboxMode false",
		"defaultLabelFormat not set (default pdf)", "Label format pdf (provider default)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the channel's page lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(page, "typed-secret-1") {
		t.Error("the channel's page shows the secret")
	}

	// The API has it as typed, the boolean a boolean, the secret kept.
	ch := channelOf(t, env, key, id)
	settings := ch["settings"].(map[string]any)
	if ch["name"] != "Shop DE" || ch["description"] != "parcels of the German shop" || ch["provider"] != "sandbox" || ch["status"] != "draft" ||
		settings["clientId"] != "client-77" || settings["clientSecret"] != masked || settings["productType"] != "EXPRESS" ||
		settings["sandboxMode"] != false || len(settings) != 4 {
		t.Errorf("the API has %v", ch)
	}
	listed(t, env, key, func(body string) bool { return strings.Contains(body, id) })
}

func TestChannelFormRefusesWhatTheAPIRefuses(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	makeChannel(t, env, key, "Taken", map[string]any{"clientId": "c", "clientSecret": "s"})
	b := signIn(t, env, "acme", "jana@example.com")

	with := func(changes ...string) url.Values {
		f := sandboxForm("Shop", "typed-secret-2")
		for i := 0; i+1 < len(changes); i += 2 {
			f.Set(changes[i], changes[i+1])
		}
		return f
	}
	for _, c := range []struct {
		name string
		form url.Values
		want string
	}{
		{"secret missing", with("settings.clientSecret", ""), "settings.clientSecret: is required"},
		{"client id blank", with("settings.clientId", "  "), "settings.clientId: must not be empty"},
		{"product not offered", with("settings.productType", "FLIGHT"), "settings.productType: must be one of: STANDARD, EXPRESS, POINT"},
		{"not a boolean", with("settings.sandboxMode", "maybe"), "settings.sandboxMode: must be a boolean"},
		{"label format unknown", with("settings.defaultLabelFormat", "png"), "settings.defaultLabelFormat: must be one of: pdf, zpl, epl"},
		{"no name", with("name", "   "), "name: is required"},
		{"name too long", with("name", strings.Repeat("x", 256)), "name: must be at most 255 characters"},
		{"name taken", with("name", "Taken"), "name: has already been taken by another channel of this account"},
		{"description too long", with("description", strings.Repeat("d", 2001)), "description:"},
		{"unknown provider", with("provider", "pigeon"), "provider: must be one of the providers of GET /v1/providers"},
		{"no provider", with("provider", ""), "provider: is required"},
		{"NUL in the name", with("name", "Sh\x00op"), "must not contain the character U+0000"},
		// Sent to the API as typed, not as U+FFFD: its refusal is shown.
		{"not UTF-8 in the name", with("name", "Sh\xffop"), "The request body is not valid UTF-8"},
		{"not UTF-8 in a setting", with("settings.clientId", "client-\xc3"), "The request body is not valid UTF-8"},
	} {
		status, page, _ := b.post("/dashboard/channels/new?provider=sandbox", "/dashboard/channels", c.form)
		got := text(page)
		if status != http.StatusUnprocessableEntity || !strings.Contains(got, "The channel was not created.") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %d, want 422 saying %q:\n%s", c.name, status, c.want, got)
		}
		if strings.Contains(page, "typed-secret-2") {
			t.Errorf("%s: the refused form shows the secret again", c.name)
		}
	}

	// What was typed is kept, but for the secret, and the reason is by its field.
	status, page, _ := b.post("/dashboard/channels/new?provider=sandbox", "/dashboard/channels",
		with("settings.productType", "FLIGHT", "settings.sandboxMode", "false", "description", "kept text"))
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("%d", status)
	}
	for _, want := range []string{`name="name" maxlength="255" required value="Shop"`, `name="settings.clientId" aria-describedby="about-clientId" required value="client-77"`,
		`<option value="false" selected>`, `>kept text</textarea>`,
		`Product used for shipments; switched to its COD variant when cash on delivery is asked for. Default: STANDARD.</small>
<ul class="reasons"><li>must be one of: STANDARD, EXPRESS, POINT</li></ul>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the refused form lacks %s:\n%s", want, page)
		}
	}
	if !regexp.MustCompile(`<input [^>]*name="settings.clientSecret"[^>]*autocomplete="new-password">`).MatchString(page) ||
		!strings.Contains(text(page), "Secrets are not kept when the form is refused") {
		t.Errorf("the secret input is not empty, or the page does not say so:\n%s", page)
	}

	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM channels.channels`); err != nil || n != 1 {
		t.Errorf("%d channels after refused forms (%v), want only the first", n, err)
	}
}

func TestValidateShowsTheCarriersAnswer(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	b := signIn(t, env, "acme", "jana@example.com")
	good := makeChannel(t, env, key, "Good", map[string]any{"clientId": "c", "clientSecret": "fine"})
	// Made through the form: the carrier sees the secret as it was typed.
	bad := createThroughForm(t, b, sandboxForm("Bad", "invalid"))
	down := makeChannel(t, env, key, "Down", map[string]any{"clientId": "c", "clientSecret": "unavailable"})

	status, page, _ := b.post("/dashboard/channels/"+good, "/dashboard/channels/"+good+"/validate", nil)
	got := text(page)
	if status != http.StatusOK || !strings.Contains(got, "Valid: the carrier accepted the channel's settings, and the channel is active.") ||
		!strings.Contains(got, "Valid: the carrier accepted these settings") || !strings.Contains(got, "Status active") {
		t.Errorf("validating a good channel: %d\n%s", status, got)
	}
	if ch := channelOf(t, env, key, good); ch["status"] != "active" || ch["validated_at"] == nil {
		t.Errorf("after validation the API has %v", ch)
	}

	status, page, _ = b.post("/dashboard/channels/"+bad, "/dashboard/channels/"+bad+"/validate", nil)
	got = text(page)
	for _, want := range []string{
		"The carrier rejected the channel's settings: the carrier rejected the client credentials (invalid_client)",
		"settings.clientSecret: the carrier rejected the client credentials (invalid_client)",
		"Rejected by the carrier: clientSecret: the carrier rejected the client credentials (invalid_client)",
		"Status error",
	} {
		if status != http.StatusUnprocessableEntity || !strings.Contains(got, want) {
			t.Errorf("validating a channel the carrier rejects: %d, want 422 saying %q\n%s", status, want, got)
		}
	}
	if strings.Contains(got, "Valid:") {
		t.Errorf("a rejected channel is shown as valid:\n%s", got)
	}
	if ch := channelOf(t, env, key, bad); ch["status"] != "error" || ch["validation_error"] == nil {
		t.Errorf("after the rejection the API has %v", ch)
	}

	before := channelOf(t, env, key, down)
	status, page, _ = b.post("/dashboard/channels/"+down, "/dashboard/channels/"+down+"/validate", nil)
	got = text(page)
	if status != http.StatusServiceUnavailable || !strings.Contains(got, "could not be reached; the channel was not changed") || !strings.Contains(got, "Not validated yet") {
		t.Errorf("validating with an unreachable carrier: %d\n%s", status, got)
	}
	if after := channelOf(t, env, key, down); after["status"] != "draft" || after["updated_at"] != before["updated_at"] {
		t.Errorf("an unreachable carrier changed the channel: %v", after)
	}
}

func TestChannelPagesRefuseOtherAccountsAndForgedForms(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key, theirKey := env.NewKey("acme"), env.NewKey("globex")
	theirs := makeChannel(t, env, theirKey, "Globex main", map[string]any{"clientId": "globex-client", "clientSecret": "s"})
	mine := makeChannel(t, env, key, "Mine", map[string]any{"clientId": "c", "clientSecret": "s"})
	theirsBefore, mineBefore := channelOf(t, env, theirKey, theirs), channelOf(t, env, key, mine)
	b := signIn(t, env, "acme", "jana@example.com")
	const refused = "Your account has no shipping channel with that id; nothing was changed."

	for _, id := range []string{theirs, "ch_01JD0000000000000000000000", "nope", "bad%20id", "ch_%2e%2e"} {
		status, page, _ := b.do(http.MethodGet, "/dashboard/channels/"+id, nil)
		if got := text(page); status != http.StatusForbidden || !strings.Contains(got, refused) || strings.Contains(got, "Globex main") || strings.Contains(got, "globex-client") {
			t.Errorf("GET channel %s: %d\n%s", id, status, got)
		}
		status, page, _ = b.post("/dashboard/channels", "/dashboard/channels/"+id+"/validate", nil)
		if got := text(page); status != http.StatusForbidden || !strings.Contains(got, refused) {
			t.Errorf("validate channel %s: %d\n%s", id, status, got)
		}
	}

	// Forms without the session's token change nothing.
	for _, token := range []string{"forged", ""} {
		form := url.Values{"csrf_token": {token}}
		if status, page, _ := b.do(http.MethodPost, "/dashboard/channels/"+mine+"/validate", form); status != http.StatusForbidden || !strings.Contains(text(page), "nothing was changed") {
			t.Errorf("validate with form token %q: %d\n%s", token, status, text(page))
		}
		form = sandboxForm("Forged", "s")
		form.Set("csrf_token", token)
		if status, page, _ := b.do(http.MethodPost, "/dashboard/channels", form); status != http.StatusForbidden || !strings.Contains(text(page), "nothing was changed") {
			t.Errorf("create with form token %q: %d\n%s", token, status, text(page))
		}
	}
	// Another account's token is no better.
	other := signIn(t, env, "globex", "max@example.com")
	_, page, _ := other.do(http.MethodGet, "/dashboard/channels", nil)
	if status, _, _ := b.do(http.MethodPost, "/dashboard/channels/"+mine+"/validate", url.Values{"csrf_token": {csrf(t, page)}}); status != http.StatusForbidden {
		t.Errorf("validate with another session's form token: %d", status)
	}

	for _, c := range []struct {
		key, id string
		before  map[string]any
	}{{theirKey, theirs, theirsBefore}, {key, mine, mineBefore}} {
		after := channelOf(t, env, c.key, c.id)
		if after["status"] != "draft" || after["validated_at"] != nil || after["updated_at"] != c.before["updated_at"] {
			t.Errorf("channel %s changed: %v", c.id, after)
		}
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM channels.channels`); err != nil || n != 2 {
		t.Errorf("%d channels (%v), want the two made by the API", n, err)
	}
	if err := env.DB.Get(&n, `SELECT count(*) FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.validated') e`); err != nil || n != 0 {
		t.Errorf("%d validated events (%v), want none", n, err)
	}
}

// FuzzChannelForm posts any body, after the session's form token, to the
// create form: never a 5xx, always the HTML page or the redirect to the new
// channel.
func FuzzChannelForm(f *testing.F) {
	env := apptest.Start(f, shipd.InitializeApp, apptest.Quiet())
	env.NewKey("acme") // the account's rate limit: the API's, shared by the dashboard
	client, token := signedInClient(f, env, "acme", "jana@example.com")
	for _, seed := range []string{
		"provider=sandbox&name=Shop&settings.clientId=c&settings.clientSecret=s",
		"provider=sandbox&name=Shop&settings.clientId=c&settings.clientSecret=s&settings.sandboxMode=false&settings.productType=EXPRESS",
		"", "provider=pigeon&name=x", "provider=&name=", "provider=sandbox&name=%00&settings.clientId=%00&settings.clientSecret=%00",
		"provider=sandbox&name=x&settings.sandboxMode=maybe&settings.productType=FLIGHT&settings.defaultLabelFormat=png",
		"provider=sandbox&name=%ff%fe&settings.clientId=%ff&settings.clientSecret=%c3%28",
		"provider=ppl&name=" + strings.Repeat("n", 300) + "&description=" + strings.Repeat("d", 3000),
		"provider=sandbox&name=a&settings.colour=red&settings.=x&settings..=y",
		// Form fields the API does not know are not sent on to it.
		"provider=sandbox&name=Shop&descripton=x&bogus=1&settings.clientId=c&settings.clientSecret=s&settings.clientSecrte=t",
		"%zz=1&provider", "provider=sandbox&provider=ppl&name=a&name=b",
		"provider=inpost&name=i&settings.apiToken=t&settings.organizationId=o&settings.targetPoint=%00",
		"provider=dhl_parcel_de&name=d&settings.sandboxMode=1&settings.billingNumber=%e2%80%a2",
		"provider=gls&name=g&settings.clientSecret=" + url.QueryEscape(masked),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		res, err := client.Post(env.URL()+"/dashboard/channels", "application/x-www-form-urlencoded",
			strings.NewReader("csrf_token="+url.QueryEscape(token)+"&"+body))
		if err != nil {
			t.Fatal(err)
		}
		page := readAll(res)
		if res.StatusCode >= 500 {
			t.Fatalf("%q: %d\n%s", body, res.StatusCode, text(page))
		}
		if res.StatusCode == http.StatusSeeOther {
			if !createdChannel.MatchString(res.Header.Get("Location")) {
				t.Errorf("%q: redirected to %q", body, res.Header.Get("Location"))
			}
			return
		}
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%q: %d %s, want the HTML page", body, res.StatusCode, res.Header.Get("Content-Type"))
		}
		if res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("%q: %d, want 303 or 422\n%s", body, res.StatusCode, text(page))
		}
	})
}

// signedInClient signs a new user of account in and returns its client (no
// redirects followed) and the session's form token, for tests that are not a
// *testing.T.
func signedInClient(tb testing.TB, env *apptest.Env, account, email string) (*http.Client, string) {
	tb.Helper()
	const password = "long enough password"
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: account, Email: email, Password: password}); err != nil {
		tb.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tokenOf := func(path string) string {
		res, err := client.Get(env.URL() + path)
		if err != nil {
			tb.Fatal(err)
		}
		m := csrfField.FindStringSubmatch(readAll(res))
		if m == nil {
			tb.Fatalf("no form token on %s", path)
		}
		return m[1]
	}
	res, err := client.PostForm(env.URL()+"/dashboard/sign-in", url.Values{"csrf_token": {tokenOf("/dashboard/sign-in")}, "email": {email}, "password": {password}})
	if err != nil {
		tb.Fatal(err)
	}
	readAll(res)
	if res.StatusCode != http.StatusSeeOther {
		tb.Fatalf("signing in %s: %d", email, res.StatusCode)
	}
	return client, tokenOf("/dashboard/channels")
}
