package adapters

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Each kind of failure is one stable sentence naming no address, resolver
// or host; the resolver's own address in a DNS error stays out of it.
func TestFailuresAreStableSentences(t *testing.T) {
	s := &HTTPSender{timeout: 2 * time.Second}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "vm", Server: "10.1.2.3:53", IsNotFound: true}, "the host name could not be resolved"},
		{&url.Error{Op: "Post", URL: "http://vm:18499/h", Err: &net.DNSError{Err: "server misbehaving", Name: "localhost.", Server: "10.9.8.7:53"}}, "the host name could not be resolved"},
		{context.DeadlineExceeded, "the receiver did not answer within 2s"},
		{&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP("10.0.0.5"), Port: 80}, Err: errors.New("no route to host")}, "the receiver could not be reached"},
		{errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), "the TLS connection to the receiver failed"},
	} {
		got := s.failure(context.Background(), tc.err)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.err, got, tc.want)
		}
		for _, inside := range []string{"10.1.2.3", "10.9.8.7", "10.0.0.5", "vm", "localhost"} {
			if strings.Contains(got, inside) {
				t.Errorf("%v: %q names %q", tc.err, got, inside)
			}
		}
	}
}
