package ports_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd"
	"shipd/migrations"
	"shipd/platform/apptest"
)

// createdDeliveries is a webhook receiver on loopback that keeps the
// shipment of every shipment.created delivery, by shipment id.
type createdDeliveries struct {
	mu  sync.Mutex
	got map[string]map[string]any
}

func receiveCreated(t *testing.T) (*createdDeliveries, string) {
	d := &createdDeliveries{got: map[string]map[string]any{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		apptest.CheckDelivery(t, r.Header, body)
		var delivery struct {
			Data struct {
				Shipment map[string]any `json:"shipment"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &delivery); err != nil {
			t.Errorf("delivery %s: %v", body, err)
		}
		d.mu.Lock()
		d.got[delivery.Data.Shipment["id"].(string)] = delivery.Data.Shipment
		d.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return d, srv.URL
}

func (d *createdDeliveries) await(t *testing.T, id string) map[string]any {
	t.Helper()
	var sh map[string]any
	apptest.Eventually(t, 10*time.Second, "shipment.created of "+id, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		sh = d.got[id]
		return sh != nil
	})
	return sh
}

// listed waits for the shipment's created summary in the list.
func listed(t *testing.T, env *apptest.Env, key, id string) map[string]any {
	t.Helper()
	var summary map[string]any
	apptest.Eventually(t, 10*time.Second, id+" created in the list", func() bool {
		for _, item := range env.Do(apptest.Request{Method: http.MethodGet, Path: shipmentsPath + "?per_page=100", Key: key}).JSON(t)["data"].([]any) {
			if s := item.(map[string]any); s["id"] == id && s["status"] == "created" {
				summary = s
				return true
			}
		}
		return false
	})
	return summary
}

// A carrier that names no price leaves total_price and currency null in
// the record, the list and the webhook payload; the sandbox, which prices,
// still shows its price everywhere.
func TestMissingPriceIsNullEverywhere(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	ch := activeChannel(t, env, key, "Sandbox", nil)
	deliveries, url := receiveCreated(t)
	sub := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key,
		Body: map[string]any{"name": "created", "url": url, "events": []string{"shipment.created"}}})
	if sub.Status != http.StatusCreated {
		t.Fatalf("subscribing: %d %s", sub.Status, sub.Body)
	}

	unpriced := create(t, env, key, with(shipmentBody(ch), "reference_number", "UNPRICED-1"))["id"].(string)
	priced := create(t, env, key, with(shipmentBody(ch), "reference_number", "PRICED-1"))["id"].(string)
	for _, id := range []string{unpriced, priced} {
		if sh := awaitCarrier(t, env, key, id); sh["status"] != "created" {
			t.Fatalf("%s not created: %v", id, sh)
		}
	}
	// 1 parcel of 1.5 kg (30×20×10 cm: 1.2 kg volumetric), STANDARD: 4.90 + 2 × 0.80.
	want := map[string][2]any{unpriced: {nil, nil}, priced: {6.5, "EUR"}}
	for id, w := range want {
		got := map[string]map[string]any{
			"GET":     env.Do(apptest.Request{Method: http.MethodGet, Path: shipmentsPath + "/" + id, Key: key}).Data(t),
			"list":    listed(t, env, key, id),
			"webhook": deliveries.await(t, id),
		}
		for where, sh := range got {
			price, hasPrice := sh["total_price"]
			currency, hasCurrency := sh["currency"]
			if !hasPrice || !hasCurrency || price != w[0] || currency != w[1] {
				t.Errorf("%s of %s: total_price %v, currency %v; want %v, %v", where, sh["reference_number"], price, currency, w[0], w[1])
			}
		}
	}
}

// Shipments stored before missing prices were kept missing hold 0 and ""
// for a carrier that named none. GET reads them as null at once, and
// migration 00009 rewrites the stored state and the list row, keeping the
// list's key order; a real price, even 0 with a currency, stays.
func TestStoredZeroWithoutCurrencyReadsAsNull(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	ch := activeChannel(t, env, key, "Sandbox", nil)
	old := create(t, env, key, with(shipmentBody(ch), "reference_number", "UNPRICED-OLD"))["id"].(string)
	free := create(t, env, key, with(shipmentBody(ch), "reference_number", "FREE"))["id"].(string)
	awaitCarrier(t, env, key, old)
	awaitCarrier(t, env, key, free)
	listed(t, env, key, old)
	listed(t, env, key, free)
	// Rewrite both as an older shipd stored them.
	for _, stmt := range []string{
		`UPDATE shipments.shipments SET state = state || '{"total_price_minor": 0, "currency": ""}' WHERE id = $1`,
		`UPDATE shipments.shipment_list SET record = replace(record::text, '"total_price":null,"currency":null', '"total_price":0,"currency":""')::json WHERE id = $1`,
	} {
		if res, err := env.ModuleDB("shipments").Exec(stmt, old); err != nil {
			t.Fatal(err)
		} else if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%d rows rewritten by %s", n, stmt)
		}
	}
	if _, err := env.ModuleDB("shipments").Exec(`UPDATE shipments.shipments SET state = state || '{"total_price_minor": 0, "currency": "EUR"}' WHERE id = $1`, free); err != nil {
		t.Fatal(err)
	}
	get := func(id string) map[string]any {
		return env.Do(apptest.Request{Method: http.MethodGet, Path: shipmentsPath + "/" + id, Key: key}).Data(t)
	}
	if sh := get(old); sh["total_price"] != nil || sh["currency"] != nil {
		t.Errorf("stored 0 and \"\" read as %v %v, want null", sh["total_price"], sh["currency"])
	}

	up, err := migrations.Files.ReadFile("00009_shipments_unpriced.sql")
	if err != nil {
		t.Fatal(err)
	}
	upSQL, _, _ := strings.Cut(string(up), "-- +goose Down")
	if _, err := env.ModuleDB("shipments").Exec(upSQL); err != nil {
		t.Fatalf("migration 00009: %v", err)
	}
	var state struct {
		Price    *int64 `db:"price"`
		Currency string `db:"currency"`
	}
	if err := env.ModuleDB("shipments").Get(&state, `SELECT (state->>'total_price_minor')::bigint AS price, state->>'currency' AS currency FROM shipments.shipments WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	if state.Price != nil {
		t.Errorf("state still holds price %d without a currency", *state.Price)
	}
	var record string
	if err := env.ModuleDB("shipments").Get(&record, `SELECT record::text FROM shipments.shipment_list WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(record, `"status":"created","total_price":null,"currency":null,"created_at"`) {
		t.Errorf("list row after the migration: %s", record)
	}
	if sh := get(free); sh["total_price"] != 0.0 || sh["currency"] != "EUR" {
		t.Errorf("a price of 0 EUR read as %v %v", sh["total_price"], sh["currency"])
	}
}
