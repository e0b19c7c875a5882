package metrics

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// streamDatabase is a database with the stream parcel.test, closed when
// the test ends.
func streamDatabase(t *testing.T) *sqlx.DB {
	t.Helper()
	db, err := postgres.Open(t.Context(), pgtest.NewDatabase(t), postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := messaging.InitializeStreams(t.Context(), db, []string{"parcel.test"}); err != nil {
		t.Fatal(err)
	}
	return db
}

// The lag counts the events after a group's acked position, per group, with
// the subscribers' own (transaction id, offset) order.
func TestEventHandlerLagCountsWhatEachGroupHasNotProcessed(t *testing.T) {
	ctx := context.Background()
	db := streamDatabase(t)
	// An older transaction still open holds the subscribers back (they read
	// below pg_snapshot_xmin); what waits behind it is lag all the same.
	open, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer open.Rollback()
	if _, err := open.Exec(`SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	for range 3 { // three commits, so three transaction ids
		if _, err := db.Exec(`INSERT INTO "watermill_parcel.test" (uuid, payload, metadata, transaction_id)
			VALUES (gen_random_uuid()::text, '{}', '{}', pg_current_xact_id())`); err != nil {
			t.Fatal(err)
		}
	}
	// "behind" processed the first event, "caught_up" all three.
	if _, err := db.Exec(`INSERT INTO "watermill_offsets_parcel.test" (consumer_group, offset_acked, last_processed_transaction_id)
		SELECT 'behind', "offset", transaction_id FROM "watermill_parcel.test" ORDER BY "offset" LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO "watermill_offsets_parcel.test" (consumer_group, offset_acked, last_processed_transaction_id)
		SELECT 'caught_up', "offset", transaction_id FROM "watermill_parcel.test" ORDER BY "offset" DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	lag := NewEventHandlerLag(prometheus.NewRegistry(), db)
	rows, err := lag.measure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]HandlerLag{}
	for _, r := range rows {
		got[r.Group] = r
	}
	if b := got["behind"]; b.Topic != "parcel.test" || b.Messages != 2 || b.Seconds < 0 {
		t.Errorf("behind: %+v, want 2 messages on parcel.test", b)
	}
	if c, ok := got["caught_up"]; !ok || c.Messages != 0 || c.Seconds != 0 {
		t.Errorf("caught_up: %+v, want 0 messages, 0 s", c)
	}
}

// A partition group lags by its partition's messages only; a group that
// is no partition's by all of them.
func TestEventHandlerLagOfAPartitionCountsItsPartitionOnly(t *testing.T) {
	ctx := context.Background()
	db := streamDatabase(t)
	// Ten keyed messages and two without a key (partition 0).
	if _, err := db.Exec(`INSERT INTO "watermill_parcel.test" (uuid, payload, metadata, transaction_id)
		SELECT gen_random_uuid()::text, '{}', json_build_object('partition_key', 'key-' || k), pg_current_xact_id()
		FROM generate_series(1, 10) k`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO "watermill_parcel.test" (uuid, payload, metadata, transaction_id)
		VALUES (gen_random_uuid()::text, '{}', '{}', pg_current_xact_id()), (gen_random_uuid()::text, '{}', NULL, pg_current_xact_id())`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO "watermill_offsets_parcel.test" (consumer_group, offset_acked, last_processed_transaction_id)
		SELECT g, 0, '0' FROM unnest(ARRAY['forwarder', 'g#0', 'g#1', 'g#2']) g`); err != nil {
		t.Fatal(err)
	}
	var want [3]int64
	var parts []int
	if err := db.Select(&parts, `SELECT `+messaging.PartitionSQL(3)+` FROM "watermill_parcel.test"`); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		want[p]++
	}
	lag := NewEventHandlerLag(prometheus.NewRegistry(), db)
	lag.Partitioned(messaging.PartitionSQL(3))
	rows, err := lag.measure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Group] = r.Messages
	}
	if got["forwarder"] != 12 || got["g#0"] != want[0] || got["g#1"] != want[1] || got["g#2"] != want[2] || want[0] < 2 {
		t.Errorf("lag %v; want forwarder 12 and the partitions %v (the two unkeyed in g#0)", got, want)
	}
}
