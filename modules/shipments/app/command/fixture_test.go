package command_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/shipments/adapters/memory"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/usecase"
	"shipd/platform/usecase/usecasetest"
)

// The app-layer tests of the shipments commands build each handler as the
// service does (decorated) on the in-memory repository and channels facade,
// a programmable carrier (fakeCarrier), a label merger and a manual clock.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// carrierTimeout is short, so that a carrier that hangs costs a test little;
// no carrier call of the other tests comes near it.
const carrierTimeout = 50 * time.Millisecond

const (
	account = "acc_1"
	// stranger is another account, which may touch none of account's shipments.
	stranger = "acc_2"
)

// activeChannel is account's channel of the fake carrier, with no setting
// that picks a product or a label format.
func activeChannel() channels.ChannelAccess {
	return channels.ChannelAccess{ID: "ch_1", AccountID: account, Name: "Fake", Provider: fakeCode, Status: "active",
		Settings: map[string]any{"clientId": "id", "clientSecret": "secret"}}
}

// fixture is one set of handlers on fakes of their own.
type fixture struct {
	repo     *memory.Repository
	channels *channelstest.Channels
	carrier  *fakeCarrier
	labels   *fakeMerger
	clock    *clock.Manual

	create usecase.CommandHandler[command.CreateShipment]
	book   usecase.CommandHandler[command.BookShipment]
	update usecase.CommandHandler[command.UpdateShipment]
	delete usecase.CommandHandler[command.DeleteShipment]
	cancel usecase.CommandHandler[command.CancelShipment]
	track  usecase.CommandHandler[command.RecordTrackingProgress]
}

func newFixture() *fixture {
	f := &fixture{
		repo:     memory.NewRepository(),
		channels: channelstest.New(activeChannel()),
		carrier:  newFakeCarrier(fakeInfo()),
		labels:   &fakeMerger{},
		clock:    clock.NewManual(t0),
	}
	// Beside the fake carrier: one without cash on delivery, and one that
	// only tracks parcels.
	noCOD := fakeInfo()
	noCOD.Code, noCOD.SupportsCOD = noCODCode, false
	providers := carrier.NewRegistry(f.carrier, newFakeCarrier(noCOD), trackerOnly{})
	obs := usecasetest.Observer()
	f.create = command.NewCreateShipmentHandler(f.repo, f.channels, providers, f.clock, obs)
	f.book = command.NewBookShipmentHandler(f.repo, f.channels, providers, f.labels, f.clock, carrierTimeout, obs)
	f.update = command.NewUpdateShipmentHandler(f.repo, f.clock, obs)
	f.delete = command.NewDeleteShipmentHandler(f.repo, f.clock, obs)
	f.cancel = command.NewCancelShipmentHandler(f.repo, f.channels, providers, f.clock, carrierTimeout, obs)
	f.track = command.NewRecordTrackingProgressHandler(f.repo, f.clock, obs)
	return f
}

// request is a valid shipment of n parcels on account's channel, as the
// HTTP port hands it over.
func request(id string, n int) command.CreateShipment {
	req := domain.Request{
		ChannelID: "ch_1", ReferenceNumber: "ORDER-" + id, ShippingDate: "2026-11-03",
		Sender:      &domain.Contact{CompanyName: "Sender s.r.o.", EmailAddress: "s@example.com", PhoneNumber: "+420987654321"},
		Recipient:   &domain.Contact{FirstName: "Jana", LastName: "Nová", EmailAddress: "jana@example.com", PhoneNumber: "+420123456789"},
		Origin:      &domain.Address{StreetName: "Main", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		Destination: &domain.Address{StreetName: "Side", HouseNumber: "2", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"},
		Metadata:    map[string]any{"order": id},
	}
	for i := range n {
		req.Parcels = append(req.Parcels, domain.Parcel{ParcelType: "package", LengthDimension: 30, WidthDimension: 20,
			HeightDimension: float64(10 + i), DimensionUnit: "CM", WeightAmount: 1.5, WeightUnit: "KG"})
	}
	return command.CreateShipment{AccountID: account, ShipmentID: id, Shipment: req}
}

// cod is the cash on delivery withCOD asks for, in minor units.
var cod = carrier.Money{Minor: 15000, Currency: "CZK"}

// withCOD asks for cash on delivery of 150 CZK, as a client writes it.
func withCOD(c *command.CreateShipment) {
	amount, currency := 150.0, "CZK"
	c.Shipment.CODAmount, c.Shipment.CODCurrency = &amount, &currency
}

// created makes a pending shipment through the create use case.
func (f *fixture) created(t *testing.T, cmd command.CreateShipment) string {
	t.Helper()
	if err := f.create.Handle(t.Context(), cmd); err != nil {
		t.Fatalf("creating %s: %v", cmd.ShipmentID, err)
	}
	return cmd.ShipmentID
}

// booked makes a shipment of n parcels the carrier created, through the
// create and book use cases.
func (f *fixture) booked(t *testing.T, id string, n int) string {
	t.Helper()
	f.created(t, request(id, n))
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: id}); err != nil {
		t.Fatalf("booking %s: %v", id, err)
	}
	if st := f.state(t, id); st.Status != domain.StatusCreated {
		t.Fatalf("booking %s left it %s", id, st.Status)
	}
	return id
}

// state is the shipment as stored.
func (f *fixture) state(t *testing.T, id string) domain.Stored {
	t.Helper()
	sh, err := f.repo.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("reading %s: %v", id, err)
	}
	return sh.Stored()
}

// events describes what the repository published since the n-th event:
// "type v<version> <status>", with "<previous>><status>" for a status
// change, each checked to carry account and to have occurred when its
// snapshot was last changed.
func (f *fixture) events(t *testing.T, from int) []string {
	t.Helper()
	var out []string
	for _, e := range f.repo.Published()[from:] {
		var se contract.ShipmentEvent
		desc := ""
		switch e := e.(type) {
		case contract.ShipmentRequested:
			se = e.ShipmentEvent
		case contract.ShipmentCreated:
			se = e.ShipmentEvent
		case contract.ShipmentUpdated:
			se = e.ShipmentEvent
		case contract.ShipmentDeleted:
			se = e.ShipmentEvent
		case contract.ShipmentStatusChanged:
			se, desc = e.ShipmentEvent, e.PreviousStatus+">"
		default:
			t.Fatalf("published %T, not a shipments event", e)
		}
		if e.EventStream() != contract.Stream || se.AccountID != account || !se.OccurredAt.Equal(se.Shipment.UpdatedAt) || se.Shipment.ID == "" {
			t.Errorf("%s: stream %s, account %q, occurred at %v (shipment updated at %v), shipment %q",
				e.EventType(), e.EventStream(), se.AccountID, se.OccurredAt, se.Shipment.UpdatedAt, se.Shipment.ID)
		}
		out = append(out, fmt.Sprintf("%s v%d %s%s", e.EventType(), se.Version, desc, se.Shipment.Status))
	}
	return out
}

// lastSnapshot is the shipment as the last event published shows it.
func (f *fixture) lastSnapshot(t *testing.T) contract.ShipmentSnapshot {
	t.Helper()
	all := f.repo.Published()
	if len(all) == 0 {
		t.Fatal("nothing published")
	}
	switch e := all[len(all)-1].(type) {
	case contract.ShipmentRequested:
		return e.Shipment
	case contract.ShipmentCreated:
		return e.Shipment
	case contract.ShipmentUpdated:
		return e.Shipment
	case contract.ShipmentDeleted:
		return e.Shipment
	case contract.ShipmentStatusChanged:
		return e.Shipment
	}
	t.Fatalf("published %T", all[len(all)-1])
	return contract.ShipmentSnapshot{}
}

// The fake carrier.

const (
	fakeCode  = "fake"
	noCODCode = "nocod"
)

// fakeInfo describes a carrier of up to 5 parcels a shipment, printing pdf
// and zpl, with products that cover each way cash on delivery goes:
// STANDARD switches to STANDARD_COD, EXPRESS carries it itself (and takes
// at most 2 parcels), ECONOMY has none, LETTER takes one parcel.
func fakeInfo() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: fakeCode, Name: "Fake carrier",
		Settings: []carrier.Setting{
			{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true},
			{Key: "productType", Type: carrier.TypeString, Default: "STANDARD"},
		},
		ProductTypes: []carrier.ProductType{
			{Code: "ECONOMY", Name: "Economy"},
			{Code: "STANDARD", Name: "Standard", CODProduct: "STANDARD_COD", SupportsCOD: true},
			{Code: "EXPRESS", Name: "Express", SupportsCOD: true, MaxParcels: 2},
			{Code: "LETTER", Name: "Letter", MaxParcels: 1},
			{Code: "POINT", Name: "To a pickup point", PickupPoint: carrier.PickupPointRequired},
		},
		LabelFormats: []string{"pdf", "zpl"},
		SupportsCOD:  true,
		MaxParcels:   5,
	}
}

// fakeCarrier is a carrier.Shipper whose answers a test sets. By default it
// books every shipment: provider id P-<reference>, tracking numbers TN<i>,
// a price of 4.90 EUR and a label per parcel ("label <i>").
type fakeCarrier struct {
	info carrier.ProviderInfo

	mu       sync.Mutex
	onCreate func(ctx context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error)
	onLabels func(ctx context.Context, ref carrier.ShipmentRef, format string) ([]carrier.Label, error)
	onCancel func(ctx context.Context, ref carrier.ShipmentRef) error
	calls    []string // "create", "labels", "cancel", in order
	requests []carrier.ShipmentRequest
	refs     []carrier.ShipmentRef // of labels and cancel calls
	settings []carrier.Settings
}

func newFakeCarrier(info carrier.ProviderInfo) *fakeCarrier {
	return &fakeCarrier{info: info}
}

func (c *fakeCarrier) Info() carrier.ProviderInfo { return c.info }

func (c *fakeCarrier) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

func (c *fakeCarrier) record(call string, s carrier.Settings) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, call)
	c.settings = append(c.settings, s)
}

func (c *fakeCarrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	c.record("create", s)
	c.mu.Lock()
	c.requests = append(c.requests, req)
	on := c.onCreate
	c.mu.Unlock()
	if on != nil {
		return on(ctx, req)
	}
	return bookedAnswer(req, true), nil
}

// bookedAnswer is the default booking of req, with its labels or without.
func bookedAnswer(req carrier.ShipmentRequest, withLabels bool) carrier.CreatedShipment {
	out := carrier.CreatedShipment{ProviderShipmentID: "P-" + req.Reference, Price: &carrier.Money{Minor: 490, Currency: "EUR"}}
	for i := range req.Parcels {
		out.TrackingNumbers = append(out.TrackingNumbers, fmt.Sprintf("TN%d", i+1))
		if withLabels {
			out.Labels = append(out.Labels, carrier.Label{Format: req.LabelFormat, Data: fmt.Appendf(nil, "label %d", i+1)})
		}
	}
	return out
}

func (c *fakeCarrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	c.record("labels", s)
	c.mu.Lock()
	c.refs = append(c.refs, ref)
	on := c.onLabels
	c.mu.Unlock()
	if on != nil {
		return on(ctx, ref, format)
	}
	out := make([]carrier.Label, len(ref.TrackingNumbers))
	for i, tn := range ref.TrackingNumbers {
		out[i] = carrier.Label{Format: format, Data: []byte("fetched " + tn)}
	}
	return out, nil
}

func (c *fakeCarrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	c.record("cancel", s)
	c.mu.Lock()
	c.refs = append(c.refs, ref)
	on := c.onCancel
	c.mu.Unlock()
	if on != nil {
		return on(ctx, ref)
	}
	return nil
}

// Calls lists the calls the carrier got, in order.
func (c *fakeCarrier) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

// trackerOnly is a provider that tracks parcels and ships none.
type trackerOnly struct{}

const trackerOnlyCode = "trackonly"

func (trackerOnly) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: trackerOnlyCode, Name: "Tracks only", LabelFormats: []string{"pdf"}, MaxParcels: 5}
}

func (trackerOnly) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

func (trackerOnly) Track(context.Context, carrier.Settings, carrier.TrackingRequest) (carrier.Tracking, error) {
	return carrier.Tracking{}, nil
}

// unavailable is a carrier that cannot be reached, as the adapters say it.
func unavailable(what string) error { return fmt.Errorf("%w: %s", carrier.ErrUnavailable, what) }

// fakeMerger joins labels with "|"; err, when set, is its only answer.
type fakeMerger struct {
	mu  sync.Mutex
	err error
}

func (m *fakeMerger) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = err
}

func (m *fakeMerger) Merge(format string, parts [][]byte) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	return append([]byte(format+":"), bytes.Join(parts, []byte("|"))...), nil
}

func (m *fakeMerger) MIMEType(format string) string { return "test/" + format }

var _ command.LabelMerger = (*fakeMerger)(nil)

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
