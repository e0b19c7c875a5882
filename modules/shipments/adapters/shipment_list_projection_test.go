package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/contract"
	"shipd/platform/ids"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/projection"
)

// One batch brings new shipments of two accounts from requested to created
// (one deleted again), then the same batch is written a second time, as
// after a crash between the write and the commit: each shipment has one row
// at its newest version, each account's seqs run on from its last without a
// gap in the order the batch met the shipments, and every shipment is
// counted once, under its newest status.
func TestABatchListsEachShipmentOnceAtItsNewestVersion(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	def := adapters.NewShipmentListProjection(db).Definition()
	accounts := []string{ids.New(ids.Account), ids.New(ids.Account)}
	channel := ids.New(ids.ShippingChannel)
	at := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	event := func(account, id, name, status string, version int) messaging.StoredMessage {
		payload, err := json.Marshal(contract.ShipmentEvent{AccountID: account, Version: version, OccurredAt: at,
			Shipment: contract.ShipmentSnapshot{ID: id, ShippingChannelID: channel, ReferenceNumber: id, Status: status, CreatedAt: at, UpdatedAt: at}})
		if err != nil {
			t.Fatal(err)
		}
		return messaging.StoredMessage{Topic: contract.Stream, Name: name, UUID: ids.New(ids.Event), Payload: payload}
	}
	apply := func(msgs ...messaging.StoredMessage) {
		t.Helper()
		if err := postgres.InTx(ctx, db, func(tx *sqlx.Tx) error { return def.Apply(ctx, tx, projection.Live, msgs...) }); err != nil {
			t.Fatal(err)
		}
	}
	// An earlier shipment of the first account: its seq is 1.
	earlier := ids.New(ids.Shipment)
	apply(event(accounts[0], earlier, contract.EventRequested, "pending", 1))

	var batch []messaging.StoredMessage
	var shipments []string
	for i := range 6 {
		id := ids.New(ids.Shipment)
		shipments = append(shipments, id)
		batch = append(batch, event(accounts[i%2], id, contract.EventRequested, "pending", 1))
	}
	for i, id := range shipments {
		batch = append(batch, event(accounts[i%2], id, contract.EventCreated, "created", 2))
	}
	batch = append(batch, event(accounts[1], shipments[5], contract.EventDeleted, "created", 3))
	apply(batch...)
	apply(batch...)

	for i, id := range shipments {
		var row struct {
			Version int    `db:"version"`
			Status  string `db:"status"`
			Deleted bool   `db:"deleted"`
			Seq     int    `db:"seq"`
		}
		if err := db.Get(&row, `SELECT version, status, deleted, seq FROM shipments.shipment_list WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("{Version:2 Status:created Deleted:false Seq:%d}", 2+i/2)
		if i%2 == 1 {
			want = fmt.Sprintf("{Version:2 Status:created Deleted:false Seq:%d}", 1+i/2)
		}
		if i == 5 {
			want = "{Version:3 Status:created Deleted:true Seq:3}"
		}
		if got := fmt.Sprintf("%+v", row); got != want {
			t.Errorf("shipment %d: %s, want %s", i, got, want)
		}
	}
	counts := map[string]string{}
	for _, account := range accounts {
		var c string
		if err := db.Get(&c, `SELECT concat_ws(' ', (SELECT last_seq FROM shipments.shipment_list_seq WHERE account_id = $1),
			(SELECT string_agg(status || '=' || n, ',' ORDER BY status) FROM shipments.shipment_counts WHERE account_id = $1 AND n <> 0),
			(SELECT string_agg(coalesce(nullif(status, ''), 'any') || '=' || n, ',' ORDER BY status) FROM shipments.shipment_list_blocks
				WHERE account_id = $1 AND channel_id = '' AND n <> 0))`, account); err != nil {
			t.Fatal(err)
		}
		counts[account] = c
	}
	if got, want := counts[accounts[0]], "4 created=3,pending=1 any=4,created=3,pending=1"; got != want {
		t.Errorf("first account: last seq, counts, block counts %q; want %q", got, want)
	}
	if got, want := counts[accounts[1]], "3 created=2 any=2,created=2"; got != want {
		t.Errorf("second account: last seq, counts, block counts %q; want %q", got, want)
	}
}
