package httpapi

import (
	"net"
	"net/http"
)

// ClientAddr is the address of the client that sent r: what sign-in and
// API-key throttling count per (ADR 0046). It is the one place that says
// so; for now the connection's IP address (behind a proxy, the proxy's).
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
