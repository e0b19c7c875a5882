package command_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/dispatch/adapters/memory"
	"shipd/modules/dispatch/adapters/repositorytest"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
	"shipd/platform/usecase/usecasetest"
)

// The app-layer tests of the dispatch commands build each handler as the
// service does (decorated) on the in-memory adapters, the channels facade
// in memory, a programmable carrier of shipd's own port (fakeDispatcher),
// a handover document that records what it was asked to draw, and a manual
// clock.

// clockStart is Monday 30 November 2026, 06:00 UTC.
var clockStart = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// carrierTimeout is short, so that a carrier that hangs costs a test
// little; an order is left behind once it is twice as old.
const carrierTimeout = 50 * time.Millisecond

const (
	account   = "acc_1"
	stranger  = "acc_2"
	channelID = "ch_1"
	tuesday   = "2026-12-01"
	wednesday = "2026-12-02"
	saturday  = "2026-12-05"
	sunday    = "2026-12-06"
)

// activeChannel is account's channel of the fake carrier.
func activeChannel() channels.ChannelAccess {
	return channels.ChannelAccess{ID: channelID, AccountID: account, Name: "Main warehouse", Provider: fakeCode, Status: "active",
		Settings: map[string]any{"apiKey": "secret"}}
}

// fixture is one set of handlers on fakes of their own.
type fixture struct {
	pickups   *memory.Pickups
	manifests *memory.Manifests
	shipments *memory.Shipments
	channels  *channelstest.Channels
	carrier   *fakeDispatcher
	documents *fakeDocuments
	clock     *clock.Manual
	// providers holds carrier (fakeCode) and a provider without pickups
	// or manifests of its own (shipperCode).
	providers *carrier.Registry

	order    usecase.CommandHandler[command.OrderPickup]
	cancel   usecase.CommandHandler[command.CancelPickup]
	resolve  usecase.CommandHandler[command.ResolvePickups]
	manifest usecase.CommandHandler[command.CreateManifest]
	release  usecase.CommandHandler[command.ReleaseManifests]
}

func newFixture() *fixture {
	f := &fixture{
		pickups:   memory.NewPickups(),
		manifests: memory.NewManifests(),
		channels:  channelstest.New(activeChannel()),
		carrier:   newFakeDispatcher(),
		documents: &fakeDocuments{},
		clock:     clock.NewManual(clockStart),
	}
	f.shipments = memory.NewShipments(f.manifests)
	f.providers = carrier.NewRegistry(f.carrier, shipperOnly{})
	obs := usecasetest.Observer()
	f.order = command.NewOrderPickupHandler(f.pickups, f.shipments, f.channels, f.providers, f.clock, carrierTimeout, obs)
	f.cancel = command.NewCancelPickupHandler(f.pickups, f.channels, f.providers, f.clock, carrierTimeout, obs)
	f.resolve = command.NewResolvePickupsHandler(f.pickups, f.shipments, f.channels, f.providers, f.clock, carrierTimeout, obs)
	f.manifest = command.NewCreateManifestHandler(f.manifests, f.shipments, f.channels, f.providers, f.documents, f.clock, carrierTimeout, obs)
	f.release = command.NewReleaseManifestsHandler(f.manifests, f.clock, carrierTimeout, obs)
	return f
}

// created puts n created shipments of account's channel in the module's
// copy, made a minute apart from clockStart, and returns them oldest
// first.
func (f *fixture) created(n int) []domain.Shipment {
	out := make([]domain.Shipment, n)
	for i := range out {
		out[i] = repositorytest.Shipment(account, channelID, clockStart.Add(time.Duration(i)*time.Minute))
		f.shipments.Put(out[i])
	}
	return out
}

// leftBehind stores account's order of a count on date under id being
// ordered, without a handle, now: what a process killed while it asked
// the carrier leaves.
func (f *fixture) leftBehind(t *testing.T, id, date string) {
	t.Helper()
	at := repositorytest.Shipment(account, channelID, clockStart)
	r := orderOf(id, date).Request
	r.Address, r.Contact = &at.Origin, &at.Sender
	p, err := pickup.New(r, pickup.Context{ID: id, AccountID: account, Provider: fakeCode, Dispatch: takesEverything,
		Windows: []domain.Window{domain.DefaultWindow}, Now: f.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.pickups.Add(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

// resolveLater moves the clock past the age of an order left behind and
// settles such orders, as the leftovers worker does.
func (f *fixture) resolveLater(t *testing.T) {
	t.Helper()
	f.clock.Advance(time.Second)
	if err := f.resolve.Handle(t.Context(), command.ResolvePickups{Limit: 10}); err != nil {
		t.Fatal(err)
	}
}

// idsOf are the shipments' ids.
func idsOf(shipments ...domain.Shipment) []string {
	out := make([]string, len(shipments))
	for i, sh := range shipments {
		out[i] = sh.ID
	}
	return out
}

// orderOf is account's order of shipments (a count and a weight when none)
// on date from 09:00 to 12:00, under id, with the address and contact
// left to their defaults.
func orderOf(id, date string, shipments ...domain.Shipment) command.OrderPickup {
	r := pickup.Request{ChannelID: channelID, Date: date, ReadyFrom: "09:00", ReadyUntil: "12:00", Note: "ring at gate B"}
	if len(shipments) == 0 {
		r.ParcelCount, r.TotalWeightKG = ptr(3), ptr(4.5)
	} else {
		r.ShipmentIDs = idsOf(shipments...)
	}
	return command.OrderPickup{AccountID: account, PickupID: id, Request: r}
}

func ptr[T any](v T) *T { return &v }

// ordered orders cmd, failing t when it is refused.
func (f *fixture) ordered(t *testing.T, cmd command.OrderPickup) pickup.Stored {
	t.Helper()
	if err := f.order.Handle(t.Context(), cmd); err != nil {
		t.Fatalf("ordering %s: %v", cmd.PickupID, err)
	}
	return f.pickup(t, cmd.PickupID)
}

// pickup is the pickup as stored.
func (f *fixture) pickup(t *testing.T, id string) pickup.Stored {
	t.Helper()
	p, err := f.pickups.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("reading %s: %v", id, err)
	}
	return p.Stored()
}

// gone fails t unless pickup id is not stored.
func (f *fixture) gone(t *testing.T, id string) {
	t.Helper()
	if p, err := f.pickups.Get(t.Context(), id); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("pickup %s is stored (%v): %+v", id, err, p)
	}
}

// events describes what the repositories published since the from-th
// event: "type v<version> <status> <id>", each checked to carry the
// account and to have occurred when its pickup or manifest was last
// changed.
func (f *fixture) events(t *testing.T, from int) []string {
	t.Helper()
	all := append(f.pickups.Published(), f.manifests.Published()...)
	var out []string
	for _, e := range all[min(from, len(all)):] {
		var (
			acc, id, status string
			version         int
			at, updated     time.Time
		)
		switch e := e.(type) {
		case contract.PickupCreated:
			acc, id, status, version, at, updated = e.AccountID, e.Pickup.ID, e.Pickup.Status, e.Version, e.OccurredAt, e.Pickup.UpdatedAt
		case contract.PickupUnconfirmed:
			acc, id, status, version, at, updated = e.AccountID, e.Pickup.ID, e.Pickup.Status, e.Version, e.OccurredAt, e.Pickup.UpdatedAt
		case contract.PickupCancelled:
			acc, id, status, version, at, updated = e.AccountID, e.Pickup.ID, e.Pickup.Status, e.Version, e.OccurredAt, e.Pickup.UpdatedAt
		case contract.ManifestCreated:
			acc, id, status, version, at, updated = e.AccountID, e.Manifest.ID, e.Manifest.Status, e.Version, e.OccurredAt, e.Manifest.UpdatedAt
		default:
			t.Fatalf("published %T, not a dispatch event", e)
		}
		if e.EventStream() != contract.Stream || acc != account || !at.Equal(updated) {
			t.Errorf("%s: stream %s, account %q, occurred at %v (updated at %v)", e.EventType(), e.EventStream(), acc, at, updated)
		}
		out = append(out, fmt.Sprintf("%s v%d %s %s", e.EventType(), version, status, id))
	}
	return out
}

// wantEvents fails t unless the events published since from are want.
func (f *fixture) wantEvents(t *testing.T, from int, want ...string) {
	t.Helper()
	if got := f.events(t, from); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// errDatabase is a failure of the store, neither a fault nor the carrier's.
var errDatabase = errors.New("connection reset by peer")

// failOn makes the repository's operation op fail with errDatabase.
func failOn(op string) func(string, string) error {
	return func(called, _ string) error {
		if called == op {
			return errDatabase
		}
		return nil
	}
}

// unavailable is a carrier that cannot be reached, as the adapters say it.
func unavailable(what string) error { return fmt.Errorf("%w: %s", carrier.ErrUnavailable, what) }

// The fake carriers.

const (
	fakeCode    = "fakedispatch"
	shipperCode = "shiponly"
)

// takesEverything is the fake carrier's dispatch unless a test changes it:
// pickups of shipments or counts, cancellable, windows asked per date, and
// its own manifest document.
var takesEverything = carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityCarrier,
	PickupShipments: carrier.PickupShipmentsOrCount, Manifest: carrier.ManifestByCarrier,
	CancelAfterManifest: carrier.CancelAfterManifestRefused}

// fakeDispatcher is a provider with carrier.Dispatcher whose answers a test
// sets. By default it offers 09:00-12:00 and 12:00-17:00 on weekdays, none
// at the weekend; confirms an order as asked under "FD-" and its key;
// resumes an order given a handle without ordering it again; cancels; and
// makes a manifest with a PDF of its own. It records every call.
type fakeDispatcher struct {
	mu       sync.Mutex
	dispatch carrier.DispatchInfo
	// onOrder answers a first order (no handle); onResume an order given
	// the handle an earlier attempt recorded.
	onOrder    func(ctx context.Context, req carrier.CourierPickupRequest) (carrier.CourierPickup, error)
	onResume   func(ctx context.Context, req carrier.CourierPickupRequest) (carrier.CourierPickup, error)
	onCancel   func(p carrier.CourierPickup) error
	onWindows  func(req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error)
	onManifest func(req carrier.ManifestRequest) (carrier.CarrierManifest, error)

	orders    []carrier.CourierPickupRequest // first orders
	resumes   []carrier.CourierPickupRequest
	cancels   []carrier.CourierPickup
	windowsOf []carrier.PickupWindowsRequest
	handovers []carrier.ManifestRequest
	settings  []carrier.Settings
}

func newFakeDispatcher() *fakeDispatcher { return &fakeDispatcher{dispatch: takesEverything} }

var _ carrier.Dispatcher = (*fakeDispatcher)(nil)

func (c *fakeDispatcher) Info() carrier.ProviderInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return carrier.ProviderInfo{Code: fakeCode, Name: "Fake Dispatch", LabelFormats: []string{"pdf"}, MaxParcels: 5, Dispatch: c.dispatch}
}

func (c *fakeDispatcher) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

// set changes what the carrier publishes of its dispatch.
func (c *fakeDispatcher) set(change func(d *carrier.DispatchInfo)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	change(&c.dispatch)
}

// program sets the carrier's answers under its lock.
func (c *fakeDispatcher) program(set func(c *fakeDispatcher)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	set(c)
}

func (c *fakeDispatcher) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	c.mu.Lock()
	c.settings = append(c.settings, s)
	on := c.onOrder
	if req.Booking.Handle != "" {
		c.resumes = append(c.resumes, req)
		on = c.onResume
	} else {
		c.orders = append(c.orders, req)
	}
	c.mu.Unlock()
	if on != nil {
		return on(ctx, req)
	}
	return carrier.CourierPickup{ConfirmationNumber: "FD-" + req.Booking.Key, Date: req.Date, ReadyFrom: req.ReadyFrom,
		ReadyUntil: req.ReadyUntil, Handle: "cancel-key-" + req.Booking.Key}, nil
}

func (c *fakeDispatcher) CancelCourierPickup(_ context.Context, s carrier.Settings, p carrier.CourierPickup) error {
	c.mu.Lock()
	c.settings = append(c.settings, s)
	c.cancels = append(c.cancels, p)
	on := c.onCancel
	c.mu.Unlock()
	if on != nil {
		return on(p)
	}
	return nil
}

func (c *fakeDispatcher) CourierPickupWindows(_ context.Context, s carrier.Settings, req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	c.mu.Lock()
	c.settings = append(c.settings, s)
	c.windowsOf = append(c.windowsOf, req)
	on := c.onWindows
	c.mu.Unlock()
	if on != nil {
		return on(req)
	}
	date, err := time.Parse(time.DateOnly, req.Date)
	if err != nil {
		return nil, carrier.Reject(carrier.PickupFieldDate, "not a date")
	}
	if wd := date.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return nil, nil
	}
	return []carrier.PickupWindow{{From: "09:00", Until: "12:00", OrderBy: "08:00"}, {From: "12:00", Until: "17:00", OrderBy: "11:00"}}, nil
}

func (c *fakeDispatcher) CreateManifest(_ context.Context, s carrier.Settings, req carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	c.mu.Lock()
	c.settings = append(c.settings, s)
	c.handovers = append(c.handovers, req)
	on := c.onManifest
	c.mu.Unlock()
	if on != nil {
		return on(req)
	}
	return carrier.CarrierManifest{Reference: "PROT-" + req.Key, Document: []byte("%PDF the carrier's protocol " + req.Key)}, nil
}

// calls counts the carrier's calls of each kind: first orders, resumed
// orders, cancels, windows, manifests.
func (c *fakeDispatcher) calls() [5]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return [5]int{len(c.orders), len(c.resumes), len(c.cancels), len(c.windowsOf), len(c.handovers)}
}

// asked returns what the carrier was asked, under its lock.
func (c *fakeDispatcher) asked() (orders, resumes []carrier.CourierPickupRequest, cancels []carrier.CourierPickup,
	windows []carrier.PickupWindowsRequest, handovers []carrier.ManifestRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.orders), slices.Clone(c.resumes), slices.Clone(c.cancels), slices.Clone(c.windowsOf), slices.Clone(c.handovers)
}

// shipperOnly is a provider without pickups or manifests of its own:
// shipd's handover document is its manifest.
type shipperOnly struct{}

func (shipperOnly) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: shipperCode, Name: "Ships only", LabelFormats: []string{"pdf"}, MaxParcels: 5,
		Dispatch: carrier.NoPickups(carrier.CancelAfterManifestAllowed, "order pickups in the carrier's portal")}
}

func (shipperOnly) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

// fakeDocuments is shipd's handover document as a test sees it: what it was
// asked to draw, and a PDF naming the manifest (or err).
type fakeDocuments struct {
	mu    sync.Mutex
	drawn []command.Handover
	err   error
}

func (d *fakeDocuments) Draw(h command.Handover) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drawn = append(d.drawn, h)
	if d.err != nil {
		return nil, d.err
	}
	return []byte("%PDF shipd's handover " + h.ManifestID), nil
}

func (d *fakeDocuments) asked() []command.Handover {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.drawn)
}
