package dashboard_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
)

// browser is an HTTP client with cookies that does not follow redirects, so
// the test sees each answer.
type browser struct {
	t    *testing.T
	base string
	http *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, path string, form url.Values) (int, string, *http.Response) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.http.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(page), res
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form token on the page:\n%s", page)
	}
	return m[1]
}

// signIn makes a user of account and returns a browser signed in as it.
func signIn(t *testing.T, env *apptest.Env, account, email string) *browser {
	t.Helper()
	const password = "long enough password"
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: account, Email: email, Password: password}); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, env.URL())
	_, page, _ := b.do(http.MethodGet, "/dashboard/sign-in", nil)
	status, _, _ := b.do(http.MethodPost, "/dashboard/sign-in", url.Values{"csrf_token": {csrf(t, page)}, "email": {email}, "password": {password}})
	if status != http.StatusSeeOther {
		t.Fatalf("signing in %s: %d", email, status)
	}
	return b
}

// post sends a form from the page at path, with that page's form token,
// and returns the answer.
func (b *browser) post(from, path string, form url.Values) (int, string, *http.Response) {
	b.t.Helper()
	_, page, _ := b.do(http.MethodGet, from, nil)
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf_token", csrf(b.t, page))
	return b.do(http.MethodPost, path, form)
}

// createShownOnce sends the create form of the page at path and returns
// the page of its 201 answer and the secret that page shows this once (a new
// API key, a generated webhook secret), shown's first group; what names it
// in a failure.
func (b *browser) createShownOnce(path string, form url.Values, shown *regexp.Regexp, what string) (page, secret string) {
	b.t.Helper()
	status, page, _ := b.post(path, path, form)
	if status != http.StatusCreated {
		b.t.Fatalf("create: %d\n%s", status, text(page))
	}
	m := shown.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("the %s is not on the page:\n%s", what, text(page))
	}
	return page, m[1]
}

// text is a page without its markup, spaces collapsed, for asserting what a
// user reads.
func text(page string) string {
	page = styles.ReplaceAllString(page, " ")
	return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(page, " "))), " ")
}

var (
	styles = regexp.MustCompile(`(?s)<style>.*?</style>`)
	tags   = regexp.MustCompile(`<[^>]*>`)
)
