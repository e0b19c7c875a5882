package gls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"shipd/platform/carrier"
)

// collectionRequest is a courier order for Saturday 5 December 2026 of
// three parcels.
func pickupRequest() carrier.CourierPickupRequest {
	return carrier.CourierPickupRequest{
		Date: "2026-12-05", ReadyFrom: "10:00", ReadyUntil: "16:00",
		Address:     carrier.Address{StreetName: "Lagerstraße", HouseNumber: "1", CityName: "Berlin", PostalCode: "10115", CountryCode: "DE"},
		Contact:     carrier.Contact{CompanyName: "Acme GmbH", FirstName: "Max", LastName: "Muster", Phone: "+49301234567"},
		ParcelCount: 3, TotalWeightKG: 4.204,
		Note:    "Ring at gate 2",
		Booking: carrier.Booking{Key: "pck_1"},
	}
}

func rejected(t *testing.T, err error) *carrier.Rejection {
	t.Helper()
	var rej *carrier.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("got %v, want a *carrier.Rejection", err)
	}
	return rej
}

func TestDispatchInfo(t *testing.T) {
	c := New(Config{})
	d := c.Info().Dispatch
	want := carrier.DispatchInfo{Pickups: true, PickupAvailability: carrier.AvailabilityDefaults, PickupShipments: carrier.PickupCountsOnly,
		Manifest: carrier.ManifestByCarrier, CancelAfterManifest: carrier.CancelAfterManifestCarrier, Note: d.Note}
	if d != want || !strings.Contains(d.Note, "depot") {
		t.Errorf("dispatch %+v", d)
	}
	if _, ok := carrier.DispatcherOf(c); !ok {
		t.Error("GLS is no Dispatcher")
	}
}

// A collection sends the contact, date, count, weight and product, the
// window and contact as additional information; GLS answers the date it
// comes (a Saturday moved to Monday), which is recorded at once. A retried
// attempt given that record orders nothing.
func TestCollectionIsOrderedOnce(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	req := pickupRequest()
	var recorded []string
	req.Booking.Accepted = func(_ context.Context, handle string) error {
		recorded = append(recorded, handle)
		return nil
	}
	p, err := c.OrderCourierPickup(ctx, f.settings(), req)
	if err != nil {
		t.Fatalf("OrderCourierPickup: %v", err)
	}
	// GLS's date as it wrote it (midnight +01:00), not the day before in UTC.
	if p.Date != "2026-12-07" || p.ConfirmationNumber != "" || p.ReadyFrom != "" || p.ReadyUntil != "" {
		t.Errorf("pickup %+v: want GLS's date, no number, no window", p)
	}
	if len(recorded) != 1 || recorded[0] != p.Handle {
		t.Errorf("recorded %q, handle %q", recorded, p.Handle)
	}
	var sent map[string]any
	if err := json.Unmarshal(f.lastBody("collection"), &sent); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"ContactID": f.contactID, "PreferredPickUpDate": "2026-12-05", "NumberOfParcels": 3.0, "Product": "PARCEL",
		"ExpectedTotalWeight": 4.2, "AdditionalInformation": "Ready 10:00-16:00. Contact Max Muster +49301234567. Ring at gate 2"}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("sent %v\nwant %v", sent, want)
	}
	if call := lastCall(f, "/rs/sporadiccollection"); !strings.HasPrefix(call, "sandbox POST") {
		t.Errorf("called %q, want the sandbox", call)
	}

	again := pickupRequest()
	again.Booking.Handle = recorded[0]
	again.Booking.Accepted = func(context.Context, string) error { t.Error("a resumed collection recorded again"); return nil }
	if p2, err := c.OrderCourierPickup(ctx, f.settings(), again); err != nil || p2 != p {
		t.Errorf("resumed: %+v, %v; want %+v", p2, err, p)
	}
	if n := f.collectionCount(); n != 1 {
		t.Errorf("GLS was asked for %d collections, want 1", n)
	}

	// Production, EXPRESS from the channel, a date GLS keeps.
	s := f.settings()
	s["sandboxMode"], s["productType"] = false, ProductExpress
	req = pickupRequest()
	req.Date, req.ReadyFrom, req.Note = "2026-12-08", "", ""
	p, err = c.OrderCourierPickup(ctx, s, req)
	if err != nil || p.Date != "2026-12-08" {
		t.Fatalf("production: %+v, %v", p, err)
	}
	_ = json.Unmarshal(f.lastBody("collection"), &sent)
	if sent["Product"] != "EXPRESS" || sent["AdditionalInformation"] != "Contact Max Muster +49301234567" {
		t.Errorf("sent %v", sent)
	}
	if call := lastCall(f, "/rs/sporadiccollection"); !strings.HasPrefix(call, "prod POST") {
		t.Errorf("called %q, want production", call)
	}
}

func TestCollectionRefusals(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	order := func(s carrier.Settings, edit func(*carrier.CourierPickupRequest)) error {
		req := pickupRequest()
		edit(&req)
		_, err := c.OrderCourierPickup(ctx, s, req)
		return err
	}
	// GLS's refusals, on the field its message names.
	other := f.settings()
	other["contactId"] = "nobody"
	if rej := rejected(t, order(other, func(*carrier.CourierPickupRequest) {})); rej.Field != "contactId" || !strings.Contains(rej.Message, "unknown contact") {
		t.Errorf("unknown contact: %v", rej)
	}
	if rej := rejected(t, order(f.settings(), func(r *carrier.CourierPickupRequest) { r.TotalWeightKG = 1200 })); rej.Field != carrier.PickupFieldWeight {
		t.Errorf("1200 kg: %v", rej)
	}
	// Refused before any call.
	before := len(f.callLog())
	for name, tc := range map[string]struct {
		edit  func(*carrier.CourierPickupRequest)
		field string
	}{
		"no date":         {func(r *carrier.CourierPickupRequest) { r.Date = "" }, carrier.PickupFieldDate},
		"no parcels":      {func(r *carrier.CourierPickupRequest) { r.ParcelCount = 0 }, carrier.PickupFieldParcels},
		"seven digits":    {func(r *carrier.CourierPickupRequest) { r.ParcelCount = 1000000 }, carrier.PickupFieldParcels},
		"negative":        {func(r *carrier.CourierPickupRequest) { r.TotalWeightKG = -1 }, carrier.PickupFieldWeight},
		"another product": {func(*carrier.CourierPickupRequest) {}, "productType"},
	} {
		s := f.settings()
		if name == "another product" {
			s["productType"] = "FREIGHT"
		}
		if rej := rejected(t, order(s, tc.edit)); rej.Field != tc.field {
			t.Errorf("%s blames %q, want %q", name, rej.Field, tc.field)
		}
	}
	if n := len(f.callLog()); n != before {
		t.Errorf("%d calls for requests known to be refused", n-before)
	}
	// Wrong credentials.
	bad := f.settings()
	bad["clientSecret"] = "wrong"
	if rej := rejected(t, order(bad, func(*carrier.CourierPickupRequest) {})); rej.Field != "clientSecret" {
		t.Errorf("wrong secret: %v", rej)
	}
	// GLS down.
	f.shipitStatus = 503
	if err := order(f.settings(), func(*carrier.CourierPickupRequest) {}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("503: %v", err)
	}
	f.shipitStatus = 0
	// A record that fails ends the attempt as unavailable.
	req := pickupRequest()
	req.Booking.Accepted = func(context.Context, string) error { return errors.New("database gone") }
	if _, err := c.OrderCourierPickup(ctx, f.settings(), req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("a failed record: %v", err)
	}
}

// ShipIT cancels no collection and offers no windows: both are not
// offered, and nothing is called.
func TestCancelAndWindowsAreNotOffered(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	err := c.CancelCourierPickup(context.Background(), f.settings(), carrier.CourierPickup{Date: "2026-12-07"})
	if !errors.Is(err, carrier.ErrNotOffered) || !strings.Contains(err.Error(), "depot") {
		t.Errorf("cancel: %v", err)
	}
	if _, err := c.CourierPickupWindows(context.Background(), f.settings(), carrier.PickupWindowsRequest{Date: "2026-12-07"}); !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("windows: %v", err)
	}
	if n := len(f.callLog()); n != 0 {
		t.Errorf("%d calls", n)
	}
}

// The manifest is GLS's end of day of the date: it answers the day's
// shipments as data (held to EndOfDayResponse by the fake), so the manifest
// has the date as reference and no document: shipd draws the PDF.
func TestManifestIsGLSsEndOfDay(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	var shipments []carrier.DispatchShipment
	for _, ref := range []string{"order-m1", "order-m2"} {
		out, err := c.CreateShipment(ctx, f.settings(), request(ref))
		if err != nil {
			t.Fatal(err)
		}
		shipments = append(shipments, carrier.DispatchShipment{ShipmentID: "shp_" + ref, ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers})
	}
	m, err := c.CreateManifest(ctx, f.settings(), carrier.ManifestRequest{Key: "man_1", Date: "2026-11-21", Shipments: shipments})
	if err != nil {
		t.Fatalf("CreateManifest: %v", err)
	}
	if m.Reference != "2026-11-21" || m.Document != nil {
		t.Errorf("manifest %q with %d bytes, want the date and no document", m.Reference, len(m.Document))
	}
	if got := f.endOfDayDates(); !slices.Equal(got, []string{"2026-11-21"}) {
		t.Errorf("end of day asked for %v", got)
	}
	if call := lastCall(f, "/rs/shipments/endofday"); call != "sandbox POST /shipit-farm/v1/backend/rs/shipments/endofday" {
		t.Errorf("called %q", call)
	}
	// Refused before any call.
	for _, bad := range []carrier.ManifestRequest{{Date: "21.11.2026", Shipments: shipments}, {Date: "2026-11-21"}} {
		err := func() error { _, err := c.CreateManifest(ctx, f.settings(), bad); return err }()
		if rej := rejected(t, err); rej.Field != carrier.PickupFieldDate && rej.Field != carrier.PickupFieldShipments {
			t.Errorf("%+v: %v", bad, rej)
		}
	}
	if n := len(f.endOfDayDates()); n != 1 {
		t.Errorf("%d end of day calls", n)
	}
	// Wrong credentials, GLS down.
	bad := f.settings()
	bad["clientSecret"] = "wrong"
	if _, err := c.CreateManifest(ctx, bad, carrier.ManifestRequest{Date: "2026-11-21", Shipments: shipments}); rejected(t, err).Field != "clientSecret" {
		t.Errorf("wrong secret: %v", err)
	}
	f.shipitStatus = 503
	if _, err := c.CreateManifest(ctx, f.settings(), carrier.ManifestRequest{Date: "2026-11-21", Shipments: shipments}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("503: %v", err)
	}
	f.shipitStatus = 400
	if _, err := c.CreateManifest(ctx, f.settings(), carrier.ManifestRequest{Date: "2026-11-21", Shipments: shipments}); rejected(t, err) == nil {
		t.Error("a 400 is no refusal")
	}
}

// The fake holds a collection to GLS's documented rules: a misspelt
// optional field, a date-time where GLS documents a date, a collection
// without its parcel count are refused; the adapter's own body passes.
func TestFakeRefusesMisspeltCollectionFields(t *testing.T) {
	f := newFake(t)
	if _, err := f.carrier().OrderCourierPickup(context.Background(), f.settings(), pickupRequest()); err != nil {
		t.Fatal(err)
	}
	sent := f.lastBody("collection")
	for _, tc := range []struct {
		name, names string
		spoil       func(body map[string]any)
	}{
		{"misspelt optional", "ExpectedTotalWeigth", func(b map[string]any) {
			b["ExpectedTotalWeigth"] = b["ExpectedTotalWeight"]
			delete(b, "ExpectedTotalWeight")
		}},
		{"a date-time", "PreferredPickUpDate", func(b map[string]any) { b["PreferredPickUpDate"] = "2026-12-05T00:00:00Z" }},
		{"no count", "NumberOfParcels", func(b map[string]any) { delete(b, "NumberOfParcels") }},
		{"zero weight", "ExpectedTotalWeight", func(b map[string]any) { b["ExpectedTotalWeight"] = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body map[string]any
			if err := json.Unmarshal(sent, &body); err != nil {
				t.Fatal(err)
			}
			tc.spoil(body)
			var reported []string
			f.mu.Lock()
			f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
			f.mu.Unlock()
			if status := postShipIT(t, f, "/rs/sporadiccollection", body); status != http.StatusBadRequest || len(reported) != 1 || !strings.Contains(reported[0], tc.names) {
				t.Errorf("HTTP %d, reported %q; want 400 naming %s", status, reported, tc.names)
			}
		})
	}
	f.mu.Lock()
	f.report = t.Errorf
	f.mu.Unlock()
	var body map[string]any
	_ = json.Unmarshal(sent, &body)
	if status := postShipIT(t, f, "/rs/sporadiccollection", body); status != http.StatusUnauthorized {
		t.Errorf("the adapter's own body: HTTP %d, want 401 for the made-up token", status)
	}
}
