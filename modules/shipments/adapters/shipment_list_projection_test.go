package adapters_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd"
	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/contract"
	"shipd/platform/apptest"
	"shipd/platform/config"
	"shipd/platform/ids"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// A new shipment's first events reach the list projection at the same
// moment, each in its own handler's transaction, and neither finds a row.
// The second must wait for the first and then update its row under the
// version guard: no duplicate key (which the bus retries and logs as an
// ERROR), no second seq, counters for one shipment. Both orders, the first
// time for a new account and again for one that has shipments.
func TestFirstEventsOfAShipmentRaceWithoutADuplicateKey(t *testing.T) {
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.BookingConcurrency = 0 }))
	appliers := map[string]messaging.Applier{}
	for _, a := range adapters.NewShipmentListProjection(env.DB).Definition().Appliers(projection.Live) {
		appliers[a.EventType()] = a
	}
	account, channel := ids.New(ids.Account), ids.New(ids.ShippingChannel)
	event := func(id, status string, version int) messaging.StoredMessage {
		at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
		payload, err := json.Marshal(contract.ShipmentEvent{AccountID: account, Version: version, OccurredAt: at,
			Shipment: contract.Shipment{ID: id, ShippingChannelID: channel, Status: status, CreatedAt: at, UpdatedAt: at}})
		if err != nil {
			t.Fatal(err)
		}
		topic := map[string]string{"pending": "shipment.requested", "created": "shipment.created"}[status]
		return messaging.StoredMessage{Topic: contract.Stream, Name: topic, UUID: ids.New(ids.Event), Payload: payload}
	}
	begin := func() *sqlx.Tx {
		tx, err := env.DB.Beginx()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback() })
		return tx
	}
	ctx := context.Background()
	for n, first := range []string{"pending", "created"} {
		id := ids.New(ids.Shipment)
		requested, created := event(id, "pending", 1), event(id, "created", 2)
		one, two := requested, created
		if first == "created" {
			one, two = created, requested
		}
		tx1 := begin()
		if err := appliers[one.Name].ApplyStored(ctx, tx1, one); err != nil {
			t.Fatalf("%s first: %v", one.Topic, err)
		}
		second := make(chan error, 1)
		go func() {
			tx2 := begin()
			if err := appliers[two.Name].ApplyStored(ctx, tx2, two); err != nil {
				second <- err
				return
			}
			second <- tx2.Commit()
		}()
		apptest.Eventually(t, 5*time.Second, "the second writer waiting for the first", func() bool {
			var waiting int
			_ = env.DB.Get(&waiting, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
			return waiting > 0
		})
		if err := tx1.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-second; err != nil {
			t.Fatalf("%s after %s: %v", two.Topic, one.Topic, err)
		}

		var row struct {
			Version int    `db:"version"`
			Status  string `db:"status"`
			Seq     int    `db:"seq"`
		}
		if err := env.DB.Get(&row, `SELECT version, status, seq FROM shipments.shipment_list WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if row.Version != 2 || row.Status != "created" || row.Seq != n+1 {
			t.Errorf("%s first: row %+v, want version 2, created, seq %d", first, row, n+1)
		}
		var lastSeq, pending, createdCount int
		if err := env.DB.Get(&lastSeq, `SELECT last_seq FROM shipments.shipment_list_seq WHERE account_id = $1`, account); err != nil {
			t.Fatal(err)
		}
		_ = env.DB.Get(&pending, `SELECT coalesce(sum(n), 0) FROM shipments.shipment_counts WHERE account_id = $1 AND status = 'pending'`, account)
		_ = env.DB.Get(&createdCount, `SELECT coalesce(sum(n), 0) FROM shipments.shipment_counts WHERE account_id = $1 AND status = 'created'`, account)
		if lastSeq != n+1 || pending != 0 || createdCount != n+1 {
			t.Errorf("%s first: last seq %d, counted pending %d, created %d; want %d, 0, %d", first, lastSeq, pending, createdCount, n+1, n+1)
		}
	}
}
