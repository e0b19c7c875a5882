package ports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	channels "shipd/modules/channels/contract"
	shipments "shipd/modules/shipments/contract"
	tracking "shipd/modules/tracking/contract"
	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/ports"
	"shipd/platform/apptest"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/messaging/natstest"
	"shipd/platform/metrics"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/secrets"
	"shipd/platform/usecase/usecasetest"
)

// fanOutBus is the webhooks module alone on a real bus over a database of
// its own: the fan-out groups as the server registers them and the delivery
// worker POSTing to real receivers. The channels stream is written by an
// outbox, as the channels module writes it; with a broker, a forwarder
// carries it to NATS and the groups read it there.
type fanOutBus struct {
	t        *testing.T
	backbone string // postgres or nats
	db       *sqlx.DB
	bus      *messaging.Bus
	outbox   *messaging.Outbox
	app      app.Application
	runs     *fanOutRuns
	worker   *ports.DeliveryWorker
}

// deadline bounds waiting for what must happen; it claims no speed.
const deadline = 30 * time.Second

// fanOutRuns is the delivery store as the fan-out sees it, remembering
// the event ids of every run it was given, failed runs included.
type fanOutRuns struct {
	command.Deliveries
	mu   sync.Mutex
	runs [][]string
}

func (r *fanOutRuns) FanOut(ctx context.Context, run []command.OutboundEvent, now time.Time) (int64, error) {
	ids := make([]string, len(run))
	for i, e := range run {
		ids[i] = e.ID
	}
	r.mu.Lock()
	r.runs = append(r.runs, ids)
	r.mu.Unlock()
	return r.Deliveries.FanOut(ctx, run, now)
}

func (r *fanOutRuns) all() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.runs...)
}

// onBothBackbones runs a scenario on the bus reading PostgreSQL and on the
// bus reading NATS.
func onBothBackbones(t *testing.T, scenario func(t *testing.T, b *fanOutBus)) {
	t.Run("postgres", func(t *testing.T) { t.Parallel(); scenario(t, newFanOutBus(t, false)) })
	t.Run("nats", func(t *testing.T) { t.Parallel(); scenario(t, newFanOutBus(t, true)) })
}

func newFanOutBus(t *testing.T, broker bool) *fanOutBus {
	t.Helper()
	db := pgtest.Open(t)
	// The module's groups read the three streams; the test writes channels'.
	streams := []string{channels.Stream, shipments.Stream, tracking.Stream}
	if err := messaging.InitializeStreams(t.Context(), db, streams); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Without a listener the bus and the delivery worker poll, often (the
	// signal of a fan-out's commit has a test of its own in adapters).
	wake, err := messaging.NewWakeup("", logger)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{WebhookTimeout: 5 * time.Second, WebhookAllowPrivateNetworks: true, WebhookConcurrency: 8,
		WorkerPollInterval: 20 * time.Millisecond, ShutdownTimeout: 5 * time.Second}
	busConfig := messaging.BusConfig{PollInterval: 10 * time.Millisecond, Wakeup: wake}
	if broker {
		ns := natstest.Start(t)
		if busConfig.Broker, err = messaging.ConnectBroker(ns.URL, logger); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(busConfig.Broker.Close)
		run(t, messaging.NewForwarder(db, busConfig, busConfig.Broker, streams, logger).Run)
	}
	bus, err := messaging.NewBus(db, busConfig, logger)
	if err != nil {
		t.Fatal(err)
	}
	box, err := secrets.NewBox("a test key of at least thirty-two characters")
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(t0)
	store := adapters.NewDeliveryStore(db, box, clk)
	runs := &fanOutRuns{Deliveries: store}
	application := app.New(adapters.NewPostgresRepository(db, box, clk), adapters.NewSubscriptionListReader(db), adapters.NewDeliveryLogReader(db),
		runs, adapters.NewHTTPSender(cfg, metrics.NewWebhookAttempts(prometheus.NewRegistry())), clk, usecasetest.Observer())
	if err := ports.NewEventHandlers(application).Register(bus); err != nil {
		t.Fatal(err)
	}
	backbone := "postgres"
	if broker {
		backbone = "nats"
	}
	return &fanOutBus{t: t, backbone: backbone, db: db, bus: bus, outbox: messaging.NewOutbox(messaging.WatermillLogger(logger)), app: application, runs: runs,
		worker: ports.NewDeliveryWorker(application, store, wake, cfg)}
}

// start runs the bus and the delivery worker until the test ends.
func (b *fanOutBus) start() {
	b.t.Helper()
	run(b.t, b.bus.Run)
	select {
	case <-b.bus.Running():
	case <-time.After(deadline):
		b.t.Fatal("the bus did not start")
	}
	run(b.t, b.worker.Run)
}

// run runs fn until the test ends.
func run(t *testing.T, fn func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(deadline):
			t.Error("a worker did not stop")
		}
	})
}

// publish writes the events to the channels stream in one transaction.
func (b *fanOutBus) publish(events ...messaging.Event) {
	b.t.Helper()
	ctx := b.t.Context()
	if err := postgres.InTx(ctx, b.db, func(tx *sqlx.Tx) error { return b.outbox.Publish(ctx, tx, events...) }); err != nil {
		b.t.Fatal(err)
	}
}

// redeliver puts the stored messages of events back at the end of the
// channels stream, for the channels fan-out alone, with their ids and
// payloads: as a message read again arrives (set aside by hand and
// retried, as an operator retries a dead letter).
func (b *fanOutBus) redeliver(eventIDs ...string) {
	b.t.Helper()
	ctx := b.t.Context()
	stored, _, err := messaging.ReadStored(ctx, b.db, []string{channels.Stream}, messaging.Window{}, messaging.Cursor{}, 1000)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, id := range eventIDs {
		for _, m := range stored {
			if m.UUID != id {
				continue
			}
			var letter int64
			if err := b.db.GetContext(ctx, &letter, `INSERT INTO platform.dead_letters (consumer_group, stream, message_uuid, name, payload, metadata, error)
				VALUES ('webhooks.fan_out.channels', $1, $2, $3, $4, $5, 'redelivered by the test') RETURNING id`,
				m.Topic, m.UUID, m.Name, m.Payload, metadataJSON(b.t, m.Metadata)); err != nil {
				b.t.Fatal(err)
			}
			if err := messaging.RetryDeadLetter(ctx, b.db, letter); err != nil {
				b.t.Fatal(err)
			}
		}
	}
}

// deadLetters are the channels fan-out's messages set aside, by id.
func (b *fanOutBus) deadLetters() []string {
	b.t.Helper()
	var ids []string
	if err := b.db.SelectContext(b.t.Context(), &ids, `SELECT message_uuid FROM platform.dead_letters
		WHERE consumer_group = 'webhooks.fan_out.channels' AND retried_at IS NULL ORDER BY id`); err != nil {
		b.t.Fatal(err)
	}
	return ids
}

// deliveryOrder waits for n attempts to be logged and returns the events
// they were made for, by the id of their delivery.
func (b *fanOutBus) deliveryOrder(n int) []string {
	b.t.Helper()
	var events []string
	apptest.Eventually(b.t, deadline, fmt.Sprint(n, " attempts logged"), func() bool {
		events = nil
		if err := b.db.SelectContext(b.t.Context(), &events, `SELECT event_id FROM webhooks.delivery_log ORDER BY delivery_id, created_at`); err != nil {
			b.t.Fatal(err)
		}
		return len(events) >= n
	})
	return events
}

func metadataJSON(t *testing.T, md map[string]string) string {
	t.Helper()
	b, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
