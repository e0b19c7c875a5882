// Package grouptx is a consumer group's transactions, on either backbone:
// one group at a time under its advisory lock, a bounded number open at
// once, each try of a handler under a savepoint, and the work that waits for
// the commit (a read model's batch, the forwarder's publishes) done right
// before it.
package grouptx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jmoiron/sqlx"

	"shipd/platform/failpoint"
	"shipd/platform/postgres"
)

// Beginner begins the transactions of one consumer group's subscriber.
//
// Watermill's PostgreSQL subscriber hands out only messages written by
// transactions older than every transaction still running
// (pg_snapshot_xmin), so any transaction that holds an id holds back every
// consumer of the cluster. Its own select locks the group's offsets row FOR
// UPDATE, and a row lock takes an id: each subscriber held one for its whole
// batch, and with nine groups busy at once the horizon hardly moved (ADR
// 0030). Here the group is serialised by an advisory lock instead, which takes
// no id (pgstream.Offsets drops the FOR UPDATE), and read models write their
// batch just before the commit (see Tx): a subscriber's transaction
// gets its id at the acknowledgement, a moment before it ends.
type Beginner struct {
	watermillsql.Beginner
	Key   string        // the group's lock: "consumer:<stream>/<group>"
	Slots chan struct{} // nil: no bound on open transactions
	Group *Group
}

// Group is what one group's transactions share.
type Group struct {
	// OneByOne is set when a batch's writes failed at the commit: the next
	// transaction applies each message in its handler, so the message at
	// fault meets the retries and the dead-letter table on its own.
	OneByOne atomic.Bool
	// FlushTimeout bounds the writes at a commit.
	FlushTimeout time.Duration
	// Durable groups change aggregates or make deliveries: their commits
	// wait for the disk (see prepare).
	Durable bool
	Log     *slog.Logger // never nil
	// DB is the database the group's transactions are on, the module's:
	// a batch's writes run Within their transaction (see writePending).
	DB *sqlx.DB
}

func (b Beginner) BeginTx(ctx context.Context, opts *sql.TxOptions) (watermillsql.Tx, error) {
	if b.Slots != nil {
		select {
		case b.Slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	release := func() {
		if b.Slots != nil {
			<-b.Slots
		}
	}
	tx, err := b.Beginner.BeginTx(ctx, opts)
	if err != nil {
		release()
		return nil, err
	}
	if err := b.prepare(ctx, tx); err != nil {
		_ = tx.Rollback()
		release()
		return nil, err
	}
	std := tx.(*watermillsql.StdSQLTx) // prepare checked it
	return &Tx{StdSQLTx: std, release: release, group: b.Group}, nil
}

// prepare readies a subscriber transaction. The commit of a group that
// writes read models does not wait for its WAL to reach the disk: what it
// writes (read-model rows, the acknowledgement) follows from events that are
// durable already, and a crash loses a whole recent transaction or none of
// it, so the lost batch is read and written again. A durable group's does
// wait: its writes (aggregates, their events, deliveries) are seen by
// others at once, and applied again after a crash they would be seen twice
// (a new tracking parcel's id, an event forwarded to the broker). Waiting for the flush held the transaction's
// id, and so every reader's horizon, for the time of an fsync on every
// batch. Another instance's subscriber of the same group waits on the lock,
// as it waited for the offsets row before.
func (b Beginner) prepare(ctx context.Context, tx watermillsql.Tx) error {
	std, ok := tx.(*watermillsql.StdSQLTx)
	if !ok {
		return fmt.Errorf("messaging: unexpected transaction type %T", tx)
	}
	// Said either way, whatever the server's default: a durable group's
	// commit waits for the disk even on a server that does not by default.
	commit := `SET LOCAL synchronous_commit = off`
	if b.Group.Durable {
		commit = `SET LOCAL synchronous_commit = on`
	}
	if _, err := std.ExecContext(ctx, commit); err != nil {
		return err
	}
	if err := postgres.Lock(ctx, std.Tx, b.Key); err != nil {
		return fmt.Errorf("locking consumer group %s: %w", b.Key, err)
	}
	return nil
}

// Tx is a subscriber's transaction: it gives its slot back when
// it ends, however it ends, and finishes what waits for its commit (the
// read models' pending batches, the forwarder's publishes, the batches of
// handlers that change aggregates) right before Watermill writes the
// acknowledgement (see ExecContext).
type Tx struct {
	*watermillsql.StdSQLTx
	release func()
	group   *Group
	once    sync.Once

	mu      sync.Mutex
	pending []pendingWork // in the order they were started
}

type pendingWork struct {
	key   string
	batch AtCommit
}

// AtCommit is work a subscriber's transaction does right before its
// commit; an error rolls the transaction back.
type AtCommit interface {
	Write(ctx context.Context, tx *sqlx.Tx) error
}

// Group is the consumer group whose transaction t is.
func (t *Tx) Group() *Group { return t.group }

// Batch returns the pending work under key, started by newBatch if none.
func (t *Tx) Batch(key string, newBatch func() AtCommit) AtCommit {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.pending {
		if p.key == key {
			return p.batch
		}
	}
	b := newBatch()
	t.pending = append(t.pending, pendingWork{key, b})
	return b
}

// ExecContext is how Watermill writes a batch's acknowledgement, and the
// broker reader its position: the pending batches are written first. So a
// batch's writes are the transaction's first, and the locks a handler that
// changes aggregates takes before them (postgres.LockForChanges) come before
// the transaction has an id, as they must for its events to keep their
// aggregates' order (Watermill acking a batch here, after its last
// message, is pinned by pgstream's watermill_test.go, as is the *StdSQLTx
// its beginner begins). The handlers' own statements (savepoints, dead
// letters, Borrow) go to the transaction underneath (Raw), never through here.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (watermillsql.Result, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	return t.StdSQLTx.ExecContext(ctx, query, args...)
}

func (t *Tx) Commit() error {
	defer t.free()
	if err := t.flush(); err != nil {
		return errors.Join(err, t.StdSQLTx.Rollback())
	}
	if err := t.StdSQLTx.Commit(); err != nil {
		return err
	}
	t.group.OneByOne.Store(false)
	return nil
}

// flush writes the pending batches. When they cannot be written nothing of
// the transaction may commit, its acknowledgement included: the messages
// are read again and applied a message at a time.
func (t *Tx) flush() error {
	if err := t.writePending(); err != nil {
		t.group.OneByOne.Store(true)
		t.group.Log.Warn("a batch of messages could not be written at once; they are applied one by one", "err", err)
		return err
	}
	return nil
}

func (t *Tx) writePending() error {
	t.mu.Lock()
	pending := t.pending
	t.pending = nil
	t.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	// The handlers' contexts ended with their messages: the writes get
	// their own time.
	ctx, cancel := context.WithTimeout(context.Background(), t.group.FlushTimeout)
	defer cancel()
	tx := borrowed(t.StdSQLTx.Tx)
	// A module's use case applying the batch writes through its
	// repositories, whose InTx on the module's database joins this
	// transaction.
	ctx = postgres.Within(ctx, t.group.DB, tx)
	for _, p := range pending {
		if err := p.batch.Write(ctx, tx); err != nil {
			return fmt.Errorf("writing %s: %w", p.key, err)
		}
	}
	if t.group.Durable {
		// The fault suite kills here: the batch is written, its
		// acknowledgement not yet committed.
		return failpoint.Hit(failpoint.GroupBatchWritten)
	}
	return nil
}

func (t *Tx) Rollback() error {
	defer t.free()
	return t.StdSQLTx.Rollback()
}

func (t *Tx) free() { t.once.Do(t.release) }

// Raw is what a handler's own statements on a subscriber's transaction go
// through: the transaction underneath, which writes no pending batch first
// (see Tx.ExecContext).
func Raw(tx watermillsql.Tx) watermillsql.Tx {
	if t, ok := tx.(*Tx); ok {
		return t.StdSQLTx
	}
	return tx
}

// Std returns the standard library transaction under a subscriber's
// transaction.
func Std(tx watermillsql.Tx) (*sql.Tx, bool) {
	switch t := tx.(type) {
	case *watermillsql.StdSQLTx:
		return t.Tx, true
	case *Tx:
		return t.StdSQLTx.Tx, true
	}
	return nil, false
}
