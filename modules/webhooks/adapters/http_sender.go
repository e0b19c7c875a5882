package adapters

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/config"
	"shipd/platform/metrics"
	"shipd/platform/txguard"
)

// MaxResponseBody is how much of a receiver's answer a log keeps.
const MaxResponseBody = 64 << 10

// HTTPSender makes the signed POSTs: one timeout for the whole attempt,
// redirects not followed (a 3xx is the answer), no proxy from the
// environment, and, unless the operator allows private networks, a dialer
// that refuses loopback, private, link-local and other non-public addresses
// at connect time, after DNS, so a name that resolves somewhere else later
// cannot slip through. A POST inside an open database transaction is refused
// (txguard, ADR 0001).
type HTTPSender struct {
	client   *http.Client
	timeout  time.Duration
	attempts *metrics.WebhookAttempts
}

// NewHTTPSender returns the sender the configuration asks for; every
// attempt is counted and timed in attempts.
func NewHTTPSender(cfg config.Config, attempts *metrics.WebhookAttempts) *HTTPSender {
	dialer := &net.Dialer{Timeout: cfg.WebhookTimeout, KeepAlive: 30 * time.Second}
	if !cfg.WebhookAllowPrivateNetworks {
		dialer.Control = ssrf.New(ssrf.WithAnyPort()).Safe
	}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.WebhookTimeout,
		ResponseHeaderTimeout: cfg.WebhookTimeout,
	}
	return &HTTPSender{timeout: cfg.WebhookTimeout, attempts: attempts, client: &http.Client{
		Transport:     txguard.Transport(transport),
		Timeout:       cfg.WebhookTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

var _ command.Sender = (*HTTPSender)(nil)

// Send POSTs r and reports what came back; every failure is a Response.
func (s *HTTPSender) Send(ctx context.Context, r domain.Request) domain.Response {
	res := s.send(ctx, r)
	s.attempts.Observe(res.Status, res.Duration)
	return res
}

func (s *HTTPSender) send(ctx context.Context, r domain.Request) domain.Response {
	start := time.Now()
	if err := txguard.Check(ctx, "webhook POST"); err != nil {
		return domain.Response{Failure: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return domain.Response{Failure: "the URL cannot be requested"}
	}
	values := make([]string, len(r.Headers)) // one allocation for every header's value
	for i, h := range r.Headers {
		values[i] = h.Value
		req.Header[h.Name] = values[i : i+1 : i+1] // names are canonical (domain.Header)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return domain.Response{Duration: time.Since(start), Failure: s.failure(ctx, err)}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, MaxResponseBody)) // a body cut short still has its status
	return domain.Response{Status: res.StatusCode, Body: string(body), Duration: time.Since(start)}
}

// failure says in a stable sentence why nothing usable came back. The log
// it goes into is the tenant's, so it names no address a name resolved
// to, no resolver, no internal host (issue 31: the log was a DNS and
// network oracle); the full error goes to shipd's own log, for the
// operator.
func (s *HTTPSender) failure(ctx context.Context, err error) string {
	slog.InfoContext(ctx, "webhook attempt failed", "err", err)
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var opErr *net.OpError
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort), errors.Is(err, ssrf.ErrProhibitedNetwork):
		return "the destination is not allowed: the URL leads to a private, loopback or other non-public address " +
			"(the operator can allow such addresses with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)"
	case errors.As(err, &dnsErr):
		return "the host name could not be resolved"
	case isTimeout(err):
		return "the receiver did not answer within " + s.timeout.String()
	case errors.As(err, &certErr), errors.As(err, &recordErr), isTLS(err):
		return "the TLS connection to the receiver failed (certificate or handshake)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the receiver refused the connection"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the receiver closed the connection before answering"
	case errors.As(err, &opErr):
		return "the receiver could not be reached"
	default:
		return "no answer from the receiver"
	}
}

// isTLS reports a handshake failure that crypto/tls reports as text only.
func isTLS(err error) bool {
	return strings.Contains(err.Error(), "tls: ")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
