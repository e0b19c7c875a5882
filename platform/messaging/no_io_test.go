package messaging_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/txguard"
)

// Event and command handlers run inside the subscriber's transaction, so an
// outbound call from one is refused (ADR 0001), on either backbone.
func TestHandlersCannotCallOut(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
		t.Cleanup(srv.Close)
		client := &http.Client{Transport: txguard.Transport(nil)}
		refusals := make(chan error, 4)
		callOut := func(ctx context.Context) error {
			refusals <- txguard.Refusal(func() {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
				if err != nil {
					panic(err)
				}
				if res, err := client.Do(req); err == nil {
					res.Body.Close()
				}
			})
			return nil
		}
		if err := onEvent(e.bus, "test.caller", func(ctx context.Context, _ *testEvent) error { return callOut(ctx) }); err != nil {
			t.Fatal(err)
		}
		if err := messaging.OnCommand(e.bus, "test.commanded_caller", func(ctx context.Context, _ *testCommand) error { return callOut(ctx) }); err != nil {
			t.Fatal(err)
		}
		e.start()
		e.publish(testEvent{N: 1})
		ctx := t.Context()
		if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error { return e.outbox.Send(ctx, tx, testCommand{N: 2}) }); err != nil {
			t.Fatal(err)
		}
		for _, handler := range []string{"first", "second"} {
			select {
			case err := <-refusals:
				if !errors.Is(err, txguard.ErrInTransaction) {
					t.Errorf("the %s handler's call: %v, want it refused", handler, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the %s handler did not run", handler)
			}
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the receiver was called %d times from inside a handler", n)
		}
	})
}
