package pickup_test

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/faulttest"
	"shipd/platform/ids"
)

var (
	fields = faulttest.Fields
	one    = faulttest.One
)

func ptr[T any](v T) *T { return &v }

// t0 is Monday 30 November 2026, 06:00 UTC (Sunday the 29th in UTC−12).
var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

const tuesday = "2026-12-01"

var (
	address = carrier.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"}
	contact = carrier.Contact{CompanyName: "Acme s.r.o.", Email: "ship@acme.test", Phone: "+420111222333"}
	// offered are the windows of the tests' carrier on every date.
	offered = []domain.Window{{From: 9 * 60, Until: 12 * 60}, {From: 12 * 60, Until: 17 * 60}}
	takes   = carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityCarrier,
		PickupShipments: carrier.PickupShipmentsOrCount, Manifest: carrier.ManifestByShipd}
)

// request is a whole order of a count and a weight.
func request() pickup.Request {
	a, c := address, contact
	return pickup.Request{ChannelID: "ch_1", Date: tuesday, ReadyFrom: "09:00", ReadyUntil: "12:00", Address: &a, Contact: &c,
		ParcelCount: ptr(2), TotalWeightKG: ptr(3.5), Note: "ring at gate B"}
}

// shipment is a created shipment of acc_1's ch_1 of parcels weighing kg
// each.
func shipment(id string, kg ...float64) domain.Shipment {
	sh := domain.Shipment{ID: id, AccountID: "acc_1", ChannelID: "ch_1", Status: "created", Sender: contact, Origin: address}
	for _, w := range kg {
		sh.Parcels = append(sh.Parcels, carrier.Parcel{Type: "package", Weight: w, WeightUnit: "KG"})
		sh.TrackingNumbers = append(sh.TrackingNumbers, "TN-"+id)
	}
	return sh
}

// context is what New is told of r: every shipment it names in the form
// of an id known as a created one of one parcel of 1 kg, the tests'
// carrier's windows.
func context(r pickup.Request) pickup.Context {
	known := map[string]domain.Shipment{}
	for _, id := range r.ShipmentIDs {
		if domain.IsShipmentID(id) {
			known[id] = shipment(id, 1)
		}
	}
	return pickup.Context{ID: "pck_1", AccountID: "acc_1", Provider: "fake", Dispatch: takes, Shipments: known,
		Windows: offered, Now: t0}
}

func shipmentIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = ids.New(ids.Shipment)
	}
	return out
}

// Every rule of a request's own, with its path and the message the API
// answers: Check says it before any channel is looked at, and New the
// same.
func TestRequestRules(t *testing.T) {
	a, b := ids.New(ids.Shipment), ids.New(ids.Shipment)
	badWeight := one("total_weight_kg", "must be more than 0 and at most 10000")
	tests := []struct {
		name   string
		change func(r *pickup.Request)
		want   map[string][]string // nil: passes
	}{
		{"a count and a weight", func(*pickup.Request) {}, nil},
		{"counts at their lower bounds", func(r *pickup.Request) { r.ParcelCount, r.TotalWeightKG = ptr(1), ptr(0.001) }, nil},
		{"counts at their upper bounds", func(r *pickup.Request) { r.ParcelCount, r.TotalWeightKG = ptr(999), ptr(10000.0) }, nil},
		{"shipments", func(r *pickup.Request) { r.ShipmentIDs, r.ParcelCount, r.TotalWeightKG = []string{a, b}, nil, nil }, nil},
		{"shipments and counts", func(r *pickup.Request) { r.ShipmentIDs = []string{a, b} }, nil},
		{"500 shipments", func(r *pickup.Request) { r.ShipmentIDs, r.ParcelCount = shipmentIDs(500), nil }, nil},
		{"no address or contact: the defaults", func(r *pickup.Request) { r.Address, r.Contact = nil, nil }, nil},
		{"no note", func(r *pickup.Request) { r.Note = "" }, nil},
		{"no channel", func(r *pickup.Request) { r.ChannelID = "" }, one("shipping_channel_id", "is required")},
		{"no date", func(r *pickup.Request) { r.Date = "" }, one("date", "is required")},
		{"a past date", func(r *pickup.Request) { r.Date = "2026-11-28" }, one("date", "must not be in the past (today is 2026-11-29)")},
		{"a date too far", func(r *pickup.Request) { r.Date = "2027-11-30" }, one("date", "must be at most 60 days ahead")},
		{"no window", func(r *pickup.Request) { r.ReadyFrom, r.ReadyUntil = "", "" },
			map[string][]string{"ready_from": {"is required"}, "ready_until": {"is required"}}},
		{"a window backwards", func(r *pickup.Request) { r.ReadyFrom, r.ReadyUntil = "12:00", "09:00" },
			one("ready_until", "must be later than ready_from")},
		{"a window in another form", func(r *pickup.Request) { r.ReadyFrom = "9am" }, one("ready_from", "must be a time of day HH:MM")},
		{"an address given without a country", func(r *pickup.Request) { r.Address.CountryCode = "" },
			one("address.country_code", "is required")},
		{"a contact given without a phone", func(r *pickup.Request) { r.Contact.Phone = "" },
			one("contact.phone_number", "is required")},
		{"a note of 501", func(r *pickup.Request) { r.Note = long(501) },
			one("note", "must be at most 500 characters")},
		{"no shipment ids", func(r *pickup.Request) { r.ShipmentIDs, r.ParcelCount, r.TotalWeightKG = []string{}, nil, nil },
			one("shipment_ids", "must have at least 1 item, or be left out for a parcel_count and total_weight_kg")},
		{"a shipment named twice", func(r *pickup.Request) { r.ShipmentIDs, r.ParcelCount = []string{a, b, a}, nil },
			one("shipment_ids.2", "repeats shipment_ids.0")},
		{"not a shipment's id", func(r *pickup.Request) { r.ShipmentIDs = []string{a, ids.New(ids.Pickup), "sh_1"} },
			map[string][]string{"shipment_ids.1": {"must be a shipment id (sh_...)"}, "shipment_ids.2": {"must be a shipment id (sh_...)"}}},
		{"501 shipments", func(r *pickup.Request) { r.ShipmentIDs, r.ParcelCount = shipmentIDs(501), nil }, one("shipment_ids", "must have at most 500 items")},
		{"no parcels", func(r *pickup.Request) { r.ParcelCount = ptr(0) }, one("parcel_count", "must be from 1 to 999")},
		{"1000 parcels", func(r *pickup.Request) { r.ParcelCount = ptr(1000) }, one("parcel_count", "must be from 1 to 999")},
		{"weightless", func(r *pickup.Request) { r.TotalWeightKG = ptr(0.0) }, badWeight},
		{"a weight below nothing", func(r *pickup.Request) { r.TotalWeightKG = ptr(-1.0) }, badWeight},
		{"a weight over 10 t", func(r *pickup.Request) { r.TotalWeightKG = ptr(10000.001) }, badWeight},
		{"a weight of NaN", func(r *pickup.Request) { r.TotalWeightKG = ptr(math.NaN()) }, badWeight},
		{"an infinite weight", func(r *pickup.Request) { r.TotalWeightKG = ptr(math.Inf(1)) }, badWeight},
		{"neither shipments nor counts", func(r *pickup.Request) { r.ParcelCount, r.TotalWeightKG = nil, nil },
			map[string][]string{"parcel_count": {"is required when no shipment_ids are given"},
				"total_weight_kg": {"is required when no shipment_ids are given"}}},
		{"every problem at once", func(r *pickup.Request) {
			*r = pickup.Request{ReadyFrom: "10:00", ReadyUntil: "10:00", Contact: &carrier.Contact{}, ShipmentIDs: []string{"x"}, ParcelCount: ptr(1000)}
		}, map[string][]string{"shipping_channel_id": {"is required"}, "date": {"is required"}, "ready_until": {"must be later than ready_from"},
			"contact.company_name": {"is required when the contact names no person"}, "contact.phone_number": {"is required"},
			"shipment_ids.0": {"must be a shipment id (sh_...)"}, "parcel_count": {"must be from 1 to 999"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request()
			tt.change(&r)
			if got := fields(t, r.Check(t0)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Check = %v, want %v", got, tt.want)
			}
			c := context(r)
			c.DefaultAddress, c.DefaultContact = ptr(address), ptr(contact)
			p, err := pickup.New(r, c)
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) || (err == nil) != (p != nil) {
				t.Errorf("New = %v, want %v", got, tt.want)
			}
		})
	}
}

func long(n int) string { return string(slices.Repeat([]rune{'é'}, n)) }

// A carrier without pickups refuses every order on the channel, saying why
// where its provider says; one that collects named shipments only refuses
// an order of counts.
func TestNewRefusesWhatTheCarrierDoesNotTake(t *testing.T) {
	c := context(request())
	c.Dispatch = carrier.NoPickups(carrier.CancelAfterManifestAllowed, "")
	_, err := pickup.New(request(), c)
	faulttest.WantFields(t, err, map[string]string{"shipping_channel_id": "uses provider fake, which takes no courier pickups through its API"})
	if got := fields(t, err)["shipping_channel_id"][0]; got != "uses provider fake, which takes no courier pickups through its API" {
		t.Errorf("without a note: %q", got)
	}
	c.Dispatch.Note = "order pickups in the carrier's portal"
	_, err = pickup.New(request(), c)
	if got := fields(t, err); !reflect.DeepEqual(got, one("shipping_channel_id",
		"uses provider fake, which takes no courier pickups through its API: order pickups in the carrier's portal")) {
		t.Errorf("with a note: %v", got)
	}
	c = context(request())
	c.Dispatch.PickupShipments = carrier.PickupNamesShipments
	_, err = pickup.New(request(), c)
	if got := fields(t, err); !reflect.DeepEqual(got, one("shipment_ids", "is required: provider fake collects named shipments only")) {
		t.Errorf("counts to a carrier of named shipments: %v", got)
	}
}

// Each shipment named must be one the module knows, of the account's
// channel, created at the carrier; each other one is refused on its index,
// saying why, and a parcel count below the named shipments' parcels is
// refused.
func TestNewRefusesShipmentsItCannotCollect(t *testing.T) {
	ok, unknown, theirs, elsewhere, cancelled, pending :=
		ids.New(ids.Shipment), ids.New(ids.Shipment), ids.New(ids.Shipment), ids.New(ids.Shipment), ids.New(ids.Shipment), ids.New(ids.Shipment)
	r := request()
	r.ShipmentIDs = []string{ok, unknown, theirs, elsewhere, cancelled, pending}
	r.ParcelCount = ptr(2)
	c := context(r)
	delete(c.Shipments, unknown)
	sh := c.Shipments[theirs]
	sh.AccountID = "acc_2"
	c.Shipments[theirs] = sh
	sh = c.Shipments[elsewhere]
	sh.ChannelID = "ch_2"
	c.Shipments[elsewhere] = sh
	sh = c.Shipments[cancelled]
	sh.Status = "cancelled"
	c.Shipments[cancelled] = sh
	sh = c.Shipments[pending]
	sh.Status = "pending"
	c.Shipments[pending] = sh
	c.Windows = nil // judged only once the rest is whole
	p, err := pickup.New(r, c)
	if got, want := fields(t, err), map[string][]string{
		"shipment_ids.1": {"does not name a shipment this module knows (a shipment created at its carrier moments ago may not be known yet: try again)"},
		"shipment_ids.2": {"is a shipment of another account"},
		"shipment_ids.3": {"is a shipment of another shipping channel (ch_2)"},
		"shipment_ids.4": {"is cancelled"},
		"shipment_ids.5": {"is not created at the carrier yet (its status is pending)"},
		"parcel_count":   {"must be at least the 5 parcels of the shipments named"},
	}; !reflect.DeepEqual(got, want) || p != nil {
		t.Errorf("New = %v, want %v", got, want)
	}
}

// A pickup of shipments counts their parcels and weight (to the gram) unless
// the order gives its own; the address and contact default to what the
// context says, checked and trimmed as if given, or are refused when
// nothing says them.
func TestNewCountsAndDefaults(t *testing.T) {
	a, b := ids.New(ids.Shipment), ids.New(ids.Shipment)
	r := request()
	r.ShipmentIDs, r.ParcelCount, r.TotalWeightKG, r.Address, r.Contact = []string{a, b}, nil, nil, nil, nil
	c := context(r)
	c.Shipments[a], c.Shipments[b] = shipment(a, 1.2344, 0.0003), shipment(b, 2)
	defaultAddress, defaultContact := address, contact
	defaultAddress.PostalCode, defaultAddress.CountryCode, defaultContact.Email = " 110 00 ", "cz", " ship@acme.test "
	c.DefaultAddress, c.DefaultContact = &defaultAddress, &defaultContact
	p, err := pickup.New(r, c)
	if err != nil {
		t.Fatal(err)
	}
	wantAddress := address
	wantAddress.PostalCode = "110 00"
	if s := p.Stored(); s.ParcelCount != 3 || s.TotalWeightKG != 3.235 || s.Address != wantAddress || s.Contact != contact {
		t.Errorf("counted %d parcels of %v kg, at %+v, asking for %+v", s.ParcelCount, s.TotalWeightKG, s.Address, s.Contact)
	}

	r.ParcelCount, r.TotalWeightKG = ptr(7), ptr(12.34567)
	p, err = pickup.New(r, context(r))
	if err == nil {
		t.Fatalf("no defaults: %+v", p.Stored())
	}
	faulttest.WantFields(t, err, map[string]string{
		"address": "is required: no shipment of this channel names an origin address to default to",
		"contact": "is required: no shipment of this channel names a sender to default to"})
	c = context(r)
	c.DefaultAddress, c.DefaultContact = ptr(address), ptr(contact)
	c.DefaultAddress.HouseNumber, c.DefaultContact.Phone = "", "+420\n1"
	_, err = pickup.New(r, c)
	if got := fields(t, err); !reflect.DeepEqual(got, map[string][]string{"address.house_number": {"is required"},
		"contact.phone_number": {`must not contain control characters or line breaks (found '\n')`}}) {
		t.Errorf("defaults with problems: %v", got)
	}
	c.DefaultAddress, c.DefaultContact = ptr(address), ptr(contact)
	p, err = pickup.New(r, c)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Stored(); s.ParcelCount != 7 || s.TotalWeightKG != 12.346 {
		t.Errorf("given counts kept as %d parcels of %v kg", s.ParcelCount, s.TotalWeightKG)
	}
}

// The window must lie within one the carrier offers on the date, saying
// which; a date without any is refused on date. Both are judged only once
// the rest of the order is whole.
func TestNewRefusesAWindowNotOffered(t *testing.T) {
	for _, tc := range []struct {
		from, until string
		windows     []domain.Window
		want        map[string][]string
	}{
		{"09:00", "12:00", offered, nil},
		{"12:30", "16:00", offered, nil},
		{"11:00", "13:00", offered, one("ready_from",
			"the window 11:00-13:00 is not one the carrier offers on 2026-12-01: it must lie within 09:00-12:00 or 12:00-17:00")},
		{"08:00", "10:00", offered[:1], one("ready_from",
			"the window 08:00-10:00 is not one the carrier offers on 2026-12-01: it must lie within 09:00-12:00")},
		{"09:00", "12:00", nil, one("date", "the carrier collects on no window on 2026-12-01 (a Tuesday)")},
	} {
		r := request()
		r.ReadyFrom, r.ReadyUntil = tc.from, tc.until
		c := context(r)
		c.Windows = tc.windows
		_, err := pickup.New(r, c)
		if got := fields(t, err); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s-%s in %v: %v, want %v", tc.from, tc.until, tc.windows, got, tc.want)
		}
		r.Note = "gate\nB"
		if got := fields(t, func() error { _, err := pickup.New(r, c); return err }()); len(got) != 1 || got["note"] == nil {
			t.Errorf("%s-%s with another problem: %v, want the note's alone", tc.from, tc.until, got)
		}
	}
}

// A new pickup is being ordered, version 1, made now, with what the
// request said; it keeps a copy of the shipment ids, never the caller's.
func TestNewPickupIsBeingOrdered(t *testing.T) {
	a := ids.New(ids.Shipment)
	r := request()
	r.ShipmentIDs = []string{a}
	r.Address.CountryCode = "cz"
	p, err := pickup.New(r, context(r))
	if err != nil {
		t.Fatal(err)
	}
	r.ShipmentIDs[0] = "changed"
	want := pickup.Stored{ID: "pck_1", AccountID: "acc_1", ChannelID: "ch_1", Provider: "fake", Status: pickup.StatusOrdering,
		Date: tuesday, ReadyFrom: "09:00", ReadyUntil: "12:00", Address: address, Contact: contact, ShipmentIDs: []string{a},
		ParcelCount: 2, TotalWeightKG: 3.5, Note: "ring at gate B", Version: 1, CreatedAt: t0, UpdatedAt: t0}
	if got := p.Stored(); !reflect.DeepEqual(got, want) {
		t.Errorf("new pickup\n%+v\nwant\n%+v", got, want)
	}
	if p.ID() != "pck_1" || !p.BelongsTo("acc_1") || p.BelongsTo("acc_2") || p.OrderHandle() != "" {
		t.Errorf("pickup %s of acc_1: %v, handle %q", p.ID(), p.BelongsTo("acc_1"), p.OrderHandle())
	}
}
