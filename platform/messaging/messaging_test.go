package messaging_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
	"shipd/platform/messaging/natstest"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

type testEvent struct{ N int }

func (testEvent) EventType() string   { return "test.happened" }
func (testEvent) EventStream() string { return "test.stream" }

type testCommand struct{ N int }

func (testCommand) CommandName() string   { return "test.do" }
func (testCommand) CommandStream() string { return "test.commands" }

// onEvent adds a group of one handler.
func onEvent[T any, PT interface {
	*T
	messaging.Event
}](b *messaging.Bus, group string, handle func(ctx context.Context, e PT) error) error {
	return b.AddGroup(group, messaging.On(handle))
}

// deadline is how long a test waits for what must happen: a bound on
// waiting, not a claim of speed (make bench measures that). make test runs
// packages side by side, so it is generous: 600 events through NATS by two
// instances took more than 10 s once on a loaded 2-core machine.
const deadline = 30 * time.Second

// env is one test's database, bus and outbox. Handlers are added with
// messaging.OnEvent/OnCommand on bus, then start runs the bus.
type env struct {
	t      *testing.T
	db     *sqlx.DB
	bus    *messaging.Bus
	outbox *messaging.Outbox
	nats   string // the NATS server's URL, when the bus reads the broker
	dsn    string // the database's, for another instance's connections
	// partitions is the bus's BusConfig.Partitions, and its forwarder's.
	partitions int
}

func newEnv(t *testing.T) *env { return newEnvWith(t, nil) }

// newBrokerEnv is newEnv with the bus reading its streams from a real NATS
// server, which a forwarder fills from the outbox (ADR 0032).
func newBrokerEnv(t *testing.T) *env { return newBrokerEnvOf(t, 0) }

// newBrokerEnvOf is newBrokerEnv with groups read in n partitions.
func newBrokerEnvOf(t *testing.T, n int) *env {
	t.Helper()
	ns := natstest.Start(t)
	logger := slog.New(slog.NewTextHandler(testLogOutput(), testLogLevel()))
	broker, err := messaging.ConnectBroker(ns.URL, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	e := newEnvOf(t, broker, n)
	e.nats = ns.URL
	startForwarder(t, e, ns.URL)
	return e
}

// onBothBackbones runs a scenario on the bus reading PostgreSQL and on the
// bus reading the broker.
func onBothBackbones(t *testing.T, scenario func(t *testing.T, e *env)) {
	t.Run("postgres", func(t *testing.T) { scenario(t, newEnv(t)) })
	t.Run("nats", func(t *testing.T) { scenario(t, newBrokerEnv(t)) })
}

func newEnvWith(t *testing.T, broker *messaging.Broker) *env { return newEnvOf(t, broker, 0) }

// newEnvOf is newEnvWith with groups read in n partitions.
func newEnvOf(t *testing.T, broker *messaging.Broker, n int) *env {
	t.Helper()
	ctx := t.Context()
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := messaging.InitializeStreams(ctx, db, []string{"test.stream", "test.commands"}); err != nil {
		t.Fatalf("InitializeStreams: %v", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE public.scratch (id serial PRIMARY KEY, handler text NOT NULL, n integer NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(testLogOutput(), testLogLevel()))
	bus, err := messaging.NewBus(db, messaging.BusConfig{PollInterval: 10 * time.Millisecond, Broker: broker, Partitions: n}, logger)
	if err != nil {
		t.Fatalf("NewBus: %v", err)
	}
	return &env{t: t, db: db, bus: bus, outbox: messaging.NewOutbox(messaging.WatermillLogger(logger)), dsn: dsn, partitions: n}
}

// start runs the bus until the test ends.
func (e *env) start() {
	e.t.Helper()
	runBus(e.t, e.bus)
}

// runBus runs bus until the test ends, or until the stop it returns is
// called.
func runBus(t *testing.T, bus *messaging.Bus) (stop func()) {
	t.Helper()
	return startBus(t, bus, true)
}

// startBus runs bus until the test ends or stop is called; a failure to
// close it fails the test when closeCleanly.
func startBus(t *testing.T, bus *messaging.Bus, closeCleanly bool) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bus.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := bus.Close(); err != nil && closeCleanly {
				t.Errorf("closing bus: %v", err)
			}
			cancel()
			select {
			case <-done:
			case <-time.After(deadline):
				if closeCleanly {
					t.Error("bus.Run did not return after Close")
				}
			}
		})
	}
	t.Cleanup(stop)
	select {
	case <-bus.Running():
	case err := <-done:
		t.Fatalf("bus stopped before running: %v", err)
	case <-time.After(deadline):
		t.Fatal("bus did not start")
	}
	return stop
}

func (e *env) publish(events ...messaging.Event) {
	e.t.Helper()
	ctx := e.t.Context()
	if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error { return e.outbox.Publish(ctx, tx, events...) }); err != nil {
		e.t.Fatalf("publishing: %v", err)
	}
}

func (e *env) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.GetContext(e.t.Context(), &n, query, args...); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond) // between polls of cond
	}
}

// recorder keeps what handlers saw, safely across handler goroutines.
type recorder struct {
	mu   sync.Mutex
	ns   []int
	ids  []string
	runs int
}

func (r *recorder) add(n int, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ns = append(r.ns, n)
	r.ids = append(r.ids, id)
}

func (r *recorder) seen() ([]int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ns), slices.Clone(r.ids)
}

func (r *recorder) len() int { ns, _ := r.seen(); return len(ns) }

// has reports whether an event N=n was seen.
func (r *recorder) has(n int) bool { ns, _ := r.seen(); return slices.Contains(ns, n) }

func (r *recorder) run() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs++
	return r.runs
}

func TestOutboxPublishesOnlyCommittedEvents(t *testing.T) {
	e := newEnv(t)
	var got recorder
	if err := onEvent(e.bus, "test.recorder", func(ctx context.Context, ev *testEvent) error {
		got.add(ev.N, messaging.MessageID(ctx))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.start()
	ctx := t.Context()
	const table = `public."watermill_test.stream"`

	errRollback := errors.New("the change failed")
	err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error {
		if err := e.outbox.Publish(ctx, tx, testEvent{N: 1}); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("InTx = %v, want the function's error", err)
	}
	if n := e.count(`SELECT count(*) FROM ` + table); n != 0 {
		t.Fatalf("%d rows in the topic after a rolled-back publish, want 0", n)
	}

	// The committed event comes after the rolled-back one: once it has
	// arrived, the handler has had every chance to get the other.
	e.publish(testEvent{N: 2})
	if n := e.count(`SELECT count(*) FROM ` + table); n != 1 {
		t.Fatalf("%d rows in the topic after a committed publish, want 1", n)
	}
	eventually(t, "the committed event arrives", func() bool { return got.has(2) })

	ns, msgIDs := got.seen()
	if !slices.Equal(ns, []int{2}) {
		t.Errorf("received %v, want [2]", ns)
	}
	if !strings.HasPrefix(msgIDs[0], "evt_") {
		t.Errorf("MessageID = %q, want an evt_ id", msgIDs[0])
	}
	var stored string
	if err := e.db.GetContext(ctx, &stored, `SELECT uuid FROM `+table); err != nil || stored != msgIDs[0] {
		t.Errorf("stored message uuid = %q, %v; handler saw %q", stored, err, msgIDs[0])
	}
}

func TestHandlerWritesCommitWithItsTransaction(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		if err := onEvent(e.bus, "test.writer", func(ctx context.Context, ev *testEvent) error {
			tx, err := messaging.Tx(ctx)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) VALUES ($1, $2)`, "test.writer", ev.N)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		e.start()
		e.publish(testEvent{N: 7}, testEvent{N: 8})

		eventually(t, "both rows are committed", func() bool {
			return e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.writer'`) == 2
		})
		if n := e.count(`SELECT count(*) FROM public.scratch WHERE n IN (7, 8)`); n != 2 {
			t.Errorf("rows for events 7 and 8 = %d, want 2", n)
		}
	})
}

func TestOutsideAHandler(t *testing.T) {
	ctx := context.Background()
	if _, err := messaging.Tx(ctx); err == nil {
		t.Error("Tx outside a handler succeeded")
	}
	if id := messaging.MessageID(ctx); id != "" {
		t.Errorf("MessageID outside a handler = %q", id)
	}
}

func TestFailedAttemptIsRolledBackToItsSavepoint(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		var attempts recorder
		if err := onEvent(e.bus, "test.flaky", func(ctx context.Context, ev *testEvent) error {
			tx, err := messaging.Tx(ctx)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) VALUES ('test.flaky', $1)`, ev.N); err != nil {
				return err
			}
			if attempts.run() == 1 {
				return errors.New("first attempt fails after writing")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		e.start()
		e.publish(testEvent{N: 1})

		eventually(t, "the second attempt commits", func() bool {
			return e.count(`SELECT count(*) FROM public.scratch`) > 0
		})
		if n := e.count(`SELECT count(*) FROM public.scratch`); n != 1 {
			t.Errorf("rows = %d, want 1: the failed attempt's write must not survive", n)
		}
		attempts.mu.Lock()
		runs := attempts.runs
		attempts.mu.Unlock()
		if runs != 2 {
			t.Errorf("attempts = %d, want 2", runs)
		}
	})
}

// A subscriber transaction whose connection dies (PostgreSQL restarted)
// is given up at once and the message read again in a fresh one, not
// resent into the dead transaction until the 30 s ack deadline.
func TestMessageOfADeadSubscriberTransactionIsReadAgain(t *testing.T) {
	e := newEnv(t)
	var attempts recorder
	if err := onEvent(e.bus, "test.cut", func(ctx context.Context, ev *testEvent) error {
		tx, err := messaging.Tx(ctx)
		if err != nil {
			return err
		}
		if attempts.run() == 1 {
			var pid int
			if err := tx.GetContext(ctx, &pid, `SELECT pg_backend_pid()`); err != nil {
				return err
			}
			if _, err := e.db.ExecContext(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
				return err
			}
			return errors.New("the connection was cut under this attempt")
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) VALUES ('test.cut', $1)`, ev.N)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.start()
	e.publish(testEvent{N: 1})
	eventually(t, "the message handled again in a fresh transaction", func() bool {
		return e.count(`SELECT count(*) FROM public.scratch WHERE handler = 'test.cut'`) == 1
	})
}

func TestCommandBus(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		var got recorder
		if err := messaging.OnCommand(e.bus, "test.doer", func(ctx context.Context, c *testCommand) error {
			got.add(c.N, messaging.MessageID(ctx))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		e.start()
		ctx := t.Context()
		if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error {
			return e.outbox.Send(ctx, tx, testCommand{N: 42})
		}); err != nil {
			t.Fatalf("Send: %v", err)
		}
		if n := e.count(`SELECT count(*) FROM public."watermill_test.commands"`); n != 1 {
			t.Errorf("rows on the command topic = %d, want 1", n)
		}
		eventually(t, "the command arrives", func() bool { return got.len() > 0 })
		ns, msgIDs := got.seen()
		if !slices.Equal(ns, []int{42}) || !strings.HasPrefix(msgIDs[0], "evt_") {
			t.Errorf("received %v with ids %v", ns, msgIDs)
		}
	})
}

func TestEveryConsumerGroupGetsEveryEventOnce(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *env) {
		var a, b recorder
		for name, rec := range map[string]*recorder{"test.group-a": &a, "test.group-b": &b} {
			if err := onEvent(e.bus, name, func(ctx context.Context, ev *testEvent) error {
				rec.add(ev.N, messaging.MessageID(ctx))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		e.start()
		e.publish(testEvent{N: 1}, testEvent{N: 2}, testEvent{N: 3})
		e.publish(testEvent{N: 4})

		eventually(t, "both groups receive all four", func() bool { return a.len() >= 4 && b.len() >= 4 })
		// A fifth, published now, reaches each group after the four: once
		// it has, a group that was to get one of them again has got it.
		e.publish(testEvent{N: 5})
		eventually(t, "both groups receive the fifth", func() bool { return a.has(5) && b.has(5) })

		for name, rec := range map[string]*recorder{"a": &a, "b": &b} {
			ns, msgIDs := rec.seen()
			slices.Sort(ns)
			if !slices.Equal(ns, []int{1, 2, 3, 4, 5}) {
				t.Errorf("group %s received %v, want each of 1..5 once", name, ns)
			}
			slices.Sort(msgIDs)
			if len(slices.Compact(msgIDs)) != 5 {
				t.Errorf("group %s saw message ids %v, want 5 distinct", name, msgIDs)
			}
		}
		_, idsA := a.seen()
		_, idsB := b.seen()
		slices.Sort(idsA)
		slices.Sort(idsB)
		if !slices.Equal(idsA, idsB) {
			t.Errorf("the groups saw different messages: %v vs %v", idsA, idsB)
		}
	})
}

func TestBusConfigValidate(t *testing.T) {
	if err := (messaging.BusConfig{PollInterval: -time.Second}).Validate(); err == nil {
		t.Error("negative poll interval accepted")
	}
	if err := (messaging.BusConfig{AckDeadline: -time.Second}).Validate(); err == nil {
		t.Error("negative ack deadline accepted")
	}
	if err := (messaging.BusConfig{}).Validate(); err != nil {
		t.Errorf("zero config (defaults) refused: %v", err)
	}
}

// testLogOutput is where the bus logs in tests: nowhere, unless
// SHIPD_TEST_LOG is set.
func testLogOutput() io.Writer {
	if os.Getenv("SHIPD_TEST_LOG") != "" {
		return os.Stderr
	}
	return io.Discard
}

// testLogLevel is debug with SHIPD_TEST_LOG=debug.
func testLogLevel() *slog.HandlerOptions {
	if os.Getenv("SHIPD_TEST_LOG") == "debug" {
		return &slog.HandlerOptions{Level: slog.LevelDebug}
	}
	return nil
}
