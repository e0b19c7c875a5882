package httpapi

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Origin is what shipd believes of where a request came from and how it
// reached it (ADR 0045): worked out once, by WithOrigin, for every layer
// that needs it (cookie flags, links, throttling, the access log).
type Origin struct {
	// Client is the client's IP address: the peer's, or behind trusted
	// proxies the right-most X-Forwarded-For address that is not one.
	Client string
	// HTTPS says the client spoke TLS: to shipd itself, or to a trusted
	// proxy that said so in X-Forwarded-Proto.
	HTTPS bool
	// SecureCookies says cookies must be Secure: HTTPS, or an https
	// PUBLIC_BASE_URL (the public face is HTTPS whatever this hop was).
	SecureCookies bool
	// Base is the absolute base of links: PUBLIC_BASE_URL when set, else
	// the scheme and the address the connection came to (never the Host
	// header, which the client writes); "" when that address is unknown
	// (not a TCP connection), which makes links relative.
	Base string
}

type originKey struct{}

// WithOrigin works out each request's Origin. X-Forwarded-For and
// X-Forwarded-Proto count only from a peer in trusted (TRUSTED_PROXIES);
// from anyone else they are ignored.
func WithOrigin(trusted []netip.Prefix, publicBaseURL string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			o := originOf(r, trusted, publicBaseURL)
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), originKey{}, o)))
		})
	}
}

// RequestOrigin is the request's Origin; a request that did not pass
// WithOrigin (a handler tested on its own) gets one that trusts no proxy.
func RequestOrigin(r *http.Request) Origin {
	if o, ok := r.Context().Value(originKey{}).(Origin); ok {
		return o
	}
	return originOf(r, nil, "")
}

// ClientAddress is the request's client IP address (RequestOrigin).
func ClientAddress(r *http.Request) string { return RequestOrigin(r).Client }

// SecureCookies says whether cookies set in answer to r must be Secure.
func SecureCookies(r *http.Request) bool { return RequestOrigin(r).SecureCookies }

func originOf(r *http.Request, trusted []netip.Prefix, publicBaseURL string) Origin {
	peer, peerOK := peerAddr(r.RemoteAddr)
	o := Origin{Client: r.RemoteAddr, HTTPS: r.TLS != nil}
	if peerOK {
		o.Client = peer.String()
	}
	if peerOK && isTrusted(peer, trusted) {
		o.Client = forwardedClient(peer, r.Header.Values("X-Forwarded-For"), trusted).String()
		if proto := lastListed(r.Header.Values("X-Forwarded-Proto")); strings.EqualFold(proto, "https") {
			o.HTTPS = true
		}
	}
	o.SecureCookies = o.HTTPS || strings.HasPrefix(strings.ToLower(publicBaseURL), "https://")
	switch {
	case publicBaseURL != "":
		o.Base = strings.TrimSuffix(publicBaseURL, "/")
	default:
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
			scheme := "http"
			if o.HTTPS {
				scheme = "https"
			}
			o.Base = scheme + "://" + local.String()
		}
	}
	return o
}

// forwardedClient walks X-Forwarded-For from the peer leftwards while the
// hop it stands on is trusted: the first address not in trusted is the
// client; an entry that is not an address ends the walk at the hop that
// wrote it. Entries left of the client are the client's own claims.
func forwardedClient(peer netip.Addr, headers []string, trusted []netip.Prefix) netip.Addr {
	var hops []string
	for _, h := range headers {
		hops = append(hops, strings.Split(h, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0 && isTrusted(client, trusted); i-- {
		a, ok := hopAddr(strings.TrimSpace(hops[i]))
		if !ok {
			break
		}
		client = a
	}
	return client
}

// hopAddr reads one X-Forwarded-For entry: an address, with or without a
// port (IPv6 then in brackets).
func hopAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// peerAddr is the IP address of a RemoteAddr (host:port).
func peerAddr(remote string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// lastListed is the right-most value of a comma-separated header: the one
// the nearest hop wrote.
func lastListed(values []string) string {
	if len(values) == 0 {
		return ""
	}
	parts := strings.Split(values[len(values)-1], ",")
	return strings.TrimSpace(parts[len(parts)-1])
}
