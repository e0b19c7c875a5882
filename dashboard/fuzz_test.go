package dashboard_test

import (
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/clock"
)

// FuzzSignInForm posts any body to the sign-in form, with and without the
// form's own token: never a 5xx, always the HTML page.
func FuzzSignInForm(f *testing.F) {
	env := apptest.Start(f, shipd.InitializeApp, apptest.Quiet(),
		apptest.WithClock(clock.NewManual(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))))
	for _, seed := range []string{
		"email=jana%40example.com&password=long+enough+password", "email=&password=", "", "email=%00&password=%00",
		"email=%ff%fe&password=x", "email=a%40b.c&password=" + strings.Repeat("p", 5000), "%zz=1&email", "email=a&email=b",
		"csrf_token=forged&email=jana%40example.com&password=x",
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, body string, withToken bool) {
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		if withToken {
			res, err := client.Get(env.URL() + "/dashboard/sign-in")
			if err != nil {
				t.Fatal(err)
			}
			page := readAll(res)
			if m := csrfField.FindStringSubmatch(page); m != nil {
				body = "csrf_token=" + m[1] + "&" + body
			}
		}
		res, err := client.Post(env.URL()+"/dashboard/sign-in", "application/x-www-form-urlencoded", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		readAll(res)
		if res.StatusCode >= 500 {
			t.Fatalf("%q: %d", body, res.StatusCode)
		}
		if res.StatusCode != http.StatusSeeOther && !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%q: %d %s, want the HTML page", body, res.StatusCode, res.Header.Get("Content-Type"))
		}
	})
}

func readAll(res *http.Response) string {
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
