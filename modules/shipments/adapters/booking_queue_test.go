package adapters_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"shipd"
	"shipd/modules/shipments/adapters"
	"shipd/platform/apptest"
	"shipd/platform/clock"
	"shipd/platform/config"
)

// Release undoes a claim never acted on, and Retry reschedules one, unless
// another instance has claimed the shipment since (its lease ran out): that
// claim is left alone.
func TestReleaseGivesBackOnlyItsOwnClaim(t *testing.T) {
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.BookingConcurrency = 0 }))
	pendingShipment(t, env)
	ctx := context.Background()
	queue := adapters.NewBookingQueue(env.ModuleDB("shipments"), clock.Real{})
	state := func() (attempts int, leased bool) {
		var row struct {
			Attempts int  `db:"attempts"`
			Leased   bool `db:"leased"`
		}
		if err := env.ModuleDB("shipments").Get(&row, `SELECT attempts, lease_until IS NOT NULL AS leased FROM shipments.shipments`); err != nil {
			t.Fatal(err)
		}
		return row.Attempts, row.Leased
	}

	first, err := queue.Claim(ctx, 10, time.Minute)
	if err != nil || len(first) != 1 {
		t.Fatalf("claim: %v %v", first, err)
	}
	if err := queue.Release(ctx, first); err != nil {
		t.Fatal(err)
	}
	if attempts, leased := state(); attempts != 0 || leased {
		t.Errorf("after release: attempts %d, leased %v; want 0, not leased", attempts, leased)
	}

	stale, _ := queue.Claim(ctx, 10, time.Minute)
	if _, err := env.ModuleDB("shipments").Exec(`UPDATE shipments.shipments SET lease_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	current, _ := queue.Claim(ctx, 10, time.Minute) // another instance, after the lease ran out
	if len(stale) != 1 || len(current) != 1 {
		t.Fatalf("claims %v %v", stale, current)
	}
	if err := queue.Release(ctx, stale); err != nil {
		t.Fatal(err)
	}
	if attempts, leased := state(); attempts != 2 || !leased {
		t.Errorf("a stale release changed the current claim: attempts %d, leased %v; want 2, leased", attempts, leased)
	}
	if err := queue.Retry(ctx, stale[0], time.Second); err != nil {
		t.Fatal(err)
	}
	if attempts, leased := state(); attempts != 2 || !leased {
		t.Errorf("a stale retry freed the current claim: attempts %d, leased %v; want 2, leased", attempts, leased)
	}
	if err := queue.Retry(ctx, current[0], time.Second); err != nil {
		t.Fatal(err)
	}
	if _, leased := state(); leased {
		t.Error("the current claim's retry kept its lease")
	}
	if n, err := queue.Due(ctx); err != nil || n != 0 {
		t.Errorf("due: %d %v, want 0 (the retry is a second away)", n, err)
	}
}

// pendingShipment creates a shipment through the API of env, whose booking
// worker is off, so it stays pending and due; it returns its id.
func pendingShipment(t *testing.T, env *apptest.Env) string {
	t.Helper()
	key := env.NewKey("acme")
	channel := env.ActiveSandboxChannel(key, "Main", nil)
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: map[string]any{
		"shipping_channel_id": channel,
		"sender_contact":      map[string]any{"company_name": "Acme", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"recipient_contact":   map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"},
		"origin_address":      map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"destination_address": map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"},
		"parcels":             []map[string]any{{"weight_amount": 1.5, "length_dimension": 30, "width_dimension": 20, "height_dimension": 10}},
	}})
	if res.Status != http.StatusCreated {
		t.Fatalf("create shipment: %d %s", res.Status, res.Body)
	}
	return res.Data(t)["id"].(string)
}
