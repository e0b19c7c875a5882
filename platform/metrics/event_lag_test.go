package metrics

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// The lag counts the events after a group's acked position, per group, with
// the subscribers' own (transaction id, offset) order.
func TestEventHandlerLagCountsWhatEachGroupHasNotProcessed(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := messaging.InitializeStreams(ctx, db, []string{"parcel.test"}); err != nil {
		t.Fatal(err)
	}
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
