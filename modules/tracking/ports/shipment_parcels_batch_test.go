package ports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/adapters/carriers/sandbox"
	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/tracking/adapters"
	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/modules/tracking/ports"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"
	"shipd/platform/postgres"
	"shipd/platform/usecase/usecasetest"
)

// commandBus is the tracking module's command handlers and list read model
// on a real bus, alone on a database of their own, and the outbox the
// shipments module sends its commands through.
type commandBus struct {
	t      *testing.T
	db     *sqlx.DB
	outbox *messaging.Outbox
	app    app.Application
	queue  *adapters.CheckQueue
	now    time.Time // the clock's, which stands
}

func newCommandBus(t *testing.T) *commandBus {
	t.Helper()
	db := outboxtest.Open(t, contract.Stream, contract.CommandStream)
	clk := clock.NewManual(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))
	outbox := messaging.NewOutbox(messaging.WatermillLogger(slog.New(slog.DiscardHandler)))
	queue := adapters.NewCheckQueue(db, clk)
	chs := channelstest.New(
		channels.ChannelAccess{ID: "ch_1", AccountID: "acc_1", Name: "One", Provider: sandbox.Code, Status: "active"},
		channels.ChannelAccess{ID: "ch_2", AccountID: "acc_1", Name: "Two", Provider: sandbox.Code, Status: "active"})
	a := app.New(adapters.NewPostgresRepository(db, outbox), adapters.NewParcelListReader(db), queue, chs,
		carrier.NewRegistry(sandbox.NewWithConfig(sandbox.Config{Clock: clk})), clk, config.Config{CarrierTimeout: 5 * time.Second},
		usecasetest.Observer())
	return &commandBus{t: t, db: db, outbox: outbox, app: a, queue: queue, now: clk.Now()}
}

// start runs a bus with the module's command handlers and list read model
// until the test ends or stop is called.
func (c *commandBus) start() (stop func()) {
	t := c.t
	t.Helper()
	bus, err := messaging.NewBus(c.db, messaging.BusConfig{PollInterval: 10 * time.Millisecond}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := ports.NewCommandHandlers(c.app).Register(bus); err != nil {
		t.Fatal(err)
	}
	if err := adapters.NewParcelListProjection(c.db).Register(bus); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bus.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		_ = bus.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("bus: %v", err)
		}
	}
	t.Cleanup(stop)
	select {
	case <-bus.Running():
	case err := <-done:
		t.Fatalf("bus stopped before running: %v", err)
	}
	return stop
}

// send commits the shipments' requests to track their parcels, in order,
// in one transaction.
func (c *commandBus) send(shipments ...contract.TrackShipmentParcels) {
	c.t.Helper()
	ctx := c.t.Context()
	cmds := make([]messaging.Command, len(shipments))
	for i, s := range shipments {
		cmds[i] = s
	}
	if err := postgres.InTx(ctx, c.db, func(tx *sqlx.Tx) error { return c.outbox.Send(ctx, tx, cmds...) }); err != nil {
		c.t.Fatal(err)
	}
}

func (c *commandBus) count(query string, args ...any) int {
	c.t.Helper()
	var n int
	if err := c.db.GetContext(c.t.Context(), &n, query, args...); err != nil {
		c.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// acked is where the group tracking the shipments' parcels stands on the
// command stream.
func (c *commandBus) acked() int {
	c.t.Helper()
	return c.count(`SELECT coalesce(max(offset_acked), 0) FROM "watermill_offsets_tracking.commands"
		WHERE consumer_group = 'tracking.track_shipment_parcels'`)
}

// created is what each tracking_parcel.created on the stream made, in the
// stream's order: "<channel>/<number> <shipment>", and in how many
// transactions they were written; each parcel's first check must be due at
// once.
func (c *commandBus) created() (made []string, transactions int) {
	c.t.Helper()
	for _, m := range outboxtest.Written(c.t, c.db, contract.Stream) {
		if m.Name != contract.EventCreated {
			continue
		}
		var e contract.TrackingParcelCreated
		if err := json.Unmarshal(m.Payload, &e); err != nil {
			c.t.Fatal(err)
		}
		made = append(made, described(e.TrackingParcel.Record()))
		if next := e.TrackingParcel.NextCheckAt; next == nil || !next.Equal(c.now) {
			c.t.Errorf("%s created with its first check at %v, want at once (%v)", e.TrackingParcel.TrackingNumber, next, c.now)
		}
	}
	transactions = c.count(`SELECT count(DISTINCT transaction_id) FROM "watermill_tracking" WHERE metadata->>'name' = $1`, contract.EventCreated)
	return made, transactions
}

// parcels are the parcels stored, "<channel>/<number> <shipment>", sorted.
func (c *commandBus) parcels() []string {
	c.t.Helper()
	var out []string
	err := c.db.SelectContext(c.t.Context(), &out, `SELECT channel_id || '/' || tracking_number || ' ' || coalesce(shipment_id, '-')
		FROM tracking.parcels ORDER BY 1`)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// listed are the account's parcels as the list read model shows them,
// "<channel>/<number> <shipment>", sorted.
func (c *commandBus) listed() (out []string) {
	c.t.Helper()
	page, err := c.app.Queries.ListTrackingParcels.Handle(c.t.Context(), query.ListTrackingParcels{AccountID: "acc_1", Limit: 100})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, raw := range page.Records {
		var r contract.TrackingParcel
		if err := json.Unmarshal(raw, &r); err != nil {
			c.t.Fatal(err)
		}
		out = append(out, described(r))
	}
	slices.Sort(out)
	return out
}

func described(r contract.TrackingParcel) string {
	shipment := "-"
	if r.ShipmentID != nil {
		shipment = *r.ShipmentID
	}
	return r.ShippingChannelID + "/" + r.TrackingNumber + " " + shipment
}

func shipment(id, channel string, numbers ...string) contract.TrackShipmentParcels {
	return contract.TrackShipmentParcels{AccountID: "acc_1", ShipmentID: id, ChannelID: channel, Provider: sandbox.Code,
		TrackingNumbers: numbers, Recipient: contract.Recipient{Name: "Jana"}}
}

// eventually polls cond until it holds, for 30 s at most (a bound on
// waiting: the suite runs packages side by side).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond) // between polls of cond
	}
}

// Commands sent together are tracked as one batch, in one transaction, and
// come to what they would one after another: the first shipment naming a
// number makes its parcel, a later one in the batch or in a later batch
// keeps it, as does a parcel the client made, and the created events follow
// the commands' order. The list read model and the check schedule see the
// new parcels. Read again (redelivered), the commands make nothing more.
func TestShipmentParcelsAreTrackedABatchAtATime(t *testing.T) {
	t.Parallel()
	c := newCommandBus(t)
	ctx := t.Context()
	client := sandbox.S10("SB", "00000001", "CZ")
	if err := c.app.Commands.CreateTrackingParcel.Handle(ctx, command.CreateTrackingParcel{AccountID: "acc_1", ParcelID: "tp_client",
		Parcel: domain.Request{TrackingNumber: client, ChannelID: "ch_1"}}); err != nil {
		t.Fatal(err)
	}
	// Committed before the bus starts: the first read takes all three.
	c.send(shipment("sh_1", "ch_1", "TN1", "TN2"), shipment("sh_2", "ch_1", "TN2", client, "TN3"), shipment("sh_3", "ch_2", "TN1"))
	stop := c.start()
	first := []string{"ch_1/" + client + " -", "ch_1/TN1 sh_1", "ch_1/TN2 sh_1", "ch_1/TN3 sh_2", "ch_2/TN1 sh_3"}
	eventually(t, "the first commands applied", func() bool { return c.acked() == 3 })
	if made, transactions := c.created(); !slices.Equal(made, first) || transactions != 2 {
		t.Errorf("created %v in %d transactions, want %v in 2 (the client's, then the batch's)", made, transactions, first)
	}
	c.send(shipment("sh_4", "ch_1", "TN3", "TN4"), shipment("sh_5", "ch_1", "TN4", "TN5"))
	eventually(t, "the next commands applied", func() bool { return c.acked() == 5 })
	all := append(slices.Clone(first), "ch_1/TN4 sh_4", "ch_1/TN5 sh_5")
	if made, _ := c.created(); !slices.Equal(made, all) {
		t.Errorf("created %v, want %v", made, all)
	}
	want := slices.Sorted(slices.Values(all))
	if got := c.parcels(); !slices.Equal(got, want) {
		t.Errorf("parcels %v, want %v", got, want)
	}
	eventually(t, "the list shows every parcel", func() bool { return slices.Equal(c.listed(), want) })
	if n, err := c.queue.Due(ctx); err != nil || n != len(want) {
		t.Errorf("%d parcels due for a check (%v), want %d", n, err, len(want))
	}

	// The group reads its commands again from the stream's start, as a
	// redelivery brings them: nothing more is made.
	stop()
	if _, err := c.db.ExecContext(ctx, `UPDATE "watermill_offsets_tracking.commands" SET offset_acked = 0, last_processed_transaction_id = '0'
		WHERE consumer_group = 'tracking.track_shipment_parcels'`); err != nil {
		t.Fatal(err)
	}
	c.start()
	eventually(t, "the commands read again", func() bool { return c.acked() == 5 })
	if made, _ := c.created(); !slices.Equal(made, all) {
		t.Errorf("after the redelivery created %v, want %v alone", made, all)
	}
	if got := c.parcels(); !slices.Equal(got, want) {
		t.Errorf("after the redelivery parcels %v, want %v", got, want)
	}
}

// A command whose parcels cannot be stored (a number with a NUL byte, which
// the domain takes as the carrier gave it and PostgreSQL's text refuses)
// fails its batch: the batch's commands are read again and applied one by
// one, so it alone is retried and set aside while the others make their
// parcels once; the next commands are a batch again.
func TestAPoisonCommandIsSetAsideAndItsBatchAppliedOnce(t *testing.T) {
	t.Parallel()
	c := newCommandBus(t)
	c.send(shipment("sh_1", "ch_1", "TN1"), shipment("sh_2", "ch_1", "TN2", "TN\x00"), shipment("sh_3", "ch_1", "TN3", "TN1"))
	c.start()
	eventually(t, "the commands applied or set aside", func() bool { return c.acked() == 3 })
	if n := c.count(`SELECT count(*) FROM platform.dead_letters WHERE consumer_group = 'tracking.track_shipment_parcels'`); n != 1 {
		t.Fatalf("%d dead letters, want the poison command's", n)
	}
	var poison struct {
		Payload []byte `db:"payload"`
		Error   string `db:"error"`
	}
	if err := c.db.GetContext(t.Context(), &poison, `SELECT payload, error FROM platform.dead_letters
		WHERE consumer_group = 'tracking.track_shipment_parcels'`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(poison.Payload), `"sh_2"`) || !strings.Contains(poison.Error, "inserting tracking parcels") {
		t.Errorf("set aside %s (%s), want sh_2's command and the insert's error", poison.Payload, poison.Error)
	}
	want := []string{"ch_1/TN1 sh_1", "ch_1/TN3 sh_3"}
	made, before := c.created()
	if !slices.Equal(made, want) {
		t.Errorf("created %v, want %v (sh_2 made nothing, sh_3 kept sh_1's TN1)", made, want)
	}
	if got := c.parcels(); !slices.Equal(got, want) {
		t.Errorf("parcels %v, want %v", got, want)
	}
	var numbers []string
	for i := range 4 {
		numbers = append(numbers, fmt.Sprintf("TN%d", 10+i))
	}
	c.send(shipment("sh_4", "ch_1", numbers[:2]...), shipment("sh_5", "ch_1", numbers[2:]...))
	eventually(t, "the next commands applied", func() bool { return c.acked() == 5 })
	if made, transactions := c.created(); len(made) != 6 || transactions != before+1 {
		t.Errorf("created %v in %d transactions, want the next four in one more than %d", made, transactions, before)
	}
}
