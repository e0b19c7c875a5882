package messaging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"shipd/platform/messaging"
	"shipd/platform/messaging/natstest"
)

// brokerMessages reads every message JetStream keeps of stream, in order.
func brokerMessages(t *testing.T, url, stream string) []*jetstream.RawStreamMsg {
	return natstest.Messages(t, url, messaging.BrokerStream(stream))
}

// startForwarder runs a forwarder of the env's streams to the NATS server at
// url until the test ends.
func startForwarder(t *testing.T, e *env, url string) *messaging.Broker {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(testLogOutput(), testLogLevel()))
	broker, err := messaging.ConnectBroker(url, logger)
	if err != nil {
		t.Fatal(err)
	}
	fw := messaging.NewForwarder(e.db, messaging.BusConfig{PollInterval: 10 * time.Millisecond, Partitions: e.partitions}, broker, []string{"test.stream", "test.commands"}, logger)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fw.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("forwarder: %v", err)
			}
		case <-time.After(deadline):
			t.Error("the forwarder did not stop")
		}
		broker.Close()
	})
	return broker
}

// awaitOnBroker waits until the event N=last is on the broker and returns
// every message of test.stream there. The forwarder moves a stream in
// order, so a test publishes last after the events it checks, to know that
// none of those is still to come.
func awaitOnBroker(t *testing.T, url string, last int) []*jetstream.RawStreamMsg {
	t.Helper()
	var got []*jetstream.RawStreamMsg
	eventually(t, fmt.Sprintf("event %d on the broker", last), func() bool {
		got = brokerMessages(t, url, "test.stream")
		for _, m := range got {
			var ev testEvent
			if json.Unmarshal(m.Data, &ev) == nil && ev.N == last {
				return true
			}
		}
		return false
	})
	return got
}

// Every event of a stream reaches its JetStream stream in the order it was
// committed, with its id and event type, once.
func TestTheForwarderMovesEachStreamToTheBrokerInOrder(t *testing.T) {
	e := newEnv(t)
	ns := natstest.Start(t)
	startForwarder(t, e, ns.URL)
	for i := range 20 {
		e.publish(testEvent{N: i})
	}
	var got []*jetstream.RawStreamMsg
	eventually(t, "20 events on the broker", func() bool {
		got = brokerMessages(t, ns.URL, "test.stream")
		return len(got) >= 20
	})
	// A 21st, published now, is forwarded after everything before it: once
	// it is there, nothing earlier is still to come.
	e.publish(testEvent{N: 20})
	got = awaitOnBroker(t, ns.URL, 20)
	if len(got) != 21 {
		t.Fatalf("%d messages on the broker, want 21", len(got))
	}
	ids := map[string]bool{}
	for i, m := range got {
		var e testEvent
		if err := json.Unmarshal(m.Data, &e); err != nil || e.N != i {
			t.Fatalf("message %d is %s (%v), want N=%d: out of order", i, m.Data, err, i)
		}
		if m.Subject != "shipd.test.stream" || m.Header.Get("name") != "test.happened" {
			t.Fatalf("message %d: subject %q, event type %q", i, m.Subject, m.Header.Get("name"))
		}
		id := m.Header.Get(jetstream.MsgIDHeader)
		if id == "" || ids[id] {
			t.Fatalf("message %d has id %q, empty or seen before", i, id)
		}
		ids[id] = true
	}
}

// With the broker down, writes still commit (the outbox) and the broker is
// said to be unreachable; once it is back every event reaches it, once.
func TestEventsWaitInTheOutboxWhileTheBrokerIsDown(t *testing.T) {
	e := newEnv(t)
	ns := natstest.Start(t)
	broker := startForwarder(t, e, ns.URL)
	e.publish(testEvent{N: 0})
	eventually(t, "the first event on the broker", func() bool { return len(brokerMessages(t, ns.URL, "test.stream")) == 1 })

	ns.Stop()
	eventually(t, "the broker said to be unreachable", func() bool { return broker.Problem() != "" })
	for i := 1; i <= 10; i++ {
		e.publish(testEvent{N: i}) // commits: nothing waits for the broker
	}
	ns.Restart()
	eventually(t, "every event on the broker", func() bool { return len(brokerMessages(t, ns.URL, "test.stream")) >= 11 })
	if p := broker.Problem(); p != "" {
		t.Errorf("broker back, yet: %s", p)
	}
	e.publish(testEvent{N: 11}) // forwarded after the others: see awaitOnBroker
	got := awaitOnBroker(t, ns.URL, 11)
	if len(got) != 12 {
		t.Fatalf("%d messages on the broker, want 12 (each once)", len(got))
	}
	for i, m := range got {
		var ev testEvent
		if err := json.Unmarshal(m.Data, &ev); err != nil || ev.N != i {
			t.Fatalf("message %d is %s, want N=%d", i, m.Data, i)
		}
	}
}

// A consumer group's lag on the broker counts what it has not acknowledged
// yet, the message in hand included, and comes back to nothing.
func TestBrokerLagCountsWhatAGroupHasNotHandled(t *testing.T) {
	e := newBrokerEnv(t)
	release := make(chan struct{})
	var got recorder
	if err := onEvent(e.bus, "test.slow", func(ctx context.Context, ev *testEvent) error {
		<-release
		got.add(ev.N, messaging.MessageID(ctx))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.start()
	for i := range 3 {
		e.publish(testEvent{N: i})
	}
	lagOf := func() messaging.ConsumerLag {
		lags, err := e.bus.BrokerLag(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lags {
			if l.Group == "test.slow" {
				return l
			}
		}
		return messaging.ConsumerLag{}
	}
	eventually(t, "three events waiting for the group", func() bool { return lagOf().Messages == 3 })
	if l := lagOf(); l.Stream != "test.stream" || l.Seconds <= 0 {
		t.Errorf("lag %+v, want test.stream with the oldest event's age", l)
	}
	close(release)
	eventually(t, "the group caught up", func() bool { return got.len() == 3 && lagOf().Messages == 0 })
	if l := lagOf(); l.Seconds != 0 {
		t.Errorf("no lag left, yet the oldest waiting event is %.3f s old", l.Seconds)
	}
}
