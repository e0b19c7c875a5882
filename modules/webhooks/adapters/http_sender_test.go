package adapters_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/domain"
	"shipd/platform/config"
	"shipd/platform/metrics"
	"shipd/platform/txguard/txguardtest"
)

// A webhook POST is refused while a database transaction is open in its
// context (ADR 0001), and goes out before it began and after it finished.
func TestSenderRefusesToPostInsideATransaction(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	sender := adapters.NewHTTPSender(config.Config{WebhookTimeout: 5 * time.Second, WebhookAllowPrivateNetworks: true},
		metrics.NewWebhookAttempts(prometheus.NewRegistry()))
	req := domain.Request{URL: srv.URL + "/hook", Body: []byte(`{}`)}
	txguardtest.RefusedOnlyInside(t, "the POST", func(ctx context.Context) error {
		if res := sender.Send(ctx, req); res.Status != http.StatusOK {
			return fmt.Errorf("answered %+v", res)
		}
		return nil
	})
	if n := hits.Load(); n != 2 {
		t.Errorf("the receiver was called %d times, want 2", n)
	}
}

// What a refused or failed delivery logs for the tenant names no address:
// a loopback destination reads as not allowed, without the address its name
// resolved to (issue 31: the delivery log was a network oracle).
func TestAFailureSaysWhatHappenedNotWhatIsInside(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	sender := adapters.NewHTTPSender(config.Config{WebhookTimeout: 5 * time.Second}, metrics.NewWebhookAttempts(prometheus.NewRegistry()))
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	for _, url := range []string{srv.URL + "/h", "http://localhost:" + port + "/h"} {
		res := sender.Send(t.Context(), domain.Request{URL: url, Body: []byte(`{}`)})
		if !strings.HasPrefix(res.Failure, "the destination is not allowed") || strings.Contains(res.Failure, "127.0.0.1") || strings.Contains(res.Failure, "::1") {
			t.Errorf("%s: %q", url, res.Failure)
		}
	}
	// A name the resolver answers for in its own way (here: not at all,
	// or loopback): one of the two sentences, never the resolver's address.
	res := sender.Send(t.Context(), domain.Request{URL: "http://localhost.:" + port + "/h", Body: []byte(`{}`)})
	if (!strings.HasPrefix(res.Failure, "the destination is not allowed") && res.Failure != "the host name could not be resolved") ||
		strings.Contains(res.Failure, ":53") || strings.Contains(res.Failure, "127.0.0.1") {
		t.Errorf("localhost.: %q", res.Failure)
	}
}
