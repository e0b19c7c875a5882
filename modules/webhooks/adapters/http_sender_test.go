package adapters_test

import (
	"context"
	"fmt"
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
