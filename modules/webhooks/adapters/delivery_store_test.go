package adapters_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"shipd"
	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/apptest"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/server"
	"shipd/platform/usecase/usecasetest"
)

// answering is a Sender that gets the same status for every attempt,
// without a network: these tests are about what the store keeps.
type answering int

func (a answering) Send(context.Context, domain.Request) domain.Response {
	return domain.Response{Status: int(a), Duration: time.Millisecond}
}

// fannedOut starts shipd with no delivery worker, so only the test claims,
// fans out an event that one subscription takes, and returns a store on the
// database, on a clock that moves when told to, and the event.
func fannedOut(t *testing.T) (*apptest.Env, *adapters.DeliveryStore, *clock.Manual, command.OutboundEvent) {
	t.Helper()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.WebhookConcurrency = 0 }))
	key := env.NewKey("acme")
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key, Body: map[string]any{
		"name": "n", "url": "https://receiver.example.test/hook", "events": []string{"shipment.updated"}}})
	if res.Status != http.StatusCreated {
		t.Fatalf("create subscription: %d %s", res.Status, res.Body)
	}
	var account string
	if err := env.DB.Get(&account, `SELECT account_id FROM webhooks.subscriptions`); err != nil {
		t.Fatal(err)
	}
	box, err := server.SecretBox(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Now())
	event := command.OutboundEvent{ID: "evt_01JD0000000000000000000001", Type: "shipment.updated", AccountID: account,
		CreatedAt: clk.Now(), ResourceID: "sh_1", Body: []byte(`{"type":"shipment.updated"}`)}
	store := adapters.NewDeliveryStore(env.DB, box, clk)
	if n, err := store.FanOut(context.Background(), []command.OutboundEvent{event}, clk.Now()); err != nil || n != 1 {
		t.Fatalf("fan-out made %d deliveries (%v), want 1", n, err)
	}
	return env, store, clk, event
}

// attempt makes the claimed delivery's attempt, which gets status back.
func attempt(t *testing.T, store *adapters.DeliveryStore, clk clock.Clock, claimed command.DueDelivery, status int) {
	t.Helper()
	deliver := command.NewDeliverWebhookHandler(store, answering(status), clk, usecasetest.Observer())
	if err := deliver.Handle(context.Background(), command.DeliverWebhook{Delivery: claimed}); err != nil {
		t.Fatal(err)
	}
}

func claimOne(t *testing.T, store *adapters.DeliveryStore, lease time.Duration) command.DueDelivery {
	t.Helper()
	claimed, err := store.Claim(context.Background(), 10, lease)
	if err != nil {
		t.Fatal(err)
	}
	if len(claimed) != 1 {
		t.Fatalf("claimed %d deliveries, want 1", len(claimed))
	}
	return claimed[0]
}

func counts(t *testing.T, env *apptest.Env) (deliveries, logs, bodies int) {
	t.Helper()
	for q, n := range map[string]*int{
		`SELECT count(*) FROM webhooks.deliveries`:   &deliveries,
		`SELECT count(*) FROM webhooks.delivery_log`: &logs,
		`SELECT count(*) FROM webhooks.event_bodies`: &bodies,
	} {
		if err := env.DB.Get(n, q); err != nil {
			t.Fatal(err)
		}
	}
	return deliveries, logs, bodies
}

// A delivery that succeeded is deleted, its log and body kept; the same
// event fanned out again (a redelivered message) makes no new delivery.
func TestASucceededDeliveryIsDeletedAndItsEventNotFannedOutAgain(t *testing.T) {
	env, store, clk, event := fannedOut(t)
	attempt(t, store, clk, claimOne(t, store, time.Minute), http.StatusNoContent)
	if d, l, b := counts(t, env); d != 0 || l != 1 || b != 1 {
		t.Fatalf("after the success: %d deliveries, %d logs, %d bodies; want 0, 1, 1", d, l, b)
	}
	if n, err := store.FanOut(context.Background(), []command.OutboundEvent{event}, clk.Now()); err != nil || n != 0 {
		t.Fatalf("the event fanned out again made %d deliveries (%v), want none", n, err)
	}
	if d, _, _ := counts(t, env); d != 0 {
		t.Fatalf("%d deliveries after the repeat, want none", d)
	}
}

// A failed attempt keeps the delivery, scheduled for its retry.
func TestAFailedAttemptKeepsItsDeliveryForTheRetry(t *testing.T) {
	env, store, clk, _ := fannedOut(t)
	attempt(t, store, clk, claimOne(t, store, time.Minute), http.StatusServiceUnavailable)
	var row struct {
		Attempts int        `db:"attempts"`
		Next     *time.Time `db:"next_attempt_at"`
		Outcome  string     `db:"outcome"`
	}
	if err := env.DB.Get(&row, `SELECT attempts, next_attempt_at, outcome FROM webhooks.deliveries`); err != nil {
		t.Fatal(err)
	}
	if row.Attempts != 1 || row.Next == nil || row.Outcome != "pending" {
		t.Fatalf("after a failed attempt the delivery is %+v, want 1 attempt, pending with a retry", row)
	}
}

// Two claims of one delivery (the first one's lease ran out mid-attempt):
// the later records its success first and deletes the delivery; the earlier
// attempt, recorded after, is logged too, scheduling nothing.
func TestAnAttemptRecordedAfterItsDeliverySucceededIsStillLogged(t *testing.T) {
	env, store, clk, _ := fannedOut(t)
	first := claimOne(t, store, time.Minute)
	clk.Advance(time.Minute + time.Second) // the lease runs out
	second := claimOne(t, store, time.Minute)
	for _, c := range []command.DueDelivery{second, first} {
		attempt(t, store, clk, c, http.StatusNoContent)
	}
	if d, l, _ := counts(t, env); d != 0 || l != 2 {
		t.Fatalf("%d deliveries and %d logs, want none and both attempts logged", d, l)
	}
	var retries int
	if err := env.DB.Get(&retries, `SELECT count(*) FROM webhooks.delivery_log WHERE next_retry_at IS NOT NULL OR status <> 'success'`); err != nil {
		t.Fatal(err)
	}
	if retries != 0 {
		t.Fatalf("%d logs with a retry or a failure, want none", retries)
	}
}
