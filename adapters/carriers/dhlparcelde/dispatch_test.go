package dhlparcelde

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

func pickupSettings() carrier.Settings {
	s := testSettings()
	s[settingPickupBilling] = testPickupBilling
	return s
}

// pickupRequest collects the given shipments (or, with none, three
// parcels by count) on Tuesday 24 November at the shop's door.
func pickupRequest(shipments ...carrier.DispatchShipment) carrier.CourierPickupRequest {
	return carrier.CourierPickupRequest{
		Date: "2026-11-24", ReadyFrom: "10:00", ReadyUntil: "16:00",
		Address:       carrier.Address{StreetName: "Charles-de-Gaulle-Straße", HouseNumber: "20", CityName: "Bonn", PostalCode: "53113", CountryCode: "de"},
		Contact:       carrier.Contact{CompanyName: "My Online Shop GmbH", FirstName: "Max", LastName: "Mustermann", Email: "max@shop.de", Phone: "+49 228 123456"},
		Shipments:     shipments,
		ParcelCount:   3,
		TotalWeightKG: 4.25,
		Note:          "Bitte am Lieferanteneingang klingeln",
		Booking:       carrier.Booking{Key: "pck_01JDHLPICKUP0000000000001"},
	}
}

// book creates a shipment of n parcels at the fake and answers it as a
// pickup or a manifest names it.
func book(t *testing.T, f *fake, n int) carrier.DispatchShipment {
	t.Helper()
	var parcels []carrier.Parcel
	for i := range n {
		parcels = append(parcels, parcel(1+float64(i)))
	}
	req := request(parcels...)
	out, err := f.carrier().CreateShipment(context.Background(), testSettings(), req)
	if err != nil {
		t.Fatal(err)
	}
	return carrier.DispatchShipment{ShipmentID: "shp_" + out.ProviderShipmentID, ProviderShipmentID: out.ProviderShipmentID,
		Reference: req.Reference, ProductType: "V01PAK", TrackingNumbers: out.TrackingNumbers, Parcels: req.Parcels,
		Recipient: req.Recipient, Destination: req.Destination}
}

// lastPickupOrder is the last pickup order the fake took, as sent.
func lastPickupOrder(t *testing.T, f *fake) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var last *fakeOrder
	for _, o := range f.pickup.orders {
		if last == nil || o.id > last.id {
			last = o
		}
	}
	if last == nil {
		t.Fatal("no pickup order")
	}
	raw, _ := json.Marshal(last.order)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

func TestDispatchInfo(t *testing.T) {
	c := New(Config{})
	d := c.Info().Dispatch
	want := carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityDefaults,
		PickupShipments: carrier.PickupShipmentsOrCount, Manifest: carrier.ManifestByCarrier,
		CancelAfterManifest: carrier.CancelAfterManifestRefused, Note: d.Note}
	if d != want || !strings.Contains(d.Note, "pickupBillingNumber") || !strings.Contains(d.Note, "irreversible") {
		t.Errorf("dispatch %+v", d)
	}
	if _, ok := carrier.DispatcherOf(c); !ok {
		t.Error("DHL Parcel DE is no Dispatcher")
	}
	if errs := c.Info().ValidateSettings(map[string]any(pickupSettings())); len(errs) != 0 {
		t.Errorf("pickup settings invalid: %v", errs)
	}
}

// A pickup of named shipments at any address (a billing number): one item
// per parcel naming its shipment number and carrying the pickup's mark,
// the window as business hours, the contact, weight and note; DHL's id and
// date come back and the id is recorded at once. An attempt given that
// record reads the order back and orders nothing; the order is cancelled,
// and a second cancel finds it cancelled already.
func TestPickupOrderReadBackCancel(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	one, two := book(t, f, 1), book(t, f, 2)
	req := pickupRequest(one, two)
	var recorded []string
	req.Booking.Accepted = func(_ context.Context, h string) error { recorded = append(recorded, h); return nil }
	p, err := c.OrderCourierPickup(ctx, pickupSettings(), req)
	if err != nil {
		t.Fatalf("OrderCourierPickup: %v", err)
	}
	if len(p.ConfirmationNumber) != 32 || p.Date != "2026-11-24" || p.ReadyFrom != "" || p.ReadyUntil != "" || p.Handle != "" {
		t.Errorf("pickup %+v: want DHL's 32-character id and date, no window", p)
	}
	if !slices.Equal(recorded, []string{p.ConfirmationNumber}) {
		t.Errorf("recorded %q", recorded)
	}
	sent := lastPickupOrder(t, f)
	mark := pickupMark(req.Booking.Key)
	var items []any
	for _, n := range append(slices.Clone(one.TrackingNumbers), two.TrackingNumbers...) {
		items = append(items, map[string]any{"transportationType": "PAKET", "shipmentNo": n, "size": "S", "customerReference": mark})
	}
	want := map[string]any{
		"customerDetails": map[string]any{"billingNumber": testPickupBilling},
		"pickupLocation": map[string]any{"type": "Address", "pickupAddress": map[string]any{"name1": "My Online Shop GmbH", "name2": "Max Mustermann",
			"addressStreet": "Charles-de-Gaulle-Straße", "addressHouse": "20", "postalCode": "53113", "city": "Bonn", "country": "DE"}},
		"businessHours": []any{map[string]any{"timeFrom": "10:00", "timeUntil": "16:00"}},
		"contactPerson": []any{map[string]any{"name": "Max Mustermann", "phone": "+49 228 123456", "email": "max@shop.de",
			"emailNotification": map[string]any{"sendPickupConfirmationEmail": true, "sendPickupTimeWindowEmail": true}}},
		"pickupDetails": map[string]any{"pickupDate": map[string]any{"type": "Date", "value": "2026-11-24"},
			"totalWeight": map[string]any{"uom": "kg", "value": 4.25}, "comment": "Bitte am Lieferanteneingang klingeln"},
		"shipmentDetails": map[string]any{"shipments": items},
	}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("sent %v\nwant %v", sent, want)
	}
	if !regexp.MustCompile(`^shipd-[0-9a-f]{14}$`).MatchString(mark) || mark != pickupMark(req.Booking.Key) || mark == pickupMark("pck_other") {
		t.Errorf("mark %q", mark)
	}

	again := pickupRequest(one, two)
	again.Booking.Handle = recorded[0]
	again.Booking.Accepted = func(context.Context, string) error { t.Error("a resumed order recorded again"); return nil }
	if p2, err := c.OrderCourierPickup(ctx, pickupSettings(), again); err != nil || p2 != p {
		t.Errorf("resumed: %+v, %v; want %+v", p2, err, p)
	}
	if n := f.placedOrders(); n != 1 {
		t.Errorf("DHL took %d orders, want 1", n)
	}
	if f.count("GET "+pickupBase+"/orders?orderID="+p.ConfirmationNumber) != 1 {
		t.Errorf("the resumed order was not read back: %v", f.calls)
	}

	if err := c.CancelCourierPickup(ctx, pickupSettings(), p); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if err := c.CancelCourierPickup(ctx, pickupSettings(), p); err != nil {
		t.Errorf("a second cancel of a cancelled order: %v", err)
	}
	_, err = c.OrderCourierPickup(ctx, pickupSettings(), again)
	if rs := rejectionsOf(t, err); len(rs) != 1 || !strings.Contains(rs[0].Message, "cancelled") {
		t.Errorf("resuming a cancelled order: %v", err)
	}
}

// Without a billing number DHL collects at an agreed location only: at its
// address, or by its id (setting pickupLocationId), parcels by count, each
// item with a size; another address is DHL's refusal on the address.
func TestPickupAtAnAgreedLocation(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	req := pickupRequest()
	req.Address = carrier.Address{StreetName: "Sträßchensweg", HouseNumber: "10", CityName: "Bonn", PostalCode: "53113", CountryCode: "DE"}
	req.Contact = carrier.Contact{FirstName: "Max", LastName: "Mustermann", Phone: "+49 228 123456"}
	req.ReadyFrom, req.ReadyUntil, req.Note, req.TotalWeightKG = "", "", "", 0
	p, err := c.OrderCourierPickup(ctx, testSettings(), req)
	if err != nil || p.Date != "2026-11-24" {
		t.Fatalf("at the agreed address: %+v, %v", p, err)
	}
	sent := lastPickupOrder(t, f)
	mark := pickupMark(req.Booking.Key)
	item := map[string]any{"transportationType": "PAKET", "size": "M", "customerReference": mark}
	want := map[string]any{
		"pickupLocation": map[string]any{"type": "Address", "pickupAddress": map[string]any{"name1": "Max Mustermann",
			"addressStreet": "Sträßchensweg", "addressHouse": "10", "postalCode": "53113", "city": "Bonn", "country": "DE"}},
		"contactPerson":   []any{map[string]any{"name": "Max Mustermann", "phone": "+49 228 123456"}},
		"pickupDetails":   map[string]any{"pickupDate": map[string]any{"type": "Date", "value": "2026-11-24"}},
		"shipmentDetails": map[string]any{"shipments": []any{item, item, item}},
	}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("sent %v\nwant %v", sent, want)
	}

	s := testSettings()
	s[settingPickupLocation] = agreedLocation
	req.Booking.Key = "pck_by_id"
	if _, err := c.OrderCourierPickup(ctx, s, req); err != nil {
		t.Fatalf("by location id: %v", err)
	}
	if loc := lastPickupOrder(t, f)["pickupLocation"]; !reflect.DeepEqual(loc, map[string]any{"type": "Id", "asId": agreedLocation}) {
		t.Errorf("location %v", loc)
	}

	req = pickupRequest() // the Charles-de-Gaulle-Straße is no agreed location
	req.Booking.Key = "pck_elsewhere"
	_, err = c.OrderCourierPickup(ctx, testSettings(), req)
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{carrier.PickupFieldAddress}) {
		t.Errorf("any address without a billing number: %v", err)
	}
}

// An order whose answer shipd never recorded (the record failed, or the
// process stopped) is found again by its mark on the date: the next
// attempt answers DHL's order, records it, and orders nothing; another
// pickup on the same day is ordered anew.
func TestALostOrderIsFoundAndNotOrderedTwice(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	req := pickupRequest()
	dbDown := errors.New("database down")
	req.Booking.Accepted = func(context.Context, string) error { return dbDown }
	if _, err := c.OrderCourierPickup(ctx, pickupSettings(), req); !errors.Is(err, carrier.ErrUnavailable) || !errors.Is(err, dbDown) {
		t.Fatalf("a failed record: %v, want ErrUnavailable wrapping it", err)
	}
	var recorded []string
	req.Booking.Accepted = func(_ context.Context, h string) error { recorded = append(recorded, h); return nil }
	p, err := c.OrderCourierPickup(ctx, pickupSettings(), req)
	if err != nil || len(recorded) != 1 || recorded[0] != p.ConfirmationNumber || p.Date != req.Date {
		t.Fatalf("the next attempt: %+v, %v, recorded %q", p, err, recorded)
	}
	if n := f.placedOrders(); n != 1 {
		t.Errorf("DHL took %d orders, want 1", n)
	}
	if q := "GET " + pickupBase + "/orders?pickupDate=2026-11-24&pickupPostalCode=53113"; f.count(q) != 2 {
		t.Errorf("each first attempt looks for an earlier order (%s): %v", q, f.calls)
	}

	other := pickupRequest()
	other.Booking.Key = "pck_01JDHLPICKUP0000000000002"
	p2, err := c.OrderCourierPickup(ctx, pickupSettings(), other)
	if err != nil || p2.ConfirmationNumber == p.ConfirmationNumber || f.placedOrders() != 2 {
		t.Errorf("another pickup the same day: %+v, %v, %d orders", p2, err, f.placedOrders())
	}
	// A cancelled order does not stand for its pickup: it is ordered again.
	if err := c.CancelCourierPickup(ctx, pickupSettings(), p2); err != nil {
		t.Fatal(err)
	}
	if p3, err := c.OrderCourierPickup(ctx, pickupSettings(), other); err != nil || p3.ConfirmationNumber == p2.ConfirmationNumber {
		t.Errorf("after its cancel: %+v, %v", p3, err)
	}
}

// DHL's refusals (422, one error each naming the field) land on the
// request's fields or the setting they came from; what DHL's document
// refuses is refused before any call.
func TestPickupRefusals(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	sh := book(t, f, 1)
	gone := book(t, f, 1)
	if err := c.CancelShipment(ctx, testSettings(), carrier.ShipmentRef{TrackingNumbers: gone.TrackingNumbers}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		spoil  func(s carrier.Settings, r *carrier.CourierPickupRequest)
		fields []string
		calls  bool // the refusal is DHL's
	}{
		{"unknown billing number", func(s carrier.Settings, _ *carrier.CourierPickupRequest) { s[settingPickupBilling] = "33333333339901" },
			[]string{settingPickupBilling}, true},
		{"past date", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Date = "2026-11-20" }, []string{carrier.PickupFieldDate}, true},
		{"Sunday", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Date = "2026-11-29" }, []string{carrier.PickupFieldDate}, true},
		{"deleted shipment", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Shipments = append(r.Shipments, gone) },
			[]string{carrier.PickupFieldShipments}, true},
		{"unknown location id", func(s carrier.Settings, _ *carrier.CourierPickupRequest) { s[settingPickupLocation] = "AS0000000001" },
			[]string{settingPickupLocation}, true},
		{"no date", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Date = "24.11.2026" }, []string{carrier.PickupFieldDate}, false},
		{"no house number, long postal code", func(_ carrier.Settings, r *carrier.CourierPickupRequest) {
			r.Address.HouseNumber, r.Address.PostalCode = "", "53113-1234"
		}, []string{carrier.PickupFieldAddress, carrier.PickupFieldAddress}, false},
		{"window", func(_ carrier.Settings, r *carrier.CourierPickupRequest) {
			r.ReadyFrom, r.ReadyUntil = "10", "16:00:00"
		},
			[]string{carrier.PickupFieldReadyFrom, carrier.PickupFieldReadyUntil}, false},
		{"nothing to collect", func(_ carrier.Settings, r *carrier.CourierPickupRequest) { r.Shipments, r.ParcelCount = nil, 0 },
			[]string{carrier.PickupFieldParcels}, false},
		{"location id form", func(s carrier.Settings, _ *carrier.CourierPickupRequest) { s[settingPickupLocation] = "3254120698" },
			[]string{settingPickupLocation}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, req := pickupSettings(), pickupRequest(sh)
			req.Booking.Key = "pck_" + tc.name
			tc.spoil(s, &req)
			before := f.count("POST " + pickupBase)
			_, err := c.OrderCourierPickup(ctx, s, req)
			if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), tc.fields) {
				t.Errorf("fields %q, want %q: %v", fields(rs), tc.fields, err)
			}
			if called := f.count("POST "+pickupBase) > before; called != tc.calls {
				t.Errorf("DHL asked: %v, want %v", called, tc.calls)
			}
		})
	}
	if n := f.placedOrders(); n != 0 {
		t.Errorf("DHL took %d orders", n)
	}
}

// 403 is a GKP user without DHL's Pickup right; 429 and 5xx, a token
// endpoint down and a hanging DHL are unavailable; wrong credentials are
// refused on the password; a token DHL keeps refusing on clientId.
func TestPickupErrorClasses(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.carrier()
	f.failNext(0, http.StatusForbidden) // the look-up answers, the order does not
	_, err := c.OrderCourierPickup(ctx, pickupSettings(), pickupRequest())
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{"username"}) || !strings.Contains(rs[0].Message, "Pickup right") {
		t.Errorf("403: %v", err)
	}
	// A 400 has no body DHL documents: a refusal blaming no field.
	f.failNext(0, http.StatusBadRequest)
	_, err = c.OrderCourierPickup(ctx, pickupSettings(), pickupRequest())
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{""}) || !strings.Contains(rs[0].Message, "HTTP 400") {
		t.Errorf("400: %v", err)
	}
	for _, status := range []int{500, 503, 429} {
		f.failNext(status)
		if _, err := c.OrderCourierPickup(ctx, pickupSettings(), pickupRequest()); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("look-up, HTTP %d: %v", status, err)
		}
		f.failNext(0, status)
		if _, err := c.OrderCourierPickup(ctx, pickupSettings(), pickupRequest()); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("order, HTTP %d: %v", status, err)
		}
		f.failNext(status)
		if err := c.CancelCourierPickup(ctx, pickupSettings(), carrier.CourierPickup{ConfirmationNumber: strings.Repeat("a", 32)}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("cancel, HTTP %d: %v", status, err)
		}
	}
	if n := f.count("POST " + pickupBase + "/orders"); n != 5 {
		t.Errorf("%d orders sent, want 5 (403, 400, 500, 503, 429)", n)
	}
	s := pickupSettings()
	s["password"] = "wrong"
	_, err = c.OrderCourierPickup(ctx, s, pickupRequest())
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{"password"}) {
		t.Errorf("wrong password: %v", err)
	}
	f.refuseTokens = true
	_, err = c.OrderCourierPickup(ctx, pickupSettings(), pickupRequest())
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{"clientId"}) {
		t.Errorf("tokens refused: %v", err)
	}
	if n := f.placedOrders(); n != 0 {
		t.Errorf("DHL took %d orders", n)
	}

	f = newFake(t)
	f.hang = true
	ctx2, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	if _, err := f.carrier().OrderCourierPickup(ctx2, pickupSettings(), pickupRequest()); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("hanging DHL: %v", err)
	}
}

// A cancel DHL refuses (the courier came) is a rejection saying why; an
// order DHL does not know is one too; a number of the wrong form is
// refused before any call.
func TestPickupCancelRefusals(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	p, err := c.OrderCourierPickup(ctx, pickupSettings(), pickupRequest())
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.pickup.orders[p.ConfirmationNumber].state = "ABGEHOLT"
	f.mu.Unlock()
	err = c.CancelCourierPickup(ctx, pickupSettings(), p)
	if rs := rejectionsOf(t, err); len(rs) != 1 || !strings.Contains(rs[0].Message, "ABGEHOLT") {
		t.Errorf("cancel after the pickup: %v", err)
	}
	// Read back after the pickup, the order answers the date DHL came on.
	again := pickupRequest()
	again.Booking.Handle = p.ConfirmationNumber
	if p2, err := c.OrderCourierPickup(ctx, pickupSettings(), again); err != nil || p2 != p {
		t.Errorf("read back after the pickup: %+v, %v", p2, err)
	}
	err = c.CancelCourierPickup(ctx, pickupSettings(), carrier.CourierPickup{ConfirmationNumber: strings.Repeat("0", 32)})
	if rs := rejectionsOf(t, err); len(rs) != 1 || !strings.Contains(rs[0].Message, "nicht gefunden") {
		t.Errorf("unknown order: %v", err)
	}
	before := len(f.calls)
	if err := c.CancelCourierPickup(ctx, pickupSettings(), carrier.CourierPickup{ConfirmationNumber: "PRG123"}); err == nil || len(f.calls) != before {
		t.Errorf("a malformed number: %v, %d calls", err, len(f.calls)-before)
	}
}

func TestPickupWindowsAreNotOffered(t *testing.T) {
	_, err := New(Config{}).CourierPickupWindows(context.Background(), pickupSettings(), carrier.PickupWindowsRequest{Date: "2026-11-24"})
	if !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("windows: %v", err)
	}
}

// checkPDF has qpdf check the document and answers its page count
// (pdfinfo).
func checkPDF(t *testing.T, pdf []byte) int {
	t.Helper()
	for _, tool := range []string{"qpdf", "pdfinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian packages qpdf and poppler-utils): %v", tool, err)
		}
	}
	path := filepath.Join(t.TempDir(), "manifest.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
	out, err := exec.Command("pdfinfo", path).Output()
	if err != nil {
		t.Fatalf("pdfinfo: %v", err)
	}
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("pdfinfo names no page count:\n%s", out)
	}
	var n int
	fmt.Sscan(string(m[1]), &n)
	return n
}

// A manifest of 32 parcels closes them out in two calls (30 and 2) and
// answers DHL's day document, which comes in two PDFs merged into one, its
// barcodes the shipments in order, referenced by the date and sheets.
// Closed out, a shipment cannot be cancelled; the manifest made again (a
// retry) meets DHL's warnings and answers the same document.
func TestManifestClosesOutInChunksAndAnswersDHLsDocument(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	f.pickup.manifestParts = 2
	var shipments []carrier.DispatchShipment
	var numbers []string
	for range 16 {
		sh := book(t, f, 2)
		shipments = append(shipments, sh)
		numbers = append(numbers, sh.TrackingNumbers...)
	}
	req := carrier.ManifestRequest{Key: "man_01JDHL", Date: fakeToday, Shipments: shipments,
		Sender: carrier.Contact{CompanyName: "My Online Shop GmbH"}, Origin: request().Origin}
	m, err := c.CreateManifest(ctx, testSettings(), req)
	if err != nil {
		t.Fatalf("CreateManifest: %v", err)
	}
	if n := f.count("POST " + shippingBase + "/manifests"); n != 2 {
		t.Errorf("%d close-out calls, want 2", n)
	}
	if m.Reference != "2026-11-23 sheet 101, 102" {
		t.Errorf("reference %q", m.Reference)
	}
	if !bytes.HasPrefix(m.Document, []byte("%PDF-")) {
		t.Fatalf("the document is no PDF: %.20q", m.Document)
	}
	pages := checkPDF(t, m.Document)
	var read []string
	for _, page := range labelcheck.PDFBarcodes(t, m.Document) {
		read = append(read, page...)
	}
	// zbarimg reads a page's barcodes in no fixed order.
	slices.Sort(read)
	if pages < 2 || !slices.Equal(read, numbers) {
		t.Errorf("%d pages, barcodes %v\nwant %v", pages, read, numbers)
	}

	err = c.CancelShipment(ctx, testSettings(), carrier.ShipmentRef{TrackingNumbers: shipments[0].TrackingNumbers})
	if _, refused := carrier.RefusalsOf(err); !refused {
		t.Errorf("cancel of a closed-out shipment: %v", err)
	}

	again, err := c.CreateManifest(ctx, testSettings(), req)
	if err != nil || again.Reference != m.Reference || checkPDF(t, again.Document) != pages {
		t.Errorf("made again: %q, %v", again.Reference, err)
	}
}

// A shipment DHL does not hold is refused on shipment_ids (the others are
// closed out all the same); a date DHL has no document for is refused on
// the date; DHL unreachable is unavailable; a shipment without a number
// and an empty manifest are refused before any call.
func TestManifestRefusals(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()
	sh := book(t, f, 1)
	ghost := carrier.DispatchShipment{ShipmentID: "shp_ghost", TrackingNumbers: []string{"340434319999999999"}}
	_, err := c.CreateManifest(ctx, testSettings(), carrier.ManifestRequest{Date: fakeToday, Shipments: []carrier.DispatchShipment{sh, ghost}})
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{carrier.PickupFieldShipments}) || !strings.Contains(rs[0].Message, "340434319999999999") {
		t.Errorf("unknown shipment: %v", err)
	}
	if !f.manifested[sh.TrackingNumbers[0]] {
		t.Error("the known shipment was not closed out")
	}

	_, err = c.CreateManifest(ctx, testSettings(), carrier.ManifestRequest{Date: "2026-11-24", Shipments: []carrier.DispatchShipment{sh}})
	if rs := rejectionsOf(t, err); !slices.Equal(fields(rs), []string{carrier.PickupFieldDate}) {
		t.Errorf("tomorrow's manifest: %v", err)
	}

	for _, status := range []int{500, 429} {
		f.failNext(status)
		if _, err := c.CreateManifest(ctx, testSettings(), carrier.ManifestRequest{Date: fakeToday, Shipments: []carrier.DispatchShipment{sh}}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("close-out HTTP %d: %v", status, err)
		}
		f.failNext(0, status) // the close-out answers, the document does not
		if _, err := c.CreateManifest(ctx, testSettings(), carrier.ManifestRequest{Date: fakeToday, Shipments: []carrier.DispatchShipment{sh}}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("document HTTP %d: %v", status, err)
		}
	}

	before := len(f.calls)
	for _, req := range []carrier.ManifestRequest{
		{Date: fakeToday},
		{Date: fakeToday, Shipments: []carrier.DispatchShipment{{ShipmentID: "shp_none"}}},
		{Date: "today", Shipments: []carrier.DispatchShipment{sh}},
	} {
		if _, err := c.CreateManifest(ctx, testSettings(), req); err == nil {
			t.Errorf("%+v: no refusal", req)
		} else {
			rejectionsOf(t, err)
		}
	}
	if len(f.calls) != before {
		t.Errorf("%d calls for manifests refused before any", len(f.calls)-before)
	}
}

// The fake holds pickup orders and close-outs to DHL's files with every
// object closed: a misspelt optional field is refused.
func TestFakeRefusesMisspeltPickupFields(t *testing.T) {
	f := newFake(t)
	order, err := pickupOrderOf(pickupSettings(), pickupRequest())
	if err != nil {
		t.Fatal(err)
	}
	sent, _ := json.Marshal(order)
	tok, err := f.carrier().token(context.Background(), testSettings())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, field string
		spoil             func(body map[string]any)
	}{
		{"item reference", pickupBase + "/orders", "customerRef", func(b map[string]any) {
			it := b["shipmentDetails"].(map[string]any)["shipments"].([]any)[0].(map[string]any)
			it["customerRef"] = it["customerReference"]
			delete(it, "customerReference")
		}},
		{"comment", pickupBase + "/orders", "remark", func(b map[string]any) { b["pickupDetails"].(map[string]any)["remark"] = "x" }},
		{"hours inside the location, as DHL's examples put them", pickupBase + "/orders", "businessHours", func(b map[string]any) {
			b["pickupLocation"].(map[string]any)["businessHours"] = b["businessHours"]
			delete(b, "businessHours")
		}},
		{"contact mail", pickupBase + "/orders", "mail", func(b map[string]any) { b["contactPerson"].([]any)[0].(map[string]any)["mail"] = "x@y.de" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body map[string]any
			_ = json.Unmarshal(sent, &body)
			tc.spoil(body)
			var reported []string
			f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
			if status := post(t, f, tc.path, tok.AccessToken, body); status != http.StatusBadRequest || len(reported) != 1 || !strings.Contains(reported[0], tc.field) {
				t.Errorf("HTTP %d, reported %q; want 400 naming %s", status, reported, tc.field)
			}
		})
	}
	f.report = t.Errorf
	var body map[string]any
	_ = json.Unmarshal(sent, &body)
	if status := post(t, f, pickupBase+"/orders", tok.AccessToken, body); status != http.StatusOK {
		t.Errorf("the adapter's own order: HTTP %d", status)
	}

	var reported []string
	f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
	close := map[string]any{"profile": DefaultProfile, "shipmentNumber": []string{"340434310000000001"}}
	if status := post(t, f, shippingBase+"/manifests", tok.AccessToken, close); status != http.StatusBadRequest || len(reported) != 1 || !strings.Contains(reported[0], "shipmentNumber") {
		t.Errorf("misspelt close-out: HTTP %d, reported %q", status, reported)
	}
	reported = nil
	many := map[string]any{"profile": DefaultProfile, "shipmentNumbers": slices.Repeat([]string{"340434310000000001"}, 31)}
	if status := post(t, f, shippingBase+"/manifests", tok.AccessToken, many); status != http.StatusBadRequest || len(reported) != 1 {
		t.Errorf("31 numbers in one close-out: HTTP %d, reported %q", status, reported)
	}
}

func post(t *testing.T, f *fake, path, token string, body any) int {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("dhl-api-key", testClientID)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
