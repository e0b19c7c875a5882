package messaging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
)

type otherEvent struct{ N int }

func (otherEvent) EventType() string   { return "test.other" }
func (otherEvent) EventStream() string { return "test.other" }

func TestStoredMessagesAreReadBackInCommitOrderAndByWindow(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if err := messaging.InitializeStreams(ctx, e.db, []string{"test.other"}); err != nil {
		t.Fatal(err)
	}
	topics := []string{"test.stream", "test.other"}
	// Transaction by transaction, across the two topics.
	e.publish(otherEvent{N: 1}, testEvent{N: 2})
	e.publish(testEvent{N: 3})
	e.publish(otherEvent{N: 4}, otherEvent{N: 5}, testEvent{N: 6})
	// A transaction still open at the horizon commits after it.
	late, err := e.db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Rollback()
	if err := e.outbox.Publish(ctx, late, testEvent{N: 7}); err != nil {
		t.Fatal(err)
	}
	horizon, err := messaging.TakeSnapshot(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	e.publish(otherEvent{N: 8})
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}

	// Each transaction's messages come together, the topics in the order
	// given within one; 7's transaction began before 8's, so it comes first.
	if got := readAll(t, e.db, topics, messaging.Window{}, 2); !slices.Equal(got, []int{2, 1, 3, 6, 4, 5, 7, 8}) {
		t.Errorf("everything: %v, want [2 1 3 6 4 5 7 8]", got)
	}
	if got := readAll(t, e.db, topics, messaging.Window{Upto: horizon}, 100); !slices.Equal(got, []int{2, 1, 3, 6, 4, 5}) {
		t.Errorf("up to the horizon: %v, want [2 1 3 6 4 5] (7 was running at the horizon)", got)
	}
	if got := readAll(t, e.db, topics, messaging.Window{After: horizon}, 1); !slices.Equal(got, []int{7, 8}) {
		t.Errorf("after the horizon: %v, want [7 8]", got)
	}
	for w, want := range map[messaging.Window]int64{{}: 8, {Upto: horizon}: 6, {After: horizon}: 2} {
		if n, err := messaging.CountStored(ctx, e.db, topics, w); err != nil || n != want {
			t.Errorf("CountStored(%+v) = %d, %v; want %d", w, n, err, want)
		}
	}
}

// Transaction ids are compared as numbers, also where they differ in their
// number of digits: sorted as text, 100000 came before 99999 and reading in
// batches skipped messages (a rebuild under a long test run lost events).
func TestStoredMessagesAreReadInNumericTransactionOrder(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if err := messaging.InitializeStreams(ctx, e.db, []string{"test.other"}); err != nil {
		t.Fatal(err)
	}
	topics := []string{"test.stream", "test.other"}
	// Written out of order, with the transaction ids given, as a cluster
	// whose ids crossed 100000 and 1000000 would have stored them.
	for _, m := range []struct {
		topic string
		txID  string
		n     int
	}{
		{"test.other", "1000000", 6}, {"test.stream", "100001", 5}, {"test.other", "100000", 4},
		{"test.stream", "99999", 3}, {"test.other", "99998", 2}, {"test.other", "9999", 1},
	} {
		if _, err := e.db.ExecContext(ctx, `INSERT INTO "watermill_`+m.topic+`" (uuid, payload, metadata, transaction_id)
			VALUES (gen_random_uuid()::text, $1, '{}', $2::xid8)`, fmt.Sprintf(`{"N":%d}`, m.n), m.txID); err != nil {
			t.Fatal(err)
		}
	}
	for _, limit := range []int{1, 2, 3, 100} {
		if got := readAll(t, e.db, topics, messaging.Window{}, limit); !slices.Equal(got, []int{1, 2, 3, 4, 5, 6}) {
			t.Errorf("read %d at a time: %v, want [1 2 3 4 5 6]", limit, got)
		}
	}
}

// readAll reads every message in w, limit at a time, and returns their N.
func readAll(t *testing.T, db *sqlx.DB, topics []string, w messaging.Window, limit int) []int {
	t.Helper()
	var (
		cur messaging.Cursor
		out []int
	)
	for {
		batch, next, err := messaging.ReadStored(context.Background(), db, topics, w, cur, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			return out
		}
		if len(batch) > limit {
			t.Fatalf("%d messages in a batch of %d", len(batch), limit)
		}
		for _, m := range batch {
			var ev struct{ N int }
			if err := json.Unmarshal(m.Payload, &ev); err != nil {
				t.Fatal(err)
			}
			out = append(out, ev.N)
		}
		cur = next
	}
}
