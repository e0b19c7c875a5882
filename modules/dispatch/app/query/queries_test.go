package query_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/dispatch/adapters/memory"
	"shipd/modules/dispatch/adapters/repositorytest"
	"shipd/modules/dispatch/app"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/app/query"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
	"shipd/platform/usecase/usecasetest"
)

// The queries run as the service runs them (app.NewWith, decorated) on the
// in-memory adapters, channelstest and a fake carrier that answers windows
// and orders.

// clockStart is Monday 30 November 2026, 06:00 UTC.
var clockStart = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

const (
	account   = "acc_1"
	stranger  = "acc_2"
	channelID = "ch_1"
	fakeCode  = "fakedispatch"
)

type fixture struct {
	app       app.Application
	pickups   *memory.Pickups
	manifests *memory.Manifests
	shipments *memory.Shipments
	channels  *channelstest.Channels
	carrier   *fakeCarrier
}

func newFixture() *fixture {
	f := &fixture{pickups: memory.NewPickups(), manifests: memory.NewManifests(),
		carrier: &fakeCarrier{windows: []carrier.PickupWindow{{From: "09:00", Until: "12:00", OrderBy: "08:00"}}},
		channels: channelstest.New(channels.ChannelAccess{ID: channelID, AccountID: account, Name: "Main", Provider: fakeCode,
			Status: "active", Settings: map[string]any{}})}
	f.shipments = memory.NewShipments(f.manifests)
	f.carrier.dispatch = carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityCarrier,
		PickupShipments: carrier.PickupShipmentsOrCount, Manifest: carrier.ManifestByCarrier}
	f.app = app.NewWith(app.Dependencies{Pickups: f.pickups, Manifests: f.manifests, Shipments: f.shipments,
		Lists: memory.NewLists(f.pickups, f.manifests), Channels: f.channels,
		Providers: carrier.NewRegistry(f.carrier, noDispatch{}), Documents: documents{}, Clock: clock.NewManual(clockStart),
		CarrierTimeout: 50 * time.Millisecond}, usecasetest.Observer())
	return f
}

// scheduled orders a pickup of a count through the commands.
func (f *fixture) scheduled(t *testing.T, id, date string) {
	t.Helper()
	f.shipments.Put(repositorytest.Shipment(account, channelID, clockStart))
	if err := f.app.Commands.OrderPickup.Handle(t.Context(), command.OrderPickup{AccountID: account, PickupID: id,
		Request: pickup.Request{ChannelID: channelID, Date: date, ReadyFrom: "09:00", ReadyUntil: "12:00",
			ParcelCount: ptr(1), TotalWeightKG: ptr(1.0)}}); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// A pickup is read as its record from the write model, the account's
// only; a manifest likewise, and its document once it is created.
func TestGetPickupAndManifest(t *testing.T) {
	t.Parallel()
	f := newFixture()
	ctx := t.Context()
	f.scheduled(t, "pck_1", "2026-12-01")
	got, err := f.app.Queries.GetPickup.Handle(ctx, query.GetPickup{AccountID: account, ID: "pck_1"})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := f.pickups.Get(ctx, "pck_1")
	if !reflect.DeepEqual(got, command.PickupSnapshot(p.Stored()).Record()) || got.Status != "scheduled" || *got.ConfirmationNumber != "FD-pck_1" {
		t.Errorf("record %+v", got)
	}
	_, err = f.app.Queries.GetPickup.Handle(ctx, query.GetPickup{AccountID: stranger, ID: "pck_1"})
	faulttest.WantKind(t, err, fault.KindForbidden)
	_, err = f.app.Queries.GetPickup.Handle(ctx, query.GetPickup{AccountID: account, ID: "pck_2"})
	faulttest.WantKind(t, err, fault.KindNotFound)

	sh := repositorytest.Shipment(account, channelID, clockStart)
	m, err := manifest.New(manifest.Request{ChannelID: channelID, ShipmentIDs: []string{sh.ID}}, manifest.Context{ID: "mnf_1",
		AccountID: account, Provider: fakeCode, Shipments: []domain.Shipment{sh}, Named: true, Now: clockStart})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.manifests.Add(ctx, m); err != nil {
		t.Fatal(err)
	}
	rec, err := f.app.Queries.GetManifest.Handle(ctx, query.GetManifest{AccountID: account, ID: "mnf_1"})
	if err != nil || rec.Status != "creating" || rec.ShipmentCount != 1 {
		t.Errorf("a manifest being created: %+v (%v)", rec, err)
	}
	_, err = f.app.Queries.ManifestDocument.Handle(ctx, query.ManifestDocument{AccountID: account, ID: "mnf_1"})
	if fe, _ := fault.As(err); fe == nil || fe.Kind != fault.KindConflict || fe.Code != "manifest_not_created" {
		t.Errorf("the document of a manifest being created: %v", err)
	}
	f.shipments.Put(repositorytest.Shipment(account, channelID, clockStart))
	if err := f.app.Commands.CreateManifest.Handle(ctx, command.CreateManifest{AccountID: account, ManifestID: "mnf_2",
		Request: manifest.Request{ChannelID: channelID}}); err != nil {
		t.Fatal(err)
	}
	doc, err := f.app.Queries.ManifestDocument.Handle(ctx, query.ManifestDocument{AccountID: account, ID: "mnf_2"})
	if err != nil || doc.FileName != "manifest-mnf_2.pdf" || string(doc.Data) != "%PDF the carrier's" {
		t.Errorf("document %q %q (%v)", doc.FileName, doc.Data, err)
	}
	for _, q := range []query.ManifestDocument{{AccountID: stranger, ID: "mnf_2"}, {AccountID: account, ID: "mnf_3"}} {
		_, err := f.app.Queries.ManifestDocument.Handle(ctx, q)
		_, gerr := f.app.Queries.GetManifest.Handle(ctx, query.GetManifest(q))
		want := fault.KindForbidden
		if q.ID == "mnf_3" {
			want = fault.KindNotFound
		}
		if !fault.Is(err, want) || !fault.Is(gerr, want) {
			t.Errorf("%+v: %v, %v", q, err, gerr)
		}
	}

	usecasetest.WantPage(t, "pickups", f.app.Queries.ListPickups, query.ListPickups{AccountID: account, Limit: 10},
		func(p contract.Pickup) string { return p.ID }, []string{"pck_1"}, 1)
	usecasetest.WantPage(t, "manifests", f.app.Queries.ListManifests, query.ListManifests{AccountID: account, Limit: 10},
		func(m contract.Manifest) string { return m.ID }, []string{"mnf_2"}, 1)
}

// A channel's pickup availability answers the channel in the path first
// (404, 403, 409 when it is not active), then the date, then a provider
// without pickups; the windows are the carrier's where it says (asked at
// the channel's newest shipment's origin), shipd's defaults where it does
// not, and a carrier that cannot be reached is 503.
func TestPickupAvailability(t *testing.T) {
	t.Parallel()
	ask := func(f *fixture, channel, date string) (query.Availability, error) {
		return f.app.Queries.PickupAvailability.Handle(context.Background(),
			query.PickupAvailability{AccountID: account, ChannelID: channel, Date: date})
	}
	t.Run("the channel first", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		_, err := ask(f, "ch_2", "yesterday")
		faulttest.WantKind(t, err, fault.KindNotFound)
		channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.AccountID = stranger })(f.channels)
		_, err = ask(f, channelID, "yesterday")
		faulttest.WantKind(t, err, fault.KindForbidden)
		channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.AccountID, ch.Status = account, "invalid" })(f.channels)
		_, err = ask(f, channelID, "yesterday")
		if fe, _ := fault.As(err); fe == nil || fe.Kind != fault.KindConflict || fe.Code != "channel_not_active" {
			t.Errorf("a channel not active: %v", err)
		}
		channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Status = "active" })(f.channels)
		_, err = ask(f, channelID, "2026-11-01")
		faulttest.WantFields(t, err, map[string]string{"date": "must not be in the past"})
		channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Provider = "nodispatch" })(f.channels)
		_, err = ask(f, channelID, "2026-12-01")
		faulttest.WantFields(t, err, map[string]string{"shipping_channel_id": "uses provider nodispatch, which takes no courier pickups"})
		if f.carrier.asked() != 0 {
			t.Errorf("the carrier was asked %d times", f.carrier.asked())
		}
	})
	t.Run("the carrier's or shipd's windows", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		newest := repositorytest.Shipment(account, channelID, clockStart.Add(time.Hour))
		newest.Origin.CityName = "Ostrava"
		f.shipments.Put(repositorytest.Shipment(account, channelID, clockStart), newest)
		got, err := ask(f, channelID, "2026-12-01")
		want := query.Availability{ShippingChannelID: channelID, Date: "2026-12-01", Source: "carrier",
			Windows: []carrier.PickupWindow{{From: "09:00", Until: "12:00", OrderBy: "08:00"}}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("availability %+v (%v), want %+v", got, err, want)
		}
		if at := f.carrier.lastAddress(); at != newest.Origin {
			t.Errorf("the carrier was asked at %+v, want the newest shipment's origin", at)
		}
		f.carrier.set(func(c *fakeCarrier) { c.windowsErr = carrier.ErrNotOffered })
		got, err = ask(f, channelID, "2026-12-01")
		want = query.Availability{ShippingChannelID: channelID, Date: "2026-12-01", Source: "channel_defaults",
			Windows: []carrier.PickupWindow{{From: "08:00", Until: "18:00"}}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("availability %+v (%v), want %+v", got, err, want)
		}
		got, err = ask(f, channelID, "2026-12-05")
		if err != nil || got.Windows == nil || len(got.Windows) != 0 || got.Source != "channel_defaults" {
			t.Errorf("a Saturday's defaults: %+v (%v), want no window (a list)", got, err)
		}
		f.carrier.set(func(c *fakeCarrier) { c.windowsErr, c.windows = nil, nil })
		got, err = ask(f, channelID, "2026-12-01")
		if err != nil || got.Windows == nil || len(got.Windows) != 0 || got.Source != "carrier" {
			t.Errorf("a carrier without windows: %+v (%v), want none (a list)", got, err)
		}
		f.carrier.set(func(c *fakeCarrier) { c.windowsErr = carrier.ErrUnavailable })
		_, err = ask(f, channelID, "2026-12-01")
		faulttest.WantKind(t, err, fault.KindUnavailable)
	})
}

// fakeCarrier offers 09:00-12:00 (order by 08:00) unless told otherwise,
// and confirms an order under "FD-" and its key; its manifest is a PDF of
// its own.
type fakeCarrier struct {
	mu         sync.Mutex
	dispatch   carrier.DispatchInfo
	windows    []carrier.PickupWindow
	windowsErr error
	asks       []carrier.PickupWindowsRequest
}

func (c *fakeCarrier) set(change func(c *fakeCarrier)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	change(c)
}

func (c *fakeCarrier) asked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asks)
}

func (c *fakeCarrier) lastAddress() carrier.Address {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asks[len(c.asks)-1].Address
}

func (c *fakeCarrier) Info() carrier.ProviderInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return carrier.ProviderInfo{Code: fakeCode, Name: "Fake", Dispatch: c.dispatch}
}

func (c *fakeCarrier) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

func (c *fakeCarrier) OrderCourierPickup(_ context.Context, _ carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	return carrier.CourierPickup{ConfirmationNumber: "FD-" + req.Booking.Key}, nil
}

func (c *fakeCarrier) CancelCourierPickup(context.Context, carrier.Settings, carrier.CourierPickup) error {
	return nil
}

func (c *fakeCarrier) CourierPickupWindows(_ context.Context, _ carrier.Settings, req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asks = append(c.asks, req)
	if c.windowsErr != nil {
		return nil, c.windowsErr
	}
	return c.windows, nil
}

func (c *fakeCarrier) CreateManifest(context.Context, carrier.Settings, carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	return carrier.CarrierManifest{Reference: "P-1", Document: []byte("%PDF the carrier's")}, nil
}

// noDispatch is a provider without pickups or manifests of its own.
type noDispatch struct{}

func (noDispatch) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: "nodispatch", Name: "No dispatch", Dispatch: carrier.NoPickups(carrier.CancelAfterManifestAllowed, "")}
}

func (noDispatch) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

// documents draws shipd's handover document as a PDF naming the manifest.
type documents struct{}

func (documents) Draw(h command.Handover) ([]byte, error) {
	return []byte("%PDF shipd " + h.ManifestID), nil
}
