package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
)

// Behind a proxy (ADR 0045): X-Forwarded-Proto and X-Forwarded-For count
// only from TRUSTED_PROXIES, an https PUBLIC_BASE_URL makes cookies Secure
// always, and a Host the client wrote never reaches a link.
func TestBehindTrustedProxies(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []string{"127.0.0.1"} // the test's own connections come from here
	}))
	key := env.NewKey("proxied")
	const email, password = "proxied@example.com", "long enough password"
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: "proxied", Email: email, Password: password}); err != nil {
		t.Fatal(err)
	}
	// What a TLS-terminating proxy forwards, with a Host and an
	// X-Forwarded-For entry the client wrote itself (198.51.100.7).
	forwarded := map[string]string{"Host": "evil.example", "X-Forwarded-Proto": "https",
		"X-Forwarded-For": "198.51.100.7, 203.0.113.9"}
	trusting := env.First()

	env.Config.TrustedProxies = []string{"10.0.0.0/8", "::1"} // loopback's IPv4 is not among them
	untrusting := env.StartInstance()

	env.Config.TrustedProxies = nil
	env.Config.PublicBaseURL = "https://ship.example.com"
	public := env.StartInstance()

	for _, tt := range []struct {
		name    string
		in      *apptest.Instance
		headers map[string]string
		secure  bool
		base    string // of every link
		client  string // in the access log
	}{
		{"trusted proxy", trusting, forwarded, true, "https://" + hostOf(t, trusting.URL), "203.0.113.9"},
		{"untrusted peer, same headers", untrusting, forwarded, false, "http://" + hostOf(t, untrusting.URL), "127.0.0.1"},
		{"https PUBLIC_BASE_URL over plain HTTP", public, map[string]string{"Host": "evil.example"}, true, "https://ship.example.com", "127.0.0.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Links: a list's, a new resource's Location, the home page's.
			list := tt.in.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels?per_page=1", Key: key, Headers: tt.headers})
			created := tt.in.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key, Headers: tt.headers,
				Body: map[string]any{"name": "Proxied " + tt.name, "provider": "sandbox", "settings": map[string]any{"clientId": "c", "clientSecret": "s"}}})
			home := tt.in.Do(apptest.Request{Method: http.MethodGet, Path: "/", Headers: tt.headers})
			if list.Status != http.StatusOK || created.Status != http.StatusCreated || home.Status != http.StatusOK {
				t.Fatalf("list %d, create %d, home %d", list.Status, created.Status, home.Status)
			}
			links := list.JSON(t)["links"].(map[string]any)
			for name, l := range map[string]any{"links.first": links["first"], "meta.path": list.JSON(t)["meta"].(map[string]any)["path"],
				"Location": created.Header.Get("Location"), "home's docs": home.JSON(t)["links"].(map[string]any)["docs"]} {
				if s, _ := l.(string); !strings.HasPrefix(s, tt.base+"/") {
					t.Errorf("%s = %v, want under %s", name, l, tt.base)
				}
			}
			for what, raw := range map[string]string{"list": string(list.Body), "create": string(created.Body) + created.Header.Get("Location"), "home": string(home.Body)} {
				if strings.Contains(raw, "evil.example") {
					t.Errorf("the %s answer names the Host the client wrote: %s", what, raw)
				}
			}

			// The dashboard's cookies, from the sign-in form to the session.
			cookies := signInThrough(t, tt.in.URL, tt.headers, email, password)
			if _, ok := cookies["shipd_session"]; !ok {
				t.Fatalf("no session cookie among %v", cookies)
			}
			for name, c := range cookies {
				if c.Secure != tt.secure || !c.HttpOnly {
					t.Errorf("cookie %s: Secure %v HttpOnly %v, want Secure %v and HttpOnly", name, c.Secure, c.HttpOnly, tt.secure)
				}
			}

			// The client address the access log names.
			if got := loggedClients(t, tt.in.Logs.String(), "/dashboard/sign-in"); len(got) == 0 || !allEqual(got, tt.client) {
				t.Errorf("access log clients of the sign-in %v, want only %s", got, tt.client)
			}
		})
	}
}

// signInThrough signs email in on the dashboard at base, every request
// with headers, and returns every cookie the answers set by name.
func signInThrough(t *testing.T, base string, headers map[string]string, email, password string) map[string]*http.Cookie {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cookies := map[string]*http.Cookie{}
	send := func(method string, form url.Values) string {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, base+"/dashboard/sign-in", body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range headers {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		// Sent by hand: a cookie jar keeps Secure cookies off plain HTTP,
		// and behind the proxy this hop is plain HTTP.
		for _, c := range cookies {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		page, _ := io.ReadAll(res.Body)
		for _, c := range res.Cookies() {
			cookies[c.Name] = c
		}
		if method == http.MethodPost && res.StatusCode != http.StatusSeeOther {
			t.Fatalf("signing in: %d\n%s", res.StatusCode, page)
		}
		return string(page)
	}
	page := send(http.MethodGet, nil)
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form token on the sign-in page:\n%s", page)
	}
	send(http.MethodPost, url.Values{"csrf_token": {m[1]}, "email": {email}, "password": {password}})
	return cookies
}

// loggedClients is the client of every access log line for route.
func loggedClients(t *testing.T, logs, route string) []string {
	t.Helper()
	var out []string
	for line := range strings.Lines(logs) {
		var l struct{ Msg, Route, Client string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "http request" && l.Route == route {
			out = append(out, l.Client)
		}
	}
	return out
}

func allEqual(list []string, want string) bool {
	for _, s := range list {
		if s != want {
			return false
		}
	}
	return true
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
