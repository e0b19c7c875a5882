package messaging_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"shipd/platform/messaging"
)

// anotherInstance is a second bus on the env's database reading the same
// broker through a connection of its own, as another shipd instance would.
func (e *env) anotherInstance() *messaging.Bus {
	e.t.Helper()
	logger := slog.New(slog.NewTextHandler(testLogOutput(), testLogLevel()))
	broker, err := messaging.ConnectBroker(e.nats, logger)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(broker.Close)
	bus, err := messaging.NewBus(e.db, messaging.BusConfig{PollInterval: 10 * time.Millisecond, Broker: broker, Partitions: e.partitions}, logger)
	if err != nil {
		e.t.Fatal(err)
	}
	return bus
}

// insertScratch is a handler that writes the event's N in the subscriber's
// transaction, under the instance's name.
func insertScratch(instance string) func(ctx context.Context, ev *testEvent) error {
	return func(ctx context.Context, ev *testEvent) error {
		tx, err := messaging.Tx(ctx)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO public.scratch (handler, n) VALUES ($1, $2)`, instance, ev.N)
		return err
	}
}

// Two instances of a consumer group read the broker together: each message
// is applied once, in the stream's order, whichever instance takes it.
func TestTwoInstancesShareAGroupOnTheBrokerInOrderAndOnce(t *testing.T) {
	e := newBrokerEnv(t)
	second := e.anotherInstance()
	if err := onEvent(e.bus, "test.shared", insertScratch("first")); err != nil {
		t.Fatal(err)
	}
	if err := onEvent(second, "test.shared", insertScratch("second")); err != nil {
		t.Fatal(err)
	}
	e.start()
	runBus(t, second)

	const events = 600
	for n := 1; n <= events; n += 20 {
		var batch []messaging.Event
		for i := n; i < n+20; i++ {
			batch = append(batch, testEvent{N: i})
		}
		e.publish(batch...)
		time.Sleep(5 * time.Millisecond) // pacing, not waiting: writes spread over a while, as an API takes them, so both instances read while events keep coming
	}
	eventually(t, "every event is applied", func() bool {
		return e.count(`SELECT count(*) FROM public.scratch`) >= events
	})
	// One more, published now, is applied after all of them: once it is,
	// an event that was to be applied again has been.
	e.publish(testEvent{N: events + 1})
	eventually(t, "the last event is applied", func() bool {
		return e.count(`SELECT count(*) FROM public.scratch WHERE n = $1`, events+1) > 0
	})
	var applied []int
	if err := e.db.SelectContext(t.Context(), &applied, `SELECT n FROM public.scratch ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(applied) != events+1 || !slices.IsSorted(applied) || len(slices.Compact(slices.Clone(applied))) != events+1 {
		t.Errorf("applied in this order: %v; want 1..%d, each once, in order", applied, events+1)
	}
	for _, instance := range []string{"first", "second"} {
		n := e.count(`SELECT count(*) FROM public.scratch WHERE handler = $1`, instance)
		t.Logf("instance %s applied %d", instance, n)
		if n == 0 {
			t.Errorf("instance %s applied none: the group's work is not shared", instance)
		}
	}
}

// A message the broker delivers again after its group applied it (an
// acknowledgement lost in a crash of the server) is passed over.
func TestAMessageDeliveredAgainAfterItWasAppliedIsPassedOver(t *testing.T) {
	e := newBrokerEnv(t)
	if err := onEvent(e.bus, "test.once", insertScratch("first")); err != nil {
		t.Fatal(err)
	}
	stop := runBus(t, e.bus)
	e.publish(testEvent{N: 1}, testEvent{N: 2}, testEvent{N: 3})
	eventually(t, "three applied", func() bool { return e.count(`SELECT count(*) FROM public.scratch`) == 3 })
	stop()

	// The consumer forgets every acknowledgement: made again, it delivers
	// the stream from its start.
	js := jetStream(t, e.nats)
	stream := messaging.BrokerStream("test.stream")
	if err := js.DeleteConsumer(t.Context(), stream, "test_once"); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateConsumer(t.Context(), stream, jetstream.ConsumerConfig{Durable: "test_once", AckPolicy: jetstream.AckExplicitPolicy,
		MaxAckPending: 100, AckWait: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}

	restarted := e.anotherInstance()
	if err := onEvent(restarted, "test.once", insertScratch("restarted")); err != nil {
		t.Fatal(err)
	}
	runBus(t, restarted)
	e.publish(testEvent{N: 4})
	eventually(t, "the new event is applied", func() bool {
		return e.count(`SELECT count(*) FROM public.scratch WHERE n = 4`) == 1
	})
	if n := e.count(`SELECT count(*) FROM public.scratch`); n != 4 {
		var rows []string
		_ = e.db.SelectContext(t.Context(), &rows, `SELECT handler || ':' || n FROM public.scratch ORDER BY id`)
		t.Errorf("%d rows %v, want 4: the redelivered messages were applied again", n, rows)
	}
}

func jetStream(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}
