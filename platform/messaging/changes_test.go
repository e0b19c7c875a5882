package messaging_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// firstWriteBatch records, when it is written, whether its transaction had
// an id yet and whether its commit waits for the disk, then writes its
// numbers in one statement.
type firstWriteBatch struct {
	seen *txFacts
	db   *sqlx.DB
	ns   []int
}

type txFacts struct {
	mu          sync.Mutex
	hadID       []bool
	synchronous []string
	apart       int // writes whose InTx ran on a connection of its own
}

func (b *firstWriteBatch) Add(e messaging.Event)     { b.ns = append(b.ns, e.(*testEvent).N) }
func (b *firstWriteBatch) AddCommand(c *testCommand) { b.ns = append(b.ns, c.N) }

func (b *firstWriteBatch) Write(ctx context.Context, tx *sqlx.Tx) error {
	var id sql.NullString
	var sync string
	if err := tx.QueryRowContext(ctx, `SELECT pg_current_xact_id_if_assigned()::text, current_setting('synchronous_commit')`).Scan(&id, &sync); err != nil {
		return err
	}
	b.seen.mu.Lock()
	b.seen.hadID = append(b.seen.hadID, id.Valid)
	b.seen.synchronous = append(b.seen.synchronous, sync)
	b.seen.mu.Unlock()
	// A module's repository writes through InTx on its database: it joins
	// the group's transaction.
	var mine, theirs int
	if err := tx.GetContext(ctx, &mine, `SELECT pg_backend_pid()`); err != nil {
		return err
	}
	return postgres.InTx(ctx, b.db, func(in *sqlx.Tx) error {
		if err := in.GetContext(ctx, &theirs, `SELECT pg_backend_pid()`); err != nil {
			return err
		}
		if theirs != mine {
			b.seen.mu.Lock()
			b.seen.apart++
			b.seen.mu.Unlock()
		}
		_, err := in.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) SELECT 'test.changes', unnest($1::int[])`, pq.Array(b.ns))
		return err
	})
}

type commandBatch struct{ *firstWriteBatch }

func (b commandBatch) Add(c messaging.Command) { b.AddCommand(c.(*testCommand)) }

// A group that changes aggregates writes its batch before the
// acknowledgement, as the transaction's first write (so the locks it takes
// first come before the transaction has an id: its events keep their
// aggregates' order), and its commit waits for the disk; a read model's
// does not.
func TestChangesAreTheirTransactionsFirstWriteAndDurable(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		changes, readModel := &txFacts{}, &txFacts{}
		if err := messaging.SubscribeChanges(e.bus, "test.changes", []messaging.EventKind{messaging.Takes[testEvent]()},
			func() messaging.Batch { return &firstWriteBatch{seen: changes, db: e.db} }); err != nil {
			t.Fatal(err)
		}
		if err := messaging.SubscribeBatches(e.bus, "test.read_model", []messaging.EventKind{messaging.Takes[testEvent]()},
			func() messaging.Batch { return &firstWriteBatch{seen: readModel, db: e.db} }); err != nil {
			t.Fatal(err)
		}
		e.publish(testEvent{N: 1}, testEvent{N: 2}, testEvent{N: 3})
		e.start()
		eventually(t, "both groups wrote the three events", func() bool {
			return e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.changes'`) == 6
		})
		for name, f := range map[string]*txFacts{"changes": changes, "read model": readModel} {
			f.mu.Lock()
			for i, had := range f.hadID {
				if had {
					t.Errorf("%s: write %d came after its transaction had an id (the acknowledgement went first)", name, i)
				}
			}
			sync := append([]string(nil), f.synchronous...)
			if f.apart > 0 {
				t.Errorf("%s: %d writes ran in a transaction of their own, not the group's", name, f.apart)
			}
			f.mu.Unlock()
			want := "on"
			if name == "read model" {
				want = "off"
			}
			for _, s := range sync {
				if s != want {
					t.Errorf("%s: synchronous_commit %s, want %s", name, s, want)
				}
			}
		}
	})
}

// Commands are applied a run at a time too, each once.
func TestCommandsAreAppliedInBatches(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		facts := &txFacts{}
		if err := messaging.SubscribeCommandBatches[testCommand](e.bus, "test.do_batched",
			func() messaging.CommandBatch { return commandBatch{&firstWriteBatch{seen: facts, db: e.db}} }); err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error {
			return e.outbox.Send(ctx, tx, testCommand{N: 1}, testCommand{N: 2}, testCommand{N: 3}, testCommand{N: 4})
		}); err != nil {
			t.Fatal(err)
		}
		e.start()
		eventually(t, "the four commands applied", func() bool {
			return e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.changes'`) == 4
		})
		if n := e.count(`SELECT count(DISTINCT n) FROM public.scratch WHERE handler = 'test.changes'`); n != 4 {
			t.Errorf("%d distinct commands applied, want 4", n)
		}
		facts.mu.Lock()
		defer facts.mu.Unlock()
		if len(facts.hadID) >= 4 {
			t.Errorf("%d writes for 4 commands sent together, want them batched", len(facts.hadID))
		}
	})
}

// Events published in one call are one statement per stream, read back in
// the order given.
func TestEventsPublishedTogetherArriveInTheOrderGiven(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var got []int
	if err := onEvent(e.bus, "test.order", func(_ context.Context, ev *testEvent) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev.N)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	events := make([]messaging.Event, 60)
	for i := range events {
		events[i] = testEvent{N: i}
	}
	e.publish(events...)
	e.start()
	eventually(t, "the sixty events handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 60
	})
	for i, n := range got {
		if n != i {
			t.Fatalf("handled in the order %v, want 0..59", got)
		}
	}
}
