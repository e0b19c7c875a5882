// Package deliverytest holds what the webhooks module's tests ask of a
// delivery URL the module accepted, written apart from the rule that
// accepts it so that a test of the rule does not grade itself.
package deliverytest

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
)

// CheckURL fails t unless raw is a URL the sender can call and that shows
// no credentials: http or https, a host, no user, at most 2048 bytes, and
// no white space or control character in it or its host.
func CheckURL(t testing.TB, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || len(raw) > 2048 {
		t.Fatalf("accepted the URL %q (%v)", raw, err)
	}
	for _, part := range []string{raw, u.Hostname()} {
		if i := strings.IndexFunc(part, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
			t.Fatalf("accepted the URL %q, with a space or control character in %q", raw, part)
		}
	}
}
