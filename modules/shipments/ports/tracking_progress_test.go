package ports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/adapters/repositorytest"
	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/modules/shipments/ports"
	"shipd/platform/apptest"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/messaging"
	"shipd/platform/messaging/natstest"
	"shipd/platform/messaging/outboxtest"
	"shipd/platform/postgres"
	"shipd/platform/usecase/usecasetest"

	dispatch "shipd/modules/dispatch/contract"
	tracking "shipd/modules/tracking/contract"
)

// The consumer group shipments.tracking_progress on a real bus: the
// module's handler, use case and PostgreSQL repository, the tracking
// module's events published to its stream as it publishes them.

const progressGroup = "shipments.tracking_progress"

// progressEnv is a database with the shipments schema, the module's
// repository on it, and a bus running the group.
type progressEnv struct {
	t      *testing.T
	db     *sqlx.DB
	repo   *adapters.PostgresRepository
	outbox *messaging.Outbox
	bus    *messaging.Bus
	broker bool
	alias  map[string]string // shipment id → the test's name for it
}

// onBothBackbones runs scenario with the bus reading PostgreSQL and with
// the bus reading NATS JetStream, which a forwarder fills from the outbox.
func onBothBackbones(t *testing.T, scenario func(t *testing.T, e *progressEnv)) {
	t.Run("postgres", func(t *testing.T) { t.Parallel(); scenario(t, newProgressEnv(t, false)) })
	t.Run("nats", func(t *testing.T) { t.Parallel(); scenario(t, newProgressEnv(t, true)) })
}

func newProgressEnv(t *testing.T, broker bool) *progressEnv {
	t.Helper()
	db := outboxtest.Open(t, tracking.Stream, contract.Stream, tracking.CommandStream, dispatch.Stream)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := messaging.BusConfig{PollInterval: 10 * time.Millisecond}
	if broker {
		ns := natstest.Start(t)
		b, err := messaging.ConnectBroker(ns.URL, logger)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		run(t, messaging.NewForwarder(db, cfg, b, []string{tracking.Stream, dispatch.Stream}, logger).Run)
		cfg.Broker = b
	}
	bus, err := messaging.NewBus(db, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	outbox := messaging.NewOutbox(messaging.WatermillLogger(logger))
	repo := adapters.NewPostgresRepository(db, outbox, clock.Real{})
	record := command.NewRecordTrackingProgressHandler(repo, clock.Real{}, usecasetest.Observer())
	dispatchNews := command.NewRecordDispatchNewsHandler(repo, clock.Real{}, usecasetest.Observer())
	if err := ports.NewEventHandlers(app.Application{Commands: app.Commands{RecordTrackingProgress: record, RecordDispatchNews: dispatchNews}}).Register(bus); err != nil {
		t.Fatal(err)
	}
	return &progressEnv{t: t, db: db, repo: repo, outbox: outbox, bus: bus, broker: broker, alias: map[string]string{}}
}

// run runs a worker until the test ends.
func run(t *testing.T, work func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = work(ctx); close(done) }() // what it did is what the test checks
	t.Cleanup(func() { cancel(); <-done })
}

// start runs the bus until the test ends.
func (e *progressEnv) start() {
	e.t.Helper()
	run(e.t, e.bus.Run)
	e.t.Cleanup(func() { _ = e.bus.Close() })
	select {
	case <-e.bus.Running():
	case <-time.After(time.Minute):
		e.t.Fatal("the bus did not start")
	}
}

// booked adds a shipment of two parcels the carrier created, known to the
// test as name.
func (e *progressEnv) booked(name string) string {
	e.t.Helper()
	sh := repositorytest.Shipment(e.t, false)
	ctx := e.t.Context()
	if err := e.repo.Add(ctx, sh); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
		return nil, sh.Booked("P-"+name, []string{"TN1", "TN2"}, nil, domain.Label{Format: "pdf", MIMEType: "application/pdf", Data: []byte("%PDF")}, time.Now())
	}); err != nil {
		e.t.Fatal(err)
	}
	e.alias[sh.ID()] = name
	return sh.ID()
}

// news is tracking_parcel.updated of a parcel of shipment (none: "").
func news(shipment, parcel string, status carrier.TrackingStatus, version int) messaging.Event {
	snap := tracking.TrackingParcelSnapshot{ID: parcel, TrackingNumber: "TN-" + parcel, Status: string(status)}
	if shipment != "" {
		snap.ShipmentID = &shipment
	}
	return tracking.TrackingParcelUpdated{TrackingParcelEvent: tracking.TrackingParcelEvent{AccountID: "acc_1", Version: version,
		OccurredAt: time.Now(), TrackingParcel: snap}}
}

// publish writes news to the tracking stream in one transaction, as the
// tracking module's checker records a run of checks.
func (e *progressEnv) publish(events ...messaging.Event) {
	e.t.Helper()
	ctx := e.t.Context()
	if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error { return e.outbox.Publish(ctx, tx, events...) }); err != nil {
		e.t.Fatal(err)
	}
}

// published describes the shipment events tracking news led to, in the
// order of the stream: "<name> <type> v<version> <previous>><status>", and
// the transactions that wrote them.
func (e *progressEnv) published() (out []string, txs []uint64) {
	e.t.Helper()
	var cur messaging.Cursor
	for {
		msgs, next, err := messaging.ReadStored(e.t.Context(), e.db, []string{contract.Stream}, messaging.Window{}, cur, 500)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Name != contract.EventUpdated && m.Name != contract.EventStatusChanged {
				continue
			}
			var ev struct {
				contract.ShipmentEvent
				PreviousStatus string `json:"previous_status"`
			}
			if err := json.Unmarshal(m.Payload, &ev); err != nil {
				e.t.Fatal(err)
			}
			move := ev.Shipment.Status
			if ev.PreviousStatus != "" {
				move = ev.PreviousStatus + ">" + move
			}
			out = append(out, fmt.Sprintf("%s %s v%d %s", e.alias[ev.Shipment.ID], strings.TrimPrefix(m.Name, "shipment."), ev.Version, move))
			txs = append(txs, m.TxID)
		}
		if len(msgs) < 500 {
			return out, txs
		}
		cur = next
	}
}

// awaitPublished waits until n shipment events were published and
// returns them.
func (e *progressEnv) awaitPublished(n int) []string {
	e.t.Helper()
	var got []string
	apptest.Eventually(e.t, time.Minute, fmt.Sprintf("%d shipment events", n), func() bool {
		got, _ = e.published()
		return len(got) >= n
	})
	return got
}

// transactions counts the transactions that wrote the events from the
// i-th on.
func (e *progressEnv) transactions(from int) int {
	_, txs := e.published()
	return len(slices.Compact(txs[from:]))
}

func wantEvents(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("shipment events\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// A batch of news applies each shipment's news in the order of the stream,
// within a batch and across batches, as recording them one by one would:
// a shipment that moves twice in one batch publishes both moves with
// rising versions, and news read again (redelivered), late news, news of
// a shipment gone and of a parcel of no shipment change nothing. A batch
// is written in one transaction.
func TestTrackingNewsIsRecordedInStreamOrderOnce(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *progressEnv) {
		a, b := e.booked("a"), e.booked("b")
		first := []messaging.Event{
			news(a, "tp_1", carrier.StatusCreated, 1),
			news(b, "tp_3", carrier.StatusInTransit, 2),
			news(a, "tp_1", carrier.StatusInTransit, 2),
			news("sh_gone", "tp_9", carrier.StatusInTransit, 2),
			news(a, "tp_1", carrier.StatusDelivered, 3),
			news("", "tp_8", carrier.StatusDelivered, 2),
			news(a, "tp_2", carrier.StatusDelivered, 2),
		}
		// Committed before the bus starts: its first batch holds them all.
		e.publish(first...)
		e.start()
		want := []string{
			"a updated v3 created",
			"b updated v3 shipped", "b status_changed v3 created>shipped",
			"a updated v4 shipped", "a status_changed v4 created>shipped",
			"a updated v5 shipped",
			"a updated v6 delivered", "a status_changed v6 shipped>delivered",
		}
		wantEvents(t, e.awaitPublished(len(want)), want)
		if n := e.transactions(0); !e.broker && n != 1 {
			t.Errorf("the first batch was written in %d transactions, want 1", n)
		}
		// The first batch again, b's news and an older one among it.
		second := append(slices.Clone(first), news(b, "tp_3", carrier.StatusDelivered, 3), news(b, "tp_3", carrier.StatusInTransit, 2),
			news(b, "tp_4", carrier.StatusDelivered, 2))
		e.publish(second...)
		want = append(want, "b updated v4 shipped", "b updated v5 delivered", "b status_changed v5 shipped>delivered")
		wantEvents(t, e.awaitPublished(len(want)), want)
		// Whatever else might come would come before a last news.
		e.publish(news(b, "tp_4", carrier.StatusDelivered, 3))
		want = append(want, "b updated v6 delivered")
		wantEvents(t, e.awaitPublished(len(want)), want)
		got, _ := e.published()
		wantEvents(t, got, want)
	})
}

// A news that cannot be recorded (its shipment's stored state is one this
// code cannot read) in the middle of a batch fails the batch; the batch is
// read again and recorded news by news, so that news alone is set aside
// with the reason, and the others are recorded once. The next batch is
// written whole again.
func TestAPoisonNewsIsSetAsideAndTheRestRecordedOnce(t *testing.T) {
	onBothBackbones(t, func(t *testing.T, e *progressEnv) {
		a, p, b := e.booked("a"), e.booked("p"), e.booked("b")
		if _, err := e.db.Exec(`UPDATE shipments.shipments SET state = jsonb_set(state, '{version}', '"two"') WHERE id = $1`, p); err != nil {
			t.Fatal(err)
		}
		e.publish(
			news(a, "tp_1", carrier.StatusInTransit, 2),
			news(b, "tp_3", carrier.StatusInTransit, 2),
			news(p, "tp_5", carrier.StatusInTransit, 2),
			news(a, "tp_1", carrier.StatusDelivered, 3),
			news(b, "tp_3", carrier.StatusDelivered, 3),
		)
		e.start()
		apptest.Eventually(t, time.Minute, "the poison news set aside", func() bool {
			var n int
			if err := e.db.Get(&n, `SELECT count(*) FROM platform.dead_letters WHERE consumer_group = $1`, progressGroup); err != nil {
				t.Fatal(err)
			}
			return n == 1
		})
		var reason string
		if err := e.db.Get(&reason, `SELECT error FROM platform.dead_letters WHERE consumer_group = $1`, progressGroup); err != nil ||
			!strings.Contains(reason, p) {
			t.Errorf("set aside for %q (%v), want the unreadable shipment named", reason, err)
		}
		want := []string{
			"a updated v3 shipped", "a status_changed v3 created>shipped",
			"b updated v3 shipped", "b status_changed v3 created>shipped",
			"a updated v4 shipped",
			"b updated v4 shipped",
		}
		wantEvents(t, e.awaitPublished(len(want)), want)
		e.publish(news(a, "tp_2", carrier.StatusDelivered, 2), news(b, "tp_4", carrier.StatusDelivered, 2))
		want = append(want, "a updated v5 delivered", "a status_changed v5 shipped>delivered",
			"b updated v5 delivered", "b status_changed v5 shipped>delivered")
		wantEvents(t, e.awaitPublished(len(want)), want)
		if n := e.transactions(6); !e.broker && n != 1 {
			t.Errorf("the batch after the poison was written in %d transactions, want 1", n)
		}
	})
}
