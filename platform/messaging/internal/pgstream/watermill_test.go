package pgstream

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/grouptx"
	"shipd/platform/messaging/internal/wakeup"
	"shipd/platform/postgres/pgtest"
)

// The tests here pin what this package and grouptx rely on in watermill-sql
// beyond its documented interfaces: an upgrade that changes one of them
// fails here, not in a consumer group that silently lost its order.

// Offsets replaces Watermill's next-offset query by the same query without
// its row lock: should Watermill's query change (other columns, another
// condition), ours would read something else than it expects.
func TestOffsetsAreWatermillsQueryWithoutTheRowLock(t *testing.T) {
	params := watermillsql.NextOffsetQueryParams{Topic: "test.pin", ConsumerGroup: "pin"}
	theirs, err := watermillsql.DefaultPostgreSQLOffsetsAdapter{}.NextOffsetQuery(params)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := Offsets.NextOffsetQuery(params)
	if err != nil {
		t.Fatal(err)
	}
	// Compared without whitespace, which the two lay out differently.
	squeeze := func(q string) string { return strings.Join(strings.Fields(q), "") }
	if squeeze(theirs.Query) != squeeze(ours.Query)+"FORUPDATE" {
		t.Errorf("watermill-sql's next-offset query is no longer ours plus FOR UPDATE:\n theirs: %s\n ours:   %s", theirs.Query, ours.Query)
	}
	if len(theirs.Args) != 1 || len(ours.Args) != 1 || theirs.Args[0] != ours.Args[0] {
		t.Errorf("arguments: theirs %v, ours %v", theirs.Args, ours.Args)
	}
}

// grouptx.Beginner wraps the transaction watermill-sql's standard library
// beginner begins, and takes it for a *StdSQLTx (to reach the *sql.Tx
// underneath).
func TestWatermillsBeginnerBeginsAStdSQLTx(t *testing.T) {
	db := pgtest.Open(t)
	tx, err := watermillsql.BeginnerFromStdSQL(db.DB).BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, ok := tx.(*watermillsql.StdSQLTx); !ok {
		t.Fatalf("watermill-sql began a %T, not a *StdSQLTx", tx)
	}
}

// pinBatch records what its messages' transaction held when it was written.
type pinBatch struct {
	mu       sync.Mutex
	messages int
	written  chan pinWrite
	offsets  string
}

type pinWrite struct {
	messages   int
	ackedFirst bool
	err        error
}

func (b *pinBatch) add() { b.mu.Lock(); b.messages++; b.mu.Unlock() }

func (b *pinBatch) Write(ctx context.Context, tx *sqlx.Tx) error {
	var acked int64
	err := tx.GetContext(ctx, &acked, `SELECT coalesce(max(offset_acked), 0) FROM `+b.offsets+` WHERE consumer_group = 'pin'`)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.written <- pinWrite{messages: b.messages, ackedFirst: acked > 0, err: err}
	return err
}

// Watermill acknowledges a batch through ExecContext of the transaction our
// beginner gave it, once every message of the batch was acked and before
// the commit: grouptx.Tx writes the pending batches there, so they are the
// transaction's first writes. Watermill writing the ack elsewhere, earlier,
// or per message would break that (and the order of the aggregates' locks
// it keeps).
func TestWatermillWritesABatchsAckThroughOurTxAfterItsLastMessage(t *testing.T) {
	db := pgtest.Open(t)
	ctx := t.Context()
	if err := InitializeStreams(ctx, db, []string{"test.pin"}); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := Publisher(tx, watermill.NopLogger{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := pub.Publish("test.pin", message.NewMessage(watermill.NewUUID(), []byte(`{}`))); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	wake, _ := wakeup.New("", nil)
	log := slog.New(slog.DiscardHandler)
	group := &grouptx.Group{FlushTimeout: 5 * time.Second, Log: log, DB: db}
	sub, err := Subscribe(db.DB, Reading{PollInterval: 10 * time.Millisecond, AckDeadline: 5 * time.Second, Wakeup: wake}, nil,
		grouptx.WatermillLogger(log), group, "pin", "test.pin")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	msgs, err := sub.Subscribe(ctx, "test.pin")
	if err != nil {
		t.Fatal(err)
	}
	batch := &pinBatch{written: make(chan pinWrite, 1), offsets: Offsets.MessagesOffsetsTable("test.pin")}
	for range 3 {
		select {
		case msg := <-msgs:
			wtx, ok := grouptx.From(msg.Context())
			if !ok {
				t.Fatal("a message came without its transaction")
			}
			stx, ok := wtx.(*grouptx.Tx)
			if !ok {
				t.Fatalf("a message came in a %T, not the beginner's transaction", wtx)
			}
			stx.Batch("pin", func() grouptx.AtCommit { return batch }).(*pinBatch).add()
			msg.Ack()
		case <-time.After(10 * time.Second):
			t.Fatal("the messages did not come")
		}
	}
	select {
	case w := <-batch.written:
		if w.err != nil {
			t.Fatal(w.err)
		}
		if w.messages != 3 {
			t.Errorf("the batch was written after %d of its 3 messages; want after the last", w.messages)
		}
		if w.ackedFirst {
			t.Error("the acknowledgement was written before the batch: it did not go through the transaction's ExecContext")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the batch was never written")
	}
	var acked int64
	deadline := time.Now().Add(10 * time.Second)
	for acked == 0 && time.Now().Before(deadline) {
		if err := db.GetContext(ctx, &acked, `SELECT coalesce(max(offset_acked), 0) FROM `+batch.offsets+` WHERE consumer_group = 'pin'`); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if acked == 0 {
		t.Error("the batch's acknowledgement never committed")
	}
}
