package messaging_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// changed is one aggregate's change, numbered by the aggregate's version.
type changed struct {
	ID      int `json:"id"`
	Version int `json:"version"`
}

func (changed) EventType() string   { return "test.changed" }
func (changed) EventStream() string { return "test.stream" }

// Many aggregates changed at once by concurrent writers, several writers on
// the same aggregate at a time (they queue on its row lock, as repositories
// do): every consumer group sees each aggregate's versions 1, 2, 3 ... in
// order, each once. With one topic per event type, or a subscriber per
// handler, this did not hold; nor with row locks alone (LockForChange).
func TestEachAggregatesEventsArriveInOrder(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	const aggregates, changes, writers = 20, 15, 12
	if _, err := e.db.ExecContext(ctx, `CREATE TABLE public.aggregates (id integer PRIMARY KEY, version integer NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.ExecContext(ctx, `INSERT INTO public.aggregates SELECT g, 0 FROM generate_series(1, $1) g`, aggregates); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		mu  sync.Mutex
		got map[int][]int
	}
	groups := map[string]*seen{"test.order-a": {got: map[int][]int{}}, "test.order-b": {got: map[int][]int{}}}
	for name, s := range groups {
		if err := e.bus.AddGroup(name,
			messaging.On(func(ctx context.Context, c *changed) error {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.got[c.ID] = append(s.got[c.ID], c.Version)
				return nil
			}),
			// A group passes over event types it has no handler for.
			messaging.On(func(ctx context.Context, ev *testEvent) error { return nil }),
		); err != nil {
			t.Fatal(err)
		}
	}
	e.start()

	// Each writer changes aggregates as repositories do: lock the aggregate
	// for the change first (postgres.LockForChange), bump its version,
	// publish the change. Without that lock the test fails: a writer can take
	// its transaction id before another yet win the row second.
	var wg sync.WaitGroup
	work := make(chan int, aggregates*changes)
	for i := range aggregates * changes {
		work <- 1 + (i*7)%aggregates
	}
	close(work)
	for range writers {
		wg.Go(func() {
			for id := range work {
				err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error {
					if err := postgres.LockForChange(ctx, tx, fmt.Sprint("aggregate-", id)); err != nil {
						return err
					}
					var v int
					if err := tx.GetContext(ctx, &v, `UPDATE public.aggregates SET version = version + 1 WHERE id = $1 RETURNING version`, id); err != nil {
						return err
					}
					return e.outbox.Publish(ctx, tx, changed{ID: id, Version: v}, testEvent{N: v})
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for name, s := range groups {
		eventually(t, name+" sees every change", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			n := 0
			for _, vs := range s.got {
				n += len(vs)
			}
			return n >= aggregates*changes
		})
		s.mu.Lock()
		for id := 1; id <= aggregates; id++ {
			want := make([]int, changes)
			for i := range want {
				want[i] = i + 1
			}
			if got := s.got[id]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: aggregate %d's versions arrived as %v, want %v", name, id, got, want)
			}
		}
		s.mu.Unlock()
	}
}

// A message that fails every try is set aside with its error, the stream
// goes on past it, and RetryDeadLetter gives it back to its group alone.
func TestPoisonMessageIsSetAsideAndCanBeRetried(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		var (
			mu     sync.Mutex
			broken = true
			tries  int
		)
		var fragile, healthy recorder
		if err := onEvent(e.bus, "test.fragile", func(ctx context.Context, ev *testEvent) error {
			mu.Lock()
			fail := ev.N == 2 && broken
			if ev.N == 2 {
				tries++
			}
			mu.Unlock()
			if fail {
				return errors.New("cannot take event 2")
			}
			fragile.add(ev.N, messaging.MessageID(ctx))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := onEvent(e.bus, "test.healthy", func(ctx context.Context, ev *testEvent) error {
			healthy.add(ev.N, messaging.MessageID(ctx))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		e.start()
		e.publish(testEvent{N: 1})
		e.publish(testEvent{N: 2})
		e.publish(testEvent{N: 3})

		eventually(t, "the stream goes on past the poison message", func() bool { return fragile.len() == 2 && healthy.len() == 3 })
		if ns, _ := fragile.seen(); fmt.Sprint(ns) != "[1 3]" {
			t.Errorf("the fragile group handled %v, want [1 3]", ns)
		}
		mu.Lock()
		if tries != 6 { // the first try and five retries
			t.Errorf("event 2 was tried %d times, want 6", tries)
		}
		broken = false
		mu.Unlock()
		// The dead letter commits with the batch that set it aside.
		var waiting []messaging.DeadLetter
		eventually(t, "the dead letter is committed", func() bool {
			var err error
			waiting, err = messaging.DeadLetters(ctx, e.db, true, 10)
			return err == nil && len(waiting) > 0
		})
		if len(waiting) != 1 || waiting[0].ConsumerGroup != "test.fragile" || waiting[0].Name != "test.happened" ||
			waiting[0].Stream != "test.stream" || waiting[0].Error != "cannot take event 2" {
			t.Fatalf("dead letters = %+v, want event 2 of test.fragile with its error", waiting)
		}

		if err := messaging.RetryDeadLetter(ctx, e.db, waiting[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := messaging.RetryDeadLetter(ctx, e.db, waiting[0].ID); !errors.Is(err, messaging.ErrNoDeadLetter) {
			t.Errorf("retrying it twice = %v, want ErrNoDeadLetter", err)
		}
		eventually(t, "the retried message reaches its group", func() bool { return fragile.len() == 3 })
		// An event published now comes after the retried message in the
		// stream: once the healthy group has it, that group is past the
		// retried message, which it must have passed over.
		e.publish(testEvent{N: 4})
		eventually(t, "both groups get the next event", func() bool { return fragile.has(4) && healthy.has(4) })
		if ns, _ := healthy.seen(); fmt.Sprint(ns) != "[1 2 3 4]" {
			t.Errorf("the healthy group handled %v, want [1 2 3 4]: the retried message went to it again", ns)
		}
		ns, msgIDs := fragile.seen()
		if ns[2] != 2 || msgIDs[2] != waiting[0].MessageUUID {
			t.Errorf("retried: n %d id %s, want 2 with the dead letter's id %s", ns[2], msgIDs[2], waiting[0].MessageUUID)
		}
		if left, _ := messaging.DeadLetters(ctx, e.db, true, 10); len(left) != 0 {
			t.Errorf("dead letters waiting after the retry: %+v", left)
		}
	})
}

// A batch whose middle message fails once: the messages before it keep
// their writes, its failed try leaves none, and every message's write is
// there once after the batch commits.
func TestBatchWithAFailureInTheMiddle(t *testing.T) {
	e := newEnv(t)
	var once sync.Once
	if err := onEvent(e.bus, "test.batch", func(ctx context.Context, ev *testEvent) error {
		tx, err := messaging.Tx(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) VALUES ('test.batch', $1)`, ev.N); err != nil {
			return err
		}
		failed := false
		if ev.N == 5 {
			once.Do(func() { failed = true })
		}
		if failed {
			return errors.New("the middle message fails once, after writing")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Committed before the subscriber starts, so they are read as one batch.
	var events []messaging.Event
	for n := 1; n <= 9; n++ {
		events = append(events, testEvent{N: n})
	}
	e.publish(events...)
	e.start()
	eventually(t, "the batch is applied", func() bool {
		return e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.batch'`) >= 9
	})
	if n := e.count(`SELECT count(DISTINCT n) FROM public.scratch WHERE handler = 'test.batch'`); n != 9 {
		t.Errorf("%d distinct messages written, want 9", n)
	}
	if n := e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.batch'`); n != 9 {
		t.Errorf("%d rows written, want 9: the failed try's write must be rolled back", n)
	}
}
