package messaging_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/platform/messaging"
)

// scratchBatch writes its events' numbers into public.scratch in one
// statement, and fails as a whole when it holds the poison number.
type scratchBatch struct {
	log    *batchLog
	poison int
	ns     []int
}

// batchLog records the size of every write, failed or not.
type batchLog struct {
	mu     sync.Mutex
	writes []int
}

func (l *batchLog) sizes() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.writes...)
}

func (b *scratchBatch) Add(e messaging.Event) { b.ns = append(b.ns, e.(*testEvent).N) }

func (b *scratchBatch) Write(ctx context.Context, tx *sqlx.Tx) error {
	b.log.mu.Lock()
	b.log.writes = append(b.log.writes, len(b.ns))
	b.log.mu.Unlock()
	for _, n := range b.ns {
		if n == b.poison {
			return fmt.Errorf("cannot take event %d", n)
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) SELECT 'test.batch', unnest($1::int[])`, pq.Array(b.ns))
	return err
}

// A read model gets a subscriber transaction's events as one batch, written
// with the acknowledgement. When the batch's write fails, nothing of it
// commits; the same messages are read again and written one by one, so the
// poison message alone is retried and set aside, the others are written
// once, and the next batch is whole again.
func TestABatchThatFailsIsWrittenOneByOneAndItsPoisonSetAside(t *testing.T) {
	e := newEnv(t)
	log := &batchLog{}
	if err := messaging.SubscribeBatches(e.bus, "test.batch", []messaging.EventKind{messaging.Takes[testEvent]()},
		func() messaging.Batch { return &scratchBatch{log: log, poison: 3} }); err != nil {
		t.Fatal(err)
	}
	// Committed before the bus starts: the first read finds all five.
	e.publish(testEvent{N: 1}, testEvent{N: 2}, testEvent{N: 3}, testEvent{N: 4}, testEvent{N: 5})
	e.start()
	eventually(t, "the four good events written", func() bool {
		return e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.batch'`) == 4
	})
	eventually(t, "the poison one set aside", func() bool {
		return e.count(`SELECT count(*) FROM platform.dead_letters WHERE consumer_group = 'test.batch'`) == 1
	})
	if n := e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.batch' AND n IN (1, 2, 4, 5)`); n != 4 {
		t.Errorf("rows of events 1, 2, 4, 5: %d, want one each", n)
	}
	var reason string
	if err := e.db.Get(&reason, `SELECT error FROM platform.dead_letters WHERE consumer_group = 'test.batch'`); err != nil || !strings.Contains(reason, "cannot take event 3") {
		t.Errorf("dead letter error %q (%v), want the write's", reason, err)
	}
	// One write of all five that failed, then each on its own: 1, 2, then
	// 3 six times (the first try and five retries), then 4 and 5.
	if got, want := fmt.Sprint(log.sizes()), "[5 1 1 1 1 1 1 1 1 1 1]"; got != want {
		t.Errorf("write sizes %s, want %s", got, want)
	}
	e.publish(testEvent{N: 6}, testEvent{N: 7})
	eventually(t, "the next events written", func() bool {
		return e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.batch'`) == 6
	})
	if sizes := log.sizes(); sizes[len(sizes)-1] != 2 {
		t.Errorf("after the poison, write sizes %v; want the next two as one batch again", sizes)
	}
}
