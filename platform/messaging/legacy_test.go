package messaging_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"shipd/platform/messaging"
)

// A database from before the streams has a table per event type, read by a
// consumer group per handler, some behind the others. Adopting them puts on
// the stream, in the order they were written, exactly what the slowest
// group had not handled; a second adoption adds nothing; the legacy tables
// stay readable with the stream for a rebuild.
func TestLegacyTopicsAreAdoptedByTheirStream(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	// Legacy tables as InitializeTopics made them, and what was written:
	// (topic, N) in commit order.
	for _, topic := range []string{"test.happened", "test.other"} {
		if err := messaging.InitializeStreams(ctx, e.db, []string{topic}); err != nil {
			t.Fatal(err)
		}
	}
	write := func(topic string, n int) {
		t.Helper()
		if _, err := e.db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO "watermill_%s" (uuid, payload, metadata, transaction_id)
			VALUES ('evt_%d', '{"N":%d}', '{"name":"%s"}', pg_current_xact_id())`, topic, n, n, topic)); err != nil {
			t.Fatal(err)
		}
	}
	write("test.happened", 1)
	write("test.other", 2)
	write("test.happened", 3)
	write("test.other", 4)
	write("test.happened", 5)
	// Group a handled test.happened up to 3, group b up to 1; nobody read
	// test.other past 2.
	ack := func(topic, group string, n int) {
		t.Helper()
		if _, err := e.db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO "watermill_offsets_%s" (consumer_group, offset_acked, last_processed_transaction_id)
			SELECT $1, "offset", transaction_id FROM "watermill_%s" WHERE uuid = $2`, topic, topic), group, fmt.Sprintf("evt_%d", n)); err != nil {
			t.Fatal(err)
		}
	}
	ack("test.happened", "a", 3)
	ack("test.happened", "b", 1)
	ack("test.other", "a", 2)

	legacy := messaging.LegacyTopics{"test.happened": "test.stream", "test.other": "test.stream", "test.gone": "test.stream"}
	for range 2 {
		if err := messaging.AdoptLegacyTopics(ctx, e.db, legacy); err != nil {
			t.Fatal(err)
		}
	}
	var adopted []struct {
		UUID string `db:"uuid"`
		Name string `db:"name"`
	}
	if err := e.db.SelectContext(ctx, &adopted, `SELECT uuid, metadata->>'name' AS name FROM "watermill_test.stream" ORDER BY transaction_id, "offset"`); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(adopted)
	if want := "[{evt_3 test.happened} {evt_4 test.other} {evt_5 test.happened}]"; got != want {
		t.Errorf("the stream holds %s, want %s (after group b's position on test.happened, after a's on test.other, once)", got, want)
	}

	// A rebuild reads the legacy tables and the stream together.
	batch, _, err := messaging.ReadStored(ctx, e.db, []string{"test.happened", "test.other", "test.stream"}, messaging.Window{}, messaging.Cursor{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ns []int
	for _, m := range batch {
		var ev struct{ N int }
		if err := json.Unmarshal(m.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		if m.Name != map[bool]string{true: "test.happened", false: "test.other"}[ev.N%2 == 1] {
			t.Errorf("message %s read as %s", m.UUID, m.Name)
		}
		ns = append(ns, ev.N)
	}
	if !slices.Equal(ns, []int{1, 2, 3, 4, 5, 3, 4, 5}) {
		t.Errorf("read back %v, want the legacy history then the adopted tail", ns)
	}
}
