package adapters

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
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
		return domain.Response{Failure: "the URL cannot be requested: " + err.Error()}
	}
	values := make([]string, len(r.Headers)) // one allocation for every header's value
	for i, h := range r.Headers {
		values[i] = h.Value
		req.Header[h.Name] = values[i : i+1 : i+1] // names are canonical (domain.Header)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return domain.Response{Duration: time.Since(start), Failure: s.failure(err)}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, MaxResponseBody)) // a body cut short still has its status
	return domain.Response{Status: res.StatusCode, Body: string(body), Duration: time.Since(start)}
}

// failure says in a sentence why nothing usable came back.
func (s *HTTPSender) failure(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is in the log already
	}
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort), errors.Is(err, ssrf.ErrProhibitedNetwork):
		return "refused: the URL leads to a loopback, private, link-local or other non-public address (" + err.Error() +
			"); the operator can allow it with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true"
	case isTimeout(err):
		return "the receiver did not answer within " + s.timeout.String()
	default:
		return "no answer from the receiver: " + err.Error()
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
