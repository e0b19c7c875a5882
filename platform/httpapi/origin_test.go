package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"shipd/platform/httpapi"
)

// originThrough serves one request from peer with headers through
// WithOrigin and returns the Origin the handler saw.
func originThrough(t *testing.T, trusted []string, publicBaseURL, peer string, headers map[string][]string) httpapi.Origin {
	t.Helper()
	var prefixes []netip.Prefix
	for _, p := range trusted {
		prefixes = append(prefixes, netip.MustParsePrefix(p))
	}
	var got httpapi.Origin
	h := httpapi.WithOrigin(prefixes, publicBaseURL)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = httpapi.RequestOrigin(r)
	}))
	r := httptest.NewRequest(http.MethodGet, "http://evil.example/v1/x", nil)
	r.RemoteAddr = peer
	for k, vs := range headers {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	h.ServeHTTP(httptest.NewRecorder(), r)
	return got
}

func TestOriginForwardedHeaders(t *testing.T) {
	proxies := []string{"10.0.0.0/8", "192.168.1.7/32"}
	forwarded := map[string][]string{"X-Forwarded-For": {"203.0.113.9"}, "X-Forwarded-Proto": {"https"}}
	for _, tt := range []struct {
		name       string
		trusted    []string
		peer       string
		headers    map[string][]string
		client     string
		https      bool
		secureOnly bool // PUBLIC_BASE_URL https
	}{
		{"no proxies trusted: headers ignored", nil, "10.1.1.1:5000", forwarded, "10.1.1.1", false, false},
		{"untrusted peer: headers ignored", proxies, "198.51.100.4:5000", forwarded, "198.51.100.4", false, false},
		{"trusted peer: headers believed", proxies, "10.1.1.1:5000", forwarded, "203.0.113.9", true, false},
		{"trusted host entry", proxies, "192.168.1.7:5000", forwarded, "203.0.113.9", true, false},
		{"a client's own X-Forwarded-For entries are not believed", proxies, "10.1.1.1:5000",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4, 203.0.113.9"}}, "203.0.113.9", false, false},
		{"a chain of trusted proxies is walked", proxies, "10.1.1.1:5000",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4, 203.0.113.9", "192.168.1.7, 10.2.2.2"}}, "203.0.113.9", false, false},
		{"an entry that is not an address stops at the hop before", proxies, "10.1.1.1:5000",
			map[string][]string{"X-Forwarded-For": {"203.0.113.9, unknown, 10.2.2.2"}}, "10.2.2.2", false, false},
		{"an entry with a port", proxies, "10.1.1.1:5000",
			map[string][]string{"X-Forwarded-For": {"[2001:db8::1]:443"}}, "2001:db8::1", false, false},
		{"only proxies: the left-most", proxies, "10.1.1.1:5000",
			map[string][]string{"X-Forwarded-For": {"10.3.3.3, 10.2.2.2"}}, "10.3.3.3", false, false},
		{"the nearest hop's proto counts", proxies, "10.1.1.1:5000",
			map[string][]string{"X-Forwarded-Proto": {"https, http"}}, "10.1.1.1", false, false},
		{"proto in other letter case", proxies, "10.1.1.1:5000",
			map[string][]string{"X-Forwarded-Proto": {"HTTPS"}}, "10.1.1.1", true, false},
		{"IPv4-mapped peer", proxies, "[::ffff:10.1.1.1]:5000", forwarded, "203.0.113.9", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := originThrough(t, tt.trusted, "", tt.peer, tt.headers)
			if o.Client != tt.client || o.HTTPS != tt.https || o.SecureCookies != tt.https {
				t.Errorf("got client %q https %v secure cookies %v, want %q %v %v", o.Client, o.HTTPS, o.SecureCookies, tt.client, tt.https, tt.https)
			}
		})
	}
}

// An https PUBLIC_BASE_URL makes cookies Secure over plain HTTP too, and is
// the base of links whatever the request says.
func TestOriginPublicBaseURL(t *testing.T) {
	o := originThrough(t, nil, "https://ship.example.com", "198.51.100.4:5000", nil)
	if !o.SecureCookies || o.HTTPS || o.Base != "https://ship.example.com" {
		t.Errorf("got %+v, want Secure cookies, not HTTPS, base https://ship.example.com", o)
	}
	o = originThrough(t, nil, "http://localhost:8080", "127.0.0.1:5000", nil)
	if o.SecureCookies || o.Base != "http://localhost:8080" {
		t.Errorf("got %+v, want cookies not Secure under an http base", o)
	}
}
