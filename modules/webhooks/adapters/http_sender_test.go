package adapters_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/domain"
	"shipd/platform/config"
	"shipd/platform/metrics"
	"shipd/platform/txguard"
)

// A webhook POST is refused while a database transaction is open in its
// context (ADR 0001), and goes out before it began and after it finished.
func TestSenderRefusesToPostInsideATransaction(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	sender := adapters.NewHTTPSender(config.Config{WebhookTimeout: 5 * time.Second, WebhookAllowPrivateNetworks: true},
		metrics.NewWebhookAttempts(prometheus.NewRegistry()))
	var open atomic.Bool
	ctx := txguard.Hold(t.Context(), "the test's transaction", open.Load)
	req := domain.Request{URL: srv.URL + "/hook", Body: []byte(`{}`)}

	if res := sender.Send(ctx, req); res.Status != http.StatusOK {
		t.Fatalf("before the transaction began: %+v", res)
	}
	open.Store(true)
	if err := txguard.Refusal(func() { sender.Send(ctx, req) }); !errors.Is(err, txguard.ErrInTransaction) {
		t.Errorf("inside: %v, want a refusal", err)
	}
	open.Store(false)
	if res := sender.Send(ctx, req); res.Status != http.StatusOK {
		t.Fatalf("after it finished: %+v", res)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("the receiver was called %d times, want 2", n)
	}
}
