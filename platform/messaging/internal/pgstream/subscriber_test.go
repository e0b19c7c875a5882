package pgstream

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/lib/pq"

	"shipd/platform/messaging/internal/grouptx"
	"shipd/platform/postgres/pgtest"
)

// Two subscribers of one group read one at a time, and a subscriber that
// has read its batch holds no transaction id: Watermill's readers, which
// see only what is older than every running transaction, are not held back
// by it.
func TestGroupBeginnerSerialisesAGroupWithoutATransactionID(t *testing.T) {
	db := pgtest.Open(t)
	b := grouptx.Beginner{Beginner: watermillsql.BeginnerFromStdSQL(db.DB), Key: "consumer:test/serial", Group: &grouptx.Group{FlushTimeout: time.Second, Log: slog.New(slog.DiscardHandler)}}
	first, err := b.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	// The read Watermill makes of the group's next batch, as the bus
	// configures it.
	if err := InitializeStreams(t.Context(), db, []string{"test.serial"}); err != nil {
		t.Fatal(err)
	}
	// A group that has read before has its offsets row, which Watermill's
	// own query locks.
	if _, err := db.Exec(`INSERT INTO ` + Offsets.MessagesOffsetsTable("test.serial") +
		` (consumer_group, offset_acked, last_processed_transaction_id) VALUES ('serial', 0, '0')`); err != nil {
		t.Fatal(err)
	}
	read, err := Schema.SelectQuery(watermillsql.SelectQueryParams{Topic: "test.serial", ConsumerGroup: "serial", OffsetsAdapter: Offsets})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := first.QueryContext(t.Context(), read.Query, read.Args...)
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	std, _ := grouptx.Std(first)
	var xid *string
	if err := std.QueryRowContext(t.Context(), `SELECT pg_current_xact_id_if_assigned()::text`).Scan(&xid); err != nil {
		t.Fatal(err)
	}
	if xid != nil {
		t.Errorf("a subscriber transaction took id %s reading its batch", *xid)
	}
	waiting, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := b.BeginTx(waiting, nil); err == nil {
		t.Fatal("a second subscriber of the group began while the first was reading")
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	second, err := b.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatalf("after the first committed: %v", err)
	}
	_ = second.Rollback()
}

type flakySubscriber struct {
	message.Subscriber
	failures []error
	calls    int
}

func (f *flakySubscriber) Subscribe(context.Context, string) (<-chan *message.Message, error) {
	f.calls++
	if f.calls <= len(f.failures) {
		return nil, f.failures[f.calls-1]
	}
	return make(chan *message.Message), nil
}

// A subscription that meets an unavailable database is tried again; any
// other failure is reported at once.
func TestPatientSubscriberWaitsOutDatabaseTrouble(t *testing.T) {
	full := &pq.Error{Code: "53300", Message: "sorry, too many clients already"}
	f := &flakySubscriber{failures: []error{full, full}}
	if ch, err := (patientSubscriber{Subscriber: f, log: slog.New(slog.DiscardHandler)}).Subscribe(t.Context(), "topic"); err != nil || ch == nil || f.calls != 3 {
		t.Errorf("after two refusals: %v, %d calls; want a subscription on the third", err, f.calls)
	}
	bad := errors.New("relation does not exist")
	f = &flakySubscriber{failures: []error{bad}}
	if _, err := (patientSubscriber{Subscriber: f, log: slog.New(slog.DiscardHandler)}).Subscribe(t.Context(), "topic"); !errors.Is(err, bad) || f.calls != 1 {
		t.Errorf("a real failure: %v after %d calls; want it at once", err, f.calls)
	}
}
