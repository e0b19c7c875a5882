package dhlexpress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/carrier"
)

// book creates a waybill at the fake and answers it as a pickup names it.
func book(t *testing.T, f *fake, req carrier.ShipmentRequest) carrier.DispatchShipment {
	t.Helper()
	out, err := f.carrier().CreateShipment(context.Background(), testSettings(), req)
	if err != nil {
		t.Fatal(err)
	}
	return carrier.DispatchShipment{ShipmentID: "shp_" + out.ProviderShipmentID, ProviderShipmentID: out.ProviderShipmentID,
		Reference: req.Reference, ProductType: req.ProductType, TrackingNumbers: out.TrackingNumbers, Parcels: req.Parcels,
		Recipient: req.Recipient, Destination: req.Destination}
}

// pickupOrder collects the shipments on Tuesday 24 November from 10:00,
// the premises closing at 17:30, at the shop in Prague.
func pickupOrder(shipments ...carrier.DispatchShipment) carrier.CourierPickupRequest {
	r := request()
	return carrier.CourierPickupRequest{
		Date: "2026-11-24", ReadyFrom: "10:00", ReadyUntil: "17:30",
		Address: r.Origin, Contact: r.Sender, Shipments: shipments,
		Note:    "Zazvonit u brány, druhé patro vlevo",
		Booking: carrier.Booking{Key: "pck_01JDHLEXPRESS000000000001"},
	}
}

// lastPickup is the body of the last pickup DHL booked, as sent.
func lastPickup(t *testing.T, f *fake) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var last string
	for n := range f.pickups.booked {
		last = max(last, n)
	}
	if last == "" {
		t.Fatal("no pickup booked")
	}
	raw, _ := json.Marshal(f.pickups.booked[last].req)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

func TestDispatchInfo(t *testing.T) {
	c := New(Config{})
	d := c.Info().Dispatch
	want := carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityCarrier,
		PickupShipments: carrier.PickupNamesShipments, Manifest: carrier.ManifestByShipd,
		CancelAfterManifest: carrier.CancelAfterManifestRefused, Note: d.Note}
	if d != want || !strings.Contains(d.Note, "10 days") || !strings.Contains(d.Note, "handover") {
		t.Errorf("dispatch %+v", d)
	}
	if _, ok := carrier.DispatcherOf(c); !ok {
		t.Error("DHL Express is no Dispatcher")
	}
	s := testSettings()
	s[settingPickupZone] = "America/New_York"
	if errs := c.Info().ValidateSettings(map[string]any(s)); len(errs) != 0 {
		t.Errorf("pickup settings invalid: %v", errs)
	}
}

// Every country zone the adapter names loads from the embedded database.
func TestCountryZonesLoad(t *testing.T) {
	for cc, name := range countryZones {
		if _, err := time.LoadLocation(name); err != nil || !carrier.IsCountryCode(cc) {
			t.Errorf("%s: %s: %v", cc, name, err)
		}
	}
	for _, cc := range []string{"DE", "CZ", "PL", "GB", "ES", "PT", "CN"} {
		if countryZones[cc] == "" {
			t.Errorf("no zone for %s", cc)
		}
	}
	for _, cc := range []string{"US", "RU", "AU", "BR", "CA", "MX"} {
		if countryZones[cc] != "" {
			t.Errorf("%s has several zones, not %s", cc, countryZones[cc])
		}
	}
}

// A pickup sends the ready time in the address's local time with its GMT
// offset, the close time, the shipper, the note as instructions, and each
// waybill with its product, customs flag and every piece's weight and
// size; DHL's number is recorded at once as the handle, and an attempt
// given it books nothing. The cancel names who ordered it; a second cancel
// finds it cancelled already.
func TestPickupBookedOnceAndCancelled(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	toBonn := book(t, f, request(parcel(2.5), carrier.Parcel{Weight: 700, WeightUnit: "G", Length: 355, Width: 250, Height: 5, DimensionUnit: "MM"}))
	docs := request(parcel(0.3))
	docs.ProductType, docs.Destination = "D", carrier.Address{StreetName: "Main St", HouseNumber: "1", CityName: "Oslo", PostalCode: "0150", CountryCode: "NO"}
	toOslo := book(t, f, docs)
	req := pickupOrder(toBonn, toOslo)
	var recorded []string
	req.Booking.Accepted = func(_ context.Context, h string) error { recorded = append(recorded, h); return nil }
	p, err := c.OrderCourierPickup(ctx, testSettings(), req)
	if err != nil {
		t.Fatalf("OrderCourierPickup: %v", err)
	}
	if !strings.HasPrefix(p.ConfirmationNumber, "PRG261124") || p.Date != "" || p.ReadyFrom != "" || p.ReadyUntil != "" {
		t.Errorf("pickup %+v: want DHL's number, no confirmed window", p)
	}
	if !slices.Equal(recorded, []string{p.Handle}) {
		t.Errorf("recorded %q, handle %q", recorded, p.Handle)
	}
	sent := lastPickup(t, f)
	want := map[string]any{
		"plannedPickupDateAndTime": "2026-11-24T10:00:00 GMT+01:00",
		"closeTime":                "17:30",
		"locationType":             "business",
		"accounts":                 []any{map[string]any{"typeCode": "shipper", "number": testAccount}},
		"specialInstructions":      []any{map[string]any{"value": "Zazvonit u brány, druhé patro vlevo"}},
		"customerDetails": map[string]any{"shipperDetails": map[string]any{
			"postalAddress": map[string]any{"postalCode": "12000", "cityName": "Praha", "countryCode": "CZ", "addressLine1": "Vinohradská 12"},
			"contactInformation": map[string]any{"email": "jan@obchod.cz", "phone": "+420 601 123 456", "companyName": "Obchod s.r.o.",
				"fullName": "Jan Novák"}}},
		"shipmentDetails": []any{
			map[string]any{"productCode": "P", "isCustomsDeclarable": false, "unitOfMeasurement": "metric", "shipmentTrackingNumber": toBonn.ProviderShipmentID,
				"packages": []any{
					map[string]any{"weight": 2.5, "dimensions": map[string]any{"length": 30.0, "width": 20.0, "height": 10.0}},
					map[string]any{"weight": 0.7, "dimensions": map[string]any{"length": 36.0, "width": 25.0, "height": 1.0}}}},
			map[string]any{"productCode": "D", "isCustomsDeclarable": false, "unitOfMeasurement": "metric", "shipmentTrackingNumber": toOslo.ProviderShipmentID,
				"packages": []any{map[string]any{"weight": 0.3, "dimensions": map[string]any{"length": 30.0, "width": 20.0, "height": 10.0}}}},
		},
	}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("sent %v\nwant %v", sent, want)
	}

	again := pickupOrder(toBonn, toOslo)
	again.Booking.Handle = recorded[0]
	again.Booking.Accepted = func(context.Context, string) error { t.Error("a resumed pickup recorded again"); return nil }
	if p2, err := c.OrderCourierPickup(ctx, testSettings(), again); err != nil || p2 != p {
		t.Errorf("resumed: %+v, %v; want %+v", p2, err, p)
	}
	if n := f.pickupOrders(); n != 1 {
		t.Errorf("DHL booked %d pickups, want 1", n)
	}

	if err := c.CancelCourierPickup(ctx, testSettings(), p); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	f.mu.Lock()
	fp := *f.pickups.booked[p.ConfirmationNumber]
	f.mu.Unlock()
	if fp.state != "cancelled" || fp.requestor != "Jan Novák" || fp.reason != AssumedCancelReason {
		t.Errorf("DHL's pickup after the cancel: %+v", fp)
	}
	if err := c.CancelCourierPickup(ctx, testSettings(), p); err != nil {
		t.Errorf("a second cancel: %v", err)
	}
	// Without its handle, the number alone is cancelled, by shipd.
	if err := c.CancelCourierPickup(ctx, testSettings(), carrier.CourierPickup{ConfirmationNumber: p.ConfirmationNumber}); err != nil {
		t.Errorf("a cancel without the handle: %v", err)
	}
}

// DHL may answer several numbers, a ready-by time and a next pickup date:
// the pickup's number is the first, its date and time DHL's, and a cancel
// cancels every number.
func TestPickupWithSeveralNumbersAndDHLsTimes(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	f.pickups.numbers, f.pickups.confirm = 2, true
	p, err := c.OrderCourierPickup(ctx, testSettings(), pickupOrder(book(t, f, request(parcel(1)))))
	if err != nil {
		t.Fatal(err)
	}
	var h pickupHandle
	if err := json.Unmarshal([]byte(p.Handle), &h); err != nil || len(h.Numbers) != 2 || h.Numbers[0] != p.ConfirmationNumber {
		t.Fatalf("handle %q: %v", p.Handle, err)
	}
	if p.Date != "2026-11-25" || p.ReadyFrom != "11:00" || p.ReadyUntil != "" {
		t.Errorf("pickup %+v: want DHL's next pickup date and ready-by time", p)
	}
	if err := c.CancelCourierPickup(ctx, testSettings(), p); err != nil {
		t.Fatal(err)
	}
	for _, n := range h.Numbers {
		if f.count("DELETE /pickups/"+n+"?") != 1 {
			t.Errorf("%s was not cancelled: %v", n, f.calls)
		}
	}
}

// The pickup's local time carries the offset of its zone: the channel's
// pickupTimeZone, needed where the country has several.
func TestPickupTimeZones(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	sh := book(t, f, request(parcel(1)))
	us := pickupOrder(sh)
	us.Address = carrier.Address{StreetName: "Main St", HouseNumber: "1", CityName: "Boston", PostalCode: "02108", CountryCode: "US"}
	_, err := c.OrderCourierPickup(ctx, testSettings(), us)
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{carrier.PickupFieldAddress}) || !strings.Contains(rs[0].Message, settingPickupZone) {
		t.Errorf("US without a zone: %v", err)
	}
	s := testSettings()
	s[settingPickupZone] = "America/New_York"
	if _, err := c.OrderCourierPickup(ctx, s, us); err != nil {
		t.Fatal(err)
	}
	if got := lastPickup(t, f)["plannedPickupDateAndTime"]; got != "2026-11-24T10:00:00 GMT-05:00" {
		t.Errorf("ready time in New York: %v", got)
	}
	s[settingPickupZone] = "Mars/Olympus"
	_, err = c.OrderCourierPickup(ctx, s, us)
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{settingPickupZone}) {
		t.Errorf("an unknown zone: %v", err)
	}
}

// What DHL documents it refuses is refused before any call, on the
// request's fields; DHL's own refusals land on them too (by the JSON
// pointer its message names, the account when it speaks of one).
func TestPickupRefusals(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	sh := book(t, f, request(parcel(1)))
	for _, tc := range []struct {
		name   string
		spoil  func(s carrier.Settings, r *carrier.CourierPickupRequest)
		fields []string
		calls  bool
	}{
		{"a count only", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Shipments, r.ParcelCount = nil, 3 },
			[]string{carrier.PickupFieldShipments}, false},
		{"yesterday", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Date = "2026-11-22" }, []string{carrier.PickupFieldDate}, false},
		{"11 days ahead", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Date = "2026-12-04" }, []string{carrier.PickupFieldDate}, false},
		{"no ready time", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.ReadyFrom = "" }, []string{carrier.PickupFieldReadyFrom}, false},
		{"closing before ready", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.ReadyUntil = "09:00" },
			[]string{carrier.PickupFieldReadyUntil}, false},
		{"a long note", func(_ carrier.Settings, r *carrier.CourierPickupRequest) {
			r.Note = strings.Repeat("Klingeln bitte. ", 30)
		},
			[]string{"note"}, false},
		{"no phone, no city", func(_ carrier.Settings, r *carrier.CourierPickupRequest) {
			r.Contact.Phone, r.Address.CityName = "", ""
		},
			[]string{carrier.PickupFieldContact, carrier.PickupFieldAddress}, false},
		{"a shipment without parcels", func(_ carrier.Settings, r *carrier.CourierPickupRequest) {
			r.Shipments = []carrier.DispatchShipment{{ShipmentID: "shp_empty"}}
		}, []string{carrier.PickupFieldShipments}, false},
		{"another account", func(s carrier.Settings, _ *carrier.CourierPickupRequest) { s[settingAccount] = "987654321" },
			[]string{settingAccount}, true},
		{"an unknown waybill", func(_ carrier.Settings, r *carrier.CourierPickupRequest) {
			ghost := sh
			ghost.ProviderShipmentID = "9999999999"
			r.Shipments = append(r.Shipments, ghost)
		}, []string{carrier.PickupFieldShipments}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, req := testSettings(), pickupOrder(sh)
			tc.spoil(s, &req)
			before := f.count("POST /pickups")
			_, err := c.OrderCourierPickup(ctx, s, req)
			if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), tc.fields) {
				t.Errorf("fields %q, want %q: %v", fields(rs), tc.fields, err)
			}
			if called := f.count("POST /pickups") > before; called != tc.calls {
				t.Errorf("DHL asked: %v, want %v", called, tc.calls)
			}
		})
	}
	if n := f.pickupOrders(); n != 0 {
		t.Errorf("DHL booked %d pickups", n)
	}
	for msg, field := range map[string]string{
		"Invalid #/plannedPickupDateAndTime":                                    carrier.PickupFieldDate,
		"#/closeTime: does not match pattern":                                   carrier.PickupFieldReadyUntil,
		"#/customerDetails/shipperDetails/postalAddress/cityName: expected max": carrier.PickupFieldAddress,
		"#/customerDetails/shipperDetails/contactInformation/phone: required":   carrier.PickupFieldContact,
		"#/shipmentDetails/0/packages/1/weight: minimum":                        carrier.PickupFieldShipments,
		"#/specialInstructions/0/value: expected maxLength: 80":                 "note",
		"8003: Account not allowed for this service.":                           settingAccount,
		"Pickup could not be scheduled":                                         "",
	} {
		if got := pickupFieldOf(msg); got != field {
			t.Errorf("%q: %q, want %q", msg, got, field)
		}
	}
}

// 5xx and 429 are unavailable; wrong credentials are refused on the API
// key; an answer holding no number is no pickup (DHL's warning says why).
func TestPickupErrorClasses(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	sh := book(t, f, request(parcel(1)))
	for _, status := range []int{500, 503, 429} {
		f.failNext(status)
		if _, err := c.OrderCourierPickup(ctx, testSettings(), pickupOrder(sh)); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("order, HTTP %d: %v", status, err)
		}
		f.failNext(status)
		if err := c.CancelCourierPickup(ctx, testSettings(), carrier.CourierPickup{ConfirmationNumber: "PRG261124000001"}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("cancel, HTTP %d: %v", status, err)
		}
		f.failNext(status)
		if _, err := c.CourierPickupWindows(ctx, testSettings(), carrier.PickupWindowsRequest{Date: "2026-11-24", Address: request().Origin}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("windows, HTTP %d: %v", status, err)
		}
	}
	s := testSettings()
	s[settingSecret] = "wrong"
	_, err := c.OrderCourierPickup(ctx, s, pickupOrder(sh))
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{settingKey}) {
		t.Errorf("wrong secret: %v", err)
	}
	f.pickups.noNumber = true
	_, err = c.OrderCourierPickup(ctx, testSettings(), pickupOrder(sh))
	if rs := rejectionsOf(t, err); len(rs) != 1 || !strings.Contains(rs[0].Message, "no courier available") {
		t.Errorf("no number: %v", err)
	}
	if n := f.pickupOrders(); n != 0 {
		t.Errorf("DHL booked %d pickups", n)
	}

	f = newFake(t, sandboxBase)
	f.hang = true
	ctx2, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	if _, err := f.carrier().OrderCourierPickup(ctx2, testSettings(), pickupOrder(sh)); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("hanging DHL: %v", err)
	}
}

// A completed pickup, or one DHL does not know, cannot be cancelled: the
// refusal says so.
func TestPickupCancelRefusals(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	p, err := c.OrderCourierPickup(ctx, testSettings(), pickupOrder(book(t, f, request(parcel(1)))))
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.pickups.booked[p.ConfirmationNumber].state = "completed"
	f.mu.Unlock()
	err = c.CancelCourierPickup(ctx, testSettings(), p)
	if rs := rejectionsOf(t, err); len(rs) != 1 || !strings.Contains(rs[0].Message, "completed") {
		t.Errorf("a completed pickup: %v", err)
	}
	err = c.CancelCourierPickup(ctx, testSettings(), carrier.CourierPickup{ConfirmationNumber: "PRG999999000001"})
	if rs := rejectionsOf(t, err); len(rs) != 1 || !strings.Contains(rs[0].Message, "not found") {
		t.Errorf("an unknown pickup: %v", err)
	}
}

// The windows are DHL's earliest to latest pickup time of the date, for
// the channel's product on a probe from the address to itself, or for the
// first shipment named; a Sunday has none; capabilities without times are
// DHL not saying.
func TestPickupWindowsFromDHLsCapabilities(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	at := request().Origin
	ws, err := c.CourierPickupWindows(ctx, testSettings(), carrier.PickupWindowsRequest{Date: "2026-11-24", Address: at})
	if err != nil || !slices.Equal(ws, []carrier.PickupWindow{{From: "08:30", Until: "18:00"}}) {
		t.Errorf("Tuesday, domestic probe: %v, %v", ws, err)
	}
	q := lastQuery(t, f, "/products")
	want := url.Values{"accountNumber": {testAccount}, "originCountryCode": {"CZ"}, "originCityName": {"Praha"}, "originPostalCode": {"12000"},
		"destinationCountryCode": {"CZ"}, "destinationCityName": {"Praha"}, "destinationPostalCode": {"12000"}, "weight": {"1"},
		"length": {"10"}, "width": {"10"}, "height": {"10"}, "plannedShippingDate": {"2026-11-24"}, "isCustomsDeclarable": {"false"},
		"unitOfMeasurement": {"metric"}, "nextBusinessDay": {"false"}}
	if !reflect.DeepEqual(q, want) {
		t.Errorf("probe %v\nwant %v", q, want)
	}

	sh := book(t, f, request(parcel(2.5)))
	sh.ProductType = "U"
	ws, err = c.CourierPickupWindows(ctx, testSettings(), carrier.PickupWindowsRequest{Date: "2026-12-05", Address: at, Shipments: []carrier.DispatchShipment{sh}})
	if err != nil || !slices.Equal(ws, []carrier.PickupWindow{{From: "09:30", Until: "12:00"}}) {
		t.Errorf("Saturday, the shipment's product U: %v, %v", ws, err)
	}
	if q := lastQuery(t, f, "/products"); q.Get("destinationCityName") != "Bonn" || q.Get("weight") != "2.5" || q.Get("length") != "30" {
		t.Errorf("probe of the shipment %v", q)
	}

	ws, err = c.CourierPickupWindows(ctx, testSettings(), carrier.PickupWindowsRequest{Date: "2026-11-29", Address: at})
	if err != nil || ws == nil || len(ws) != 0 {
		t.Errorf("Sunday: %v, %v; want no window", ws, err)
	}

	s := testSettings()
	s[settingAccount] = "987654321"
	_, err = c.CourierPickupWindows(ctx, s, carrier.PickupWindowsRequest{Date: "2026-11-24", Address: at})
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{settingAccount}) {
		t.Errorf("another account: %v", err)
	}
	before := f.count("")
	_, err = c.CourierPickupWindows(ctx, testSettings(), carrier.PickupWindowsRequest{Date: "2026-11-24", Address: carrier.Address{CountryCode: "CZ"}})
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{carrier.PickupFieldAddress}) || f.count("") != before {
		t.Errorf("no city: %v", err)
	}

	f.pickups.noTimes = true
	if _, err := c.CourierPickupWindows(ctx, testSettings(), carrier.PickupWindowsRequest{Date: "2026-11-24", Address: at}); !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("no times: %v", err)
	}
}

func lastQuery(t *testing.T, f *fake, path string) url.Values {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.calls) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(f.calls[i], "GET "+path+"?"); ok {
			q, err := url.ParseQuery(rest)
			if err != nil {
				t.Fatal(err)
			}
			return q
		}
	}
	t.Fatalf("no GET %s: %v", path, f.calls)
	return nil
}

func TestManifestIsShipds(t *testing.T) {
	if _, err := New(Config{}).CreateManifest(context.Background(), testSettings(), carrier.ManifestRequest{Date: "2026-11-24"}); !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("manifest: %v", err)
	}
}

// The fake holds a pickup to DHL's file, closed as DHL's own file closes
// it: a misspelt optional field is refused.
func TestFakeRefusesMisspeltPickupFields(t *testing.T) {
	f := newFake(t, sandboxBase)
	body, err := f.carrier().pickupRequestOf(testSettings(), pickupOrder(book(t, f, request(parcel(1)))))
	if err != nil {
		t.Fatal(err)
	}
	sent, _ := json.Marshal(body)
	for _, tc := range []struct {
		name, field string
		spoil       func(b map[string]any)
	}{
		{"close time", "closingTime", func(b map[string]any) { b["closingTime"] = b["closeTime"]; delete(b, "closeTime") }},
		{"instruction", "text", func(b map[string]any) {
			in := b["specialInstructions"].([]any)[0].(map[string]any)
			in["text"] = in["value"]
		}},
		{"waybill", "trackingNumber", func(b map[string]any) {
			sh := b["shipmentDetails"].([]any)[0].(map[string]any)
			sh["trackingNumber"] = sh["shipmentTrackingNumber"]
			delete(sh, "shipmentTrackingNumber")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b map[string]any
			_ = json.Unmarshal(sent, &b)
			tc.spoil(b)
			var reported []string
			f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
			if status := postPickup(t, f, b); status != http.StatusUnprocessableEntity || len(reported) != 1 || !strings.Contains(reported[0], tc.field) {
				t.Errorf("HTTP %d, reported %q; want 422 naming %s", status, reported, tc.field)
			}
		})
	}
	f.report = t.Errorf
	var b map[string]any
	_ = json.Unmarshal(sent, &b)
	if status := postPickup(t, f, b); status != http.StatusCreated {
		t.Errorf("the adapter's own pickup: HTTP %d", status)
	}
}

func postPickup(t *testing.T, f *fake, body map[string]any) int {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+sandboxBase+"/pickups", bytes.NewReader(raw))
	req.SetBasicAuth(testKey, testSecret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-version", APIVersion)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
