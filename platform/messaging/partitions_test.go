package messaging_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// keyedEvent is the Seq-th event of aggregate Key.
type keyedEvent struct{ Key, Seq int }

func (keyedEvent) EventType() string      { return "test.keyed" }
func (keyedEvent) EventStream() string    { return "test.stream" }
func (e keyedEvent) PartitionKey() string { return fmt.Sprintf("key-%d", e.Key) }

// n is how the event is recorded in public.scratch.
func (e keyedEvent) n() int { return e.Key*1000 + e.Seq }

// recordKeyed writes the event in the subscriber's transaction, under the
// instance's name.
func recordKeyed(instance string) func(ctx context.Context, ev *keyedEvent) error {
	return func(ctx context.Context, ev *keyedEvent) error {
		tx, err := messaging.Tx(ctx)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) VALUES ($1, $2)`, instance, ev.n())
		return err
	}
}

// publishKeyed publishes the events seq from..to of keys 1..keys, ten
// keys' a transaction, pacing the writes a little as an API takes them.
func (e *env) publishKeyed(keys, from, to int) {
	e.t.Helper()
	for seq := from; seq <= to; seq++ {
		for first := 1; first <= keys; first += 10 {
			var batch []messaging.Event
			for k := first; k < first+10 && k <= keys; k++ {
				batch = append(batch, keyedEvent{Key: k, Seq: seq})
			}
			e.publish(batch...)
			time.Sleep(2 * time.Millisecond) // pacing, not waiting: both instances read while events keep coming
		}
	}
}

// checkEachKeyInOrderOnce fails unless public.scratch holds seq 1..seqs of
// every key 1..keys once, each key's in order of their writes.
func (e *env) checkEachKeyInOrderOnce(keys, seqs int) {
	e.t.Helper()
	var applied []int
	if err := e.db.SelectContext(e.t.Context(), &applied, `SELECT n FROM public.scratch ORDER BY id`); err != nil {
		e.t.Fatal(err)
	}
	byKey := map[int][]int{}
	for _, n := range applied {
		byKey[n/1000] = append(byKey[n/1000], n%1000)
	}
	for k := 1; k <= keys; k++ {
		want := make([]int, seqs)
		for i := range want {
			want[i] = i + 1
		}
		if !slices.Equal(byKey[k], want) {
			e.t.Errorf("key %d applied as %v; want 1..%d, each once, in order", k, byKey[k], seqs)
		}
	}
	if len(applied) != keys*seqs {
		e.t.Errorf("%d applied; want %d", len(applied), keys*seqs)
	}
}

// offsetsRows is the consumer groups' rows in test.stream's offsets table.
func (e *env) offsetsRows() []string {
	e.t.Helper()
	var groups []string
	if err := e.db.SelectContext(e.t.Context(), &groups, `SELECT consumer_group FROM "watermill_offsets_test.stream" ORDER BY 1`); err != nil {
		e.t.Fatal(err)
	}
	return groups
}

// A partition reads its keys' messages only, and an idle partition's
// offset follows the stream's end: every message is applied once, and
// once none is left each partition's offset is the stream's last message.
func TestPartitionsReadTheirKeysAndIdleOnesFollowTheStreamsEnd(t *testing.T) {
	e := newEnvOf(t, nil, 4)
	if err := onEvent(e.bus, "test.part", recordKeyed("only")); err != nil {
		t.Fatal(err)
	}
	e.start()
	e.publishKeyed(30, 1, 5)
	// One key's messages after the others': three partitions have none.
	for seq := 6; seq <= 25; seq++ {
		e.publish(keyedEvent{Key: 1, Seq: seq})
	}
	eventually(t, "every event is applied", func() bool { return e.count(`SELECT count(*) FROM public.scratch`) >= 30*5+20 })
	eventually(t, "every partition's offset at the stream's last message", func() bool {
		return e.count(`SELECT count(*) FROM "watermill_offsets_test.stream" o, (SELECT transaction_id, "offset" FROM "watermill_test.stream"
			ORDER BY transaction_id DESC, "offset" DESC LIMIT 1) last
			WHERE o.consumer_group LIKE 'test.part#%' AND (o.last_processed_transaction_id, o.offset_acked) = (last.transaction_id, last."offset")`) == 4
	})
	if got, want := e.offsetsRows(), []string{"test.part#0", "test.part#1", "test.part#2", "test.part#3"}; !slices.Equal(got, want) {
		t.Errorf("offsets rows %v; want %v", got, want)
	}
	if n := e.count(`SELECT count(*) FROM public.scratch`); n != 30*5+20 {
		t.Errorf("%d applied; want %d: a message was applied by two partitions", n, 30*5+20)
	}
}

// A group that read unpartitioned goes on in partitions from where it
// stood: nothing it applied is applied again, nothing after it is skipped,
// and its old row makes way for the partitions'.
func TestPartitionsStartWhereTheUnpartitionedGroupStood(t *testing.T) {
	e := newEnvOf(t, nil, 1)
	if err := onEvent(e.bus, "test.upgrade", recordKeyed("before")); err != nil {
		t.Fatal(err)
	}
	stop := runBus(t, e.bus)
	e.publishKeyed(10, 1, 3)
	eventually(t, "the first events are applied", func() bool { return e.count(`SELECT count(*) FROM public.scratch`) == 30 })
	stop()
	if got := e.offsetsRows(); !slices.Equal(got, []string{"test.upgrade"}) {
		t.Errorf("one partition's offsets rows %v; want the group's own", got)
	}
	e.publishKeyed(10, 4, 6)

	partitioned, err := messaging.NewBus(e.db, messaging.BusConfig{PollInterval: 10 * time.Millisecond, Partitions: 4}, slog.New(slog.NewTextHandler(testLogOutput(), testLogLevel())))
	if err != nil {
		t.Fatal(err)
	}
	if err := onEvent(partitioned, "test.upgrade", recordKeyed("after")); err != nil {
		t.Fatal(err)
	}
	runBus(t, partitioned)
	eventually(t, "the later events are applied", func() bool { return e.count(`SELECT count(*) FROM public.scratch`) >= 60 })
	if n := e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'after' AND n % 1000 <= 3`); n != 0 {
		t.Errorf("the partitions applied %d events the group had applied", n)
	}
	e.checkEachKeyInOrderOnce(10, 6)
	if got, want := e.offsetsRows(), []string{"test.upgrade#0", "test.upgrade#1", "test.upgrade#2", "test.upgrade#3"}; !slices.Equal(got, want) {
		t.Errorf("offsets rows %v; want %v", got, want)
	}
}

// killableInstance is another instance of the env's bus, on connections of
// its own (and a broker connection of its own): kill ends them all at once,
// as a crash of its process would, with no graceful close.
func (e *env) killableInstance(name string) (bus *messaging.Bus, kill func()) {
	e.t.Helper()
	logger := slog.New(slog.NewTextHandler(testLogOutput(), testLogLevel()))
	app := "test-instance-" + name
	db, err := postgres.Open(e.t.Context(), withApplicationName(e.dsn, app), postgres.Pool{})
	if err != nil {
		e.t.Fatal(err)
	}
	var broker *messaging.Broker
	if e.nats != "" {
		if broker, err = messaging.ConnectBroker(e.nats, logger); err != nil {
			e.t.Fatal(err)
		}
	}
	bus, err = messaging.NewBus(db, messaging.BusConfig{PollInterval: 10 * time.Millisecond, Broker: broker, Partitions: e.partitions}, logger)
	if err != nil {
		e.t.Fatal(err)
	}
	kill = func() {
		if broker != nil {
			broker.Close()
		}
		go db.Close() // refuses new connections; waits for the ones in use, which are ended next
		end := time.Now().Add(deadline)
		for e.count(`SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app) > 0 {
			if time.Now().After(end) {
				e.t.Fatal("the killed instance's connections did not end")
			}
			e.count(`SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t`, app)
			time.Sleep(10 * time.Millisecond) // between two rounds of ending its connections
		}
	}
	return bus, kill
}

func withApplicationName(dsn, name string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("application_name", name)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(dsn) + " application_name=" + name
}

// Two instances share a partitioned group: each applies a fair part of it,
// every aggregate's messages are applied once and in order, and when one
// instance dies mid-load the other takes its partitions over, losing
// nothing and keeping each aggregate's order.
func TestTwoInstancesSplitAGroupsPartitionsAndOneTakesOverFromTheOther(t *testing.T) {
	onBothBackbones4 := func(t *testing.T, scenario func(t *testing.T, e *env)) {
		t.Run("postgres", func(t *testing.T) { scenario(t, newEnvOf(t, nil, 4)) })
		t.Run("nats", func(t *testing.T) { scenario(t, newBrokerEnvOf(t, 4)) })
	}
	onBothBackbones4(t, func(t *testing.T, e *env) {
		const keys = 40
		second, kill := e.killableInstance("second")
		if err := onEvent(e.bus, "test.shared", recordKeyed("first")); err != nil {
			t.Fatal(err)
		}
		if err := onEvent(second, "test.shared", recordKeyed("second")); err != nil {
			t.Fatal(err)
		}
		e.start()
		startBus(t, second, false) // killed, it may fail to close

		// Each key's events both instances read: enough batches that each
		// partition changes hands several times (readers waiting for a lock
		// take it in turn, so a partition read in 3 batches splits 2 to 1,
		// the 65 % line, whoever starts first; in 10, 6 to 4 at worst).
		const shared = 100
		e.publishKeyed(keys, 1, shared)
		eventually(t, "the first events are applied", func() bool { return e.count(`SELECT count(*) FROM public.scratch`) >= keys*shared })
		for _, instance := range []string{"first", "second"} {
			n := e.count(`SELECT count(*) FROM public.scratch WHERE handler = $1`, instance)
			t.Logf("instance %s applied %d of %d", instance, n, keys*shared)
			if n > keys*shared*65/100 {
				t.Errorf("instance %s applied %d of %d: more than 65 %%", instance, n, keys*shared)
			}
		}

		e.publishKeyed(keys, shared+1, shared+5)
		kill()
		killed := time.Now()
		e.publishKeyed(keys, shared+6, shared+15)
		eventually(t, "every event is applied after the kill", func() bool { return e.count(`SELECT count(*) FROM public.scratch`) >= keys*(shared+15) })
		t.Logf("the last event applied %s after the kill", time.Since(killed).Round(time.Millisecond))
		// One more, after all of them: once it is applied, an event that
		// was to be applied again has been.
		e.publish(keyedEvent{Key: keys + 1, Seq: 1})
		eventually(t, "the last event is applied", func() bool {
			return e.count(`SELECT count(*) FROM public.scratch WHERE n = $1`, (keys+1)*1000+1) > 0
		})
		if _, err := e.db.ExecContext(t.Context(), `DELETE FROM public.scratch WHERE n = $1`, (keys+1)*1000+1); err != nil {
			t.Fatal(err)
		}
		e.checkEachKeyInOrderOnce(keys, shared+15)
	})
}
