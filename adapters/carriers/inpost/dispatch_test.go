package inpost

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
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// booked books n one-parcel shipments of service through the adapter with
// the channel's settings s, and answers them as a pickup names them.
func booked(t *testing.T, f *fakeShipX, s carrier.Settings, service string, n int) []carrier.DispatchShipment {
	t.Helper()
	var out []carrier.DispatchShipment
	for i := range n {
		req := courierRequest(carrier.Parcel{Type: "package", Length: 30, Width: 20, Height: 10, DimensionUnit: "CM", Weight: 2, WeightUnit: "KG"})
		req.ProductType, req.Reference = service, fmt.Sprintf("order-%d", i)
		got, err := newCarrier(f).CreateShipment(ctxT(t), s, req)
		if err != nil {
			t.Fatalf("booking: %v", err)
		}
		out = append(out, carrier.DispatchShipment{ShipmentID: "shp_" + got.ProviderShipmentID, ProviderShipmentID: got.ProviderShipmentID,
			ProductType: service, TrackingNumbers: got.TrackingNumbers, Parcels: req.Parcels})
	}
	return out
}

// dispatchSettings are a channel booking for dispatch orders.
func dispatchSettings(f *fakeShipX) carrier.Settings {
	s := settingsFor(f)
	s["sendingMethod"] = "dispatch_order"
	return s
}

func pickupRequest(key string, shipments []carrier.DispatchShipment) carrier.CourierPickupRequest {
	return carrier.CourierPickupRequest{
		Date: "2026-11-23", ReadyFrom: "09:00", ReadyUntil: "12:00",
		Address:   carrier.Address{StreetName: "Magazynowa", HouseNumber: "1", CityName: "Warszawa", PostalCode: "00-001", CountryCode: "pl"},
		Contact:   carrier.Contact{CompanyName: "Sklep Sp. z o.o.", FirstName: "Anna", LastName: "Nowak", Email: "magazyn@example.pl", Phone: "+48 500 100 200"},
		Shipments: shipments, ParcelCount: len(shipments), TotalWeightKG: 2 * float64(len(shipments)),
		Note:    "Brama od podwórza",
		Booking: carrier.Booking{Key: key},
	}
}

func fieldsOf(err error) []string {
	var out []string
	var r *carrier.Rejection
	var rs carrier.Rejections
	switch {
	case errors.As(err, &rs):
		for _, x := range rs {
			out = append(out, x.Field)
		}
	case errors.As(err, &r):
		out = append(out, r.Field)
	}
	return out
}

func (f *fakeShipX) count(prefix string) int {
	n := 0
	for _, c := range f.callLog() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// The life of a dispatch order: ordered with the pickup's address,
// contact, hours and note, its id recorded before the wait, polled until
// InPost accepts it, read back; accepted, ShipX refuses to cancel it. One
// InPost has not accepted yet is cancelled, twice without harm, and a
// resumed order of it is told so.
func TestDispatchOrderLifecycle(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := dispatchSettings(f)
	shipments := booked(t, f, s, ServiceCourierStandard, 2)

	req := pickupRequest("pck_1", shipments)
	var recorded []string
	req.Booking.Accepted = func(_ context.Context, h string) error { recorded = append(recorded, h); return nil }
	got, err := c.OrderCourierPickup(ctxT(t), s, req)
	if err != nil {
		t.Fatalf("OrderCourierPickup: %v", err)
	}
	if got.ConfirmationNumber == "" || !slices.Equal(recorded, []string{got.ConfirmationNumber}) {
		t.Errorf("ordered %+v, recorded %v", got, recorded)
	}
	if got.Date != "" || got.ReadyFrom != "" || got.ReadyUntil != "" {
		t.Errorf("ShipX confirms no window, got %+v", got)
	}
	f.mu.Lock()
	form := f.orderForms[0]
	f.mu.Unlock()
	addr, _ := form["address"].(map[string]any)
	if addr["street"] != "Magazynowa" || addr["building_number"] != "1" || addr["post_code"] != "00-001" || addr["country_code"] != "PL" ||
		form["name"] != "Sklep Sp. z o.o." || form["phone"] != "500100200" || form["email"] != "magazyn@example.pl" ||
		form["office_hours"] != "09:00-12:00" || form["comment"] != "Brama od podwórza" || len(form["shipments"].([]any)) != 2 {
		t.Errorf("sent %v", form)
	}
	back, err := c.dispatchOrder(ctxT(t), s, got.ConfirmationNumber)
	if err != nil || back.Status != orderAccepted || len(back.Shipments) != 2 || back.Shipments[1].ID.String() != shipments[1].ProviderShipmentID {
		t.Errorf("read back %+v %v", back, err)
	}
	if err := c.CancelCourierPickup(ctxT(t), s, got); !slices.Equal(fieldsOf(err), []string{""}) || !strings.Contains(err.Error(), "accepted") {
		t.Errorf("cancel of an accepted order: %v, want ShipX's refusal", err)
	}

	// Undecided: the attempt runs out of time with its handle recorded.
	f.set(func(f *fakeShipX) { f.orderSteps = -1 })
	more := booked(t, f, s, ServiceCourierStandard, 1)
	req = pickupRequest("pck_2", more)
	var handle string
	req.Booking.Accepted = func(_ context.Context, h string) error { handle = h; return nil }
	ctx, cancel := context.WithTimeout(ctxT(t), 50*time.Millisecond)
	defer cancel()
	if _, err := c.OrderCourierPickup(ctx, s, req); !errors.Is(err, carrier.ErrUnavailable) || handle == "" {
		t.Fatalf("an undecided order: %v (handle %q), want ErrUnavailable", err, handle)
	}
	for i := range 2 {
		if err := c.CancelCourierPickup(ctxT(t), s, carrier.CourierPickup{ConfirmationNumber: handle}); err != nil {
			t.Errorf("cancel %d of a new order: %v", i+1, err)
		}
	}
	req.Booking.Handle = handle
	if _, err := c.OrderCourierPickup(ctxT(t), s, req); !slices.Equal(fieldsOf(err), []string{""}) || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("resuming a cancelled order: %v", err)
	}
	if err := c.CancelCourierPickup(ctxT(t), s, carrier.CourierPickup{ConfirmationNumber: "999999"}); !slices.Equal(fieldsOf(err), []string{""}) {
		t.Errorf("cancel of an unknown order: %v", err)
	}
}

// InPost checks the order after taking it and may reject it (a shipment
// booked to be handed in at a locker [C]): the rejection blames the
// shipments with InPost's reason.
func TestDispatchOrderRejectedLater(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	s["sendingMethod"] = "parcel_locker"
	shipments := booked(t, f, s, ServiceCourierStandard, 1)
	_, err := c.OrderCourierPickup(ctxT(t), s, pickupRequest("pck_r", shipments))
	if !slices.Equal(fieldsOf(err), []string{carrier.PickupFieldShipments}) || !strings.Contains(err.Error(), "parcel_locker") {
		t.Errorf("a rejected order: %v", err)
	}
}

// A retried order resumes the one InPost holds: from the recorded id, or,
// when the record failed, from the organization's orders holding the
// shipments. Either way ShipX gets one order.
func TestDispatchOrderIsOrderedOnce(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := dispatchSettings(f)
	shipments := booked(t, f, s, ServiceCourierStandard, 2)

	req := pickupRequest("pck_h", shipments)
	ctx, kill := context.WithCancel(ctxT(t))
	var handle string
	req.Booking.Accepted = func(_ context.Context, h string) error { handle = h; kill(); return nil }
	if _, err := c.OrderCourierPickup(ctx, s, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("killed attempt: %v, want ErrUnavailable", err)
	}
	retry := pickupRequest("pck_h", shipments)
	retry.Booking.Handle = handle
	retry.Booking.Accepted = func(context.Context, string) error { t.Error("a resumed order recorded again"); return nil }
	got, err := c.OrderCourierPickup(ctxT(t), s, retry)
	if err != nil || got.ConfirmationNumber != handle {
		t.Fatalf("resumed: %+v %v", got, err)
	}

	others := booked(t, f, s, ServiceCourierStandard, 1)
	req = pickupRequest("pck_k", others)
	req.Booking.Accepted = func(context.Context, string) error { return errors.New("database gone") }
	if _, err := c.OrderCourierPickup(ctxT(t), s, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("attempt whose record failed: %v, want ErrUnavailable", err)
	}
	retry = pickupRequest("pck_k", others)
	var recorded string
	retry.Booking.Accepted = func(_ context.Context, h string) error { recorded = h; return nil }
	got, err = c.OrderCourierPickup(ctxT(t), s, retry)
	if err != nil || recorded == "" || got.ConfirmationNumber != recorded {
		t.Fatalf("retried with the key only: %+v %v (recorded %q)", got, err, recorded)
	}
	if n := f.count("POST /v1/organizations/1234/dispatch_orders"); n != 2 {
		t.Errorf("%d dispatch orders POSTed for two pickups, want 2", n)
	}
}

// ShipX's refusals blame the request's fields; what it is known to refuse
// is refused before any call.
func TestDispatchOrderRefusals(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := dispatchSettings(f)
	shipments := booked(t, f, s, ServiceCourierStandard, 1)
	for name, tc := range map[string]struct {
		change func(*carrier.CourierPickupRequest)
		field  string
	}{
		"a postal code ShipX refuses": {func(r *carrier.CourierPickupRequest) { r.Address.PostalCode = "00001" }, carrier.PickupFieldAddress},
		"a phone ShipX refuses":       {func(r *carrier.CourierPickupRequest) { r.Contact.Phone = "12345" }, carrier.PickupFieldContact},
		"an unknown shipment": {func(r *carrier.CourierPickupRequest) {
			r.Shipments = []carrier.DispatchShipment{{ShipmentID: "shp_x", ProviderShipmentID: "99999"}}
		}, carrier.PickupFieldShipments},
	} {
		req := pickupRequest("pck_"+name, shipments)
		tc.change(&req)
		if _, err := c.OrderCourierPickup(ctxT(t), s, req); !slices.Equal(fieldsOf(err), []string{tc.field}) {
			t.Errorf("%s: %v, want a rejection of %s", name, err, tc.field)
		}
	}
	// On a standing order already, collected elsewhere: no order to take
	// up, and ShipX refuses the second.
	if _, err := c.OrderCourierPickup(ctxT(t), s, pickupRequest("pck_a", shipments)); err != nil {
		t.Fatal(err)
	}
	other := pickupRequest("pck_b", shipments)
	other.Address.HouseNumber = "2"
	if _, err := c.OrderCourierPickup(ctxT(t), s, other); !slices.Equal(fieldsOf(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("the same shipments from another place: %v", err)
	}

	before := len(f.callLog())
	for name, tc := range map[string]struct {
		change func(*carrier.CourierPickupRequest)
		field  string
	}{
		"no shipments":      {func(r *carrier.CourierPickupRequest) { r.Shipments = nil }, carrier.PickupFieldShipments},
		"no ShipX id":       {func(r *carrier.CourierPickupRequest) { r.Shipments[0].ProviderShipmentID = "abc" }, carrier.PickupFieldShipments},
		"no city":           {func(r *carrier.CourierPickupRequest) { r.Address.CityName = "" }, carrier.PickupFieldAddress},
		"no phone":          {func(r *carrier.CourierPickupRequest) { r.Contact.Phone = "" }, carrier.PickupFieldContact},
		"no building":       {func(r *carrier.CourierPickupRequest) { r.Address.HouseNumber = "" }, carrier.PickupFieldAddress},
		"no name, no phone": {func(r *carrier.CourierPickupRequest) { r.Contact = carrier.Contact{} }, carrier.PickupFieldContact},
	} {
		req := pickupRequest("pck_x", slices.Clone(shipments))
		tc.change(&req)
		if _, err := c.OrderCourierPickup(ctxT(t), s, req); !slices.Equal(fieldsOf(err), []string{tc.field}) {
			t.Errorf("%s: %v, want a rejection of %s", name, err, tc.field)
		}
	}
	if _, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_0"}); !slices.Equal(fieldsOf(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("a manifest without shipments: %v", err)
	}
	if n := len(f.callLog()) - before; n != 0 {
		t.Errorf("refusals known before the call made %d calls", n)
	}
	if _, err := c.CourierPickupWindows(ctxT(t), s, carrier.PickupWindowsRequest{Date: "2026-11-23"}); !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("windows: %v, want ErrNotOffered", err)
	}
}

// ShipX down is ErrUnavailable, a wrong token blames apiToken, a wrong
// organization organizationId, on every operation of the day.
func TestDispatchUnavailableAndCredentials(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := dispatchSettings(f)
	shipments := booked(t, f, s, ServiceCourierStandard, 1)
	ops := map[string]func(carrier.Settings) error{
		"order": func(s carrier.Settings) error {
			_, err := c.OrderCourierPickup(ctxT(t), s, pickupRequest("pck_u", shipments))
			return err
		},
		"cancel": func(s carrier.Settings) error {
			return c.CancelCourierPickup(ctxT(t), s, carrier.CourierPickup{ConfirmationNumber: "1"})
		},
		"manifest": func(s carrier.Settings) error {
			_, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_u", Shipments: shipments})
			return err
		},
	}
	for name, op := range ops {
		f.set(func(f *fakeShipX) { f.down = true })
		if err := op(s); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("%s, ShipX down: %v, want ErrUnavailable", name, err)
		}
		f.set(func(f *fakeShipX) { f.down = false })
		bad := dispatchSettings(f)
		bad["apiToken"] = "wrong"
		if err := op(bad); !slices.Equal(fieldsOf(err), []string{"apiToken"}) {
			t.Errorf("%s with a wrong token: %v", name, err)
		}
		if name == "cancel" {
			continue // no organization in its path
		}
		bad = dispatchSettings(f)
		bad["organizationId"] = "9999"
		if err := op(bad); !slices.Equal(fieldsOf(err), []string{"organizationId"}) {
			t.Errorf("%s with a wrong organization: %v", name, err)
		}
	}
}

// The manifest is one PDF whose barcodes are every parcel's number: one
// printouts call per service (never a ZIP) and per 100 shipments.
func TestManifest(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	shipments := slices.Concat(booked(t, f, s, ServiceCourierStandard, 2), booked(t, f, s, ServiceCourierExpress12, 1),
		booked(t, f, s, ServiceCourierStandard, 1))
	m, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_1", Date: "2026-11-23", Shipments: shipments})
	if err != nil {
		t.Fatalf("CreateManifest: %v", err)
	}
	if pages := pdfPages(t, m.Document); pages != 2 {
		t.Errorf("%d pages, want one per service", pages)
	}
	var want []string
	for _, sh := range shipments {
		want = append(want, sh.TrackingNumbers...)
	}
	if got := labelcheck.Barcodes(t, "pdf", m.Document); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("barcodes %v, want %v", got, want)
	}
	f.mu.Lock()
	calls := slices.Clone(f.printoutIDs)
	f.mu.Unlock()
	wantCalls := [][]string{{shipments[0].ProviderShipmentID, shipments[1].ProviderShipmentID, shipments[3].ProviderShipmentID}, {shipments[2].ProviderShipmentID}}
	if !slices.EqualFunc(calls, wantCalls, slices.Equal) {
		t.Errorf("printouts calls %v, want %v", calls, wantCalls)
	}

	// 150 shipments of one service: 100, then 50.
	f.mu.Lock()
	f.printoutIDs = nil
	template := f.shipments[shipments[0].ProviderShipmentID]
	var many []carrier.DispatchShipment
	for range 150 {
		f.nextID++
		sh := *template
		sh.id, sh.tns = f.nextID, []string{fmt.Sprintf("6209%020d", f.nextID)}
		f.shipments[strconv.Itoa(sh.id)] = &sh
		many = append(many, carrier.DispatchShipment{ProviderShipmentID: strconv.Itoa(sh.id), ProductType: ServiceCourierStandard})
	}
	f.mu.Unlock()
	if _, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_2", Shipments: many}); err != nil {
		t.Fatalf("150 shipments: %v", err)
	}
	f.mu.Lock()
	sizes := []int{}
	for _, ids := range f.printoutIDs {
		sizes = append(sizes, len(ids))
	}
	f.mu.Unlock()
	if !slices.Equal(sizes, []int{100, 50}) {
		t.Errorf("150 shipments printed in calls of %v, want 100 and 50", sizes)
	}
}

// What ShipX answers despite the split is handled: a ZIP of one PDF per
// service is opened; shipments with and without a dispatch order, which
// ShipX refuses to print together, are printed apart.
func TestManifestZipAndDispatchOrders(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := dispatchSettings(f)
	mixed := slices.Concat(booked(t, f, s, ServiceCourierStandard, 1), booked(t, f, s, ServiceCourierC2C, 1))
	ids, _ := shipXIDs(mixed)
	files, err := c.printouts(ctxT(t), s, ids)
	if err != nil || len(files) != 2 {
		t.Fatalf("a ZIP answer: %d files, %v", len(files), err)
	}
	for i, file := range files {
		if !bytes.HasPrefix(file, []byte("%PDF")) {
			t.Errorf("file %d of the ZIP is no PDF", i)
		}
	}

	ordered := booked(t, f, s, ServiceCourierStandard, 1)
	if _, err := c.OrderCourierPickup(ctxT(t), s, pickupRequest("pck_m", ordered)); err != nil {
		t.Fatal(err)
	}
	shipments := slices.Concat(mixed[:1], ordered)
	f.mu.Lock()
	f.printoutIDs = nil
	f.mu.Unlock()
	m, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_m", Shipments: shipments})
	if err != nil {
		t.Fatalf("with and without a dispatch order: %v", err)
	}
	if pages := pdfPages(t, m.Document); pages != 2 {
		t.Errorf("%d pages", pages)
	}
	f.mu.Lock()
	calls := len(f.printoutIDs)
	f.mu.Unlock()
	if calls != 3 {
		t.Errorf("%d printouts calls, want the refused one and one per kind", calls)
	}
}

// A printout ShipX cannot generate now is unavailability; shipments it
// cannot print are the request's shipment_ids.
func TestManifestRefusals(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	shipments := booked(t, f, s, ServiceCourierStandard, 1)
	f.failPrintout.Arm(1)
	if _, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "m", Shipments: shipments}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("printout_generation_failed: %v, want ErrUnavailable", err)
	}
	unknown := []carrier.DispatchShipment{{ShipmentID: "shp_x", ProviderShipmentID: "99999"}}
	if _, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "m", Shipments: unknown}); !slices.Equal(fieldsOf(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("an unknown shipment: %v", err)
	}
	f.set(func(f *fakeShipX) { f.stepsToGo = -1 })
	pending := booked2(t, f, s)
	if _, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "m", Shipments: pending}); !slices.Equal(fieldsOf(err), []string{carrier.PickupFieldShipments}) ||
		!strings.Contains(err.Error(), "invalid_status") {
		t.Errorf("a shipment not confirmed: %v", err)
	}
}

// booked2 makes a shipment ShipX never confirms (stepsToGo < 0), straight
// through the API as the adapter would, without waiting for it.
func booked2(t *testing.T, f *fakeShipX, s carrier.Settings) []carrier.DispatchShipment {
	t.Helper()
	req := courierRequest()
	ctx, cancel := context.WithTimeout(ctxT(t), 30*time.Millisecond)
	defer cancel()
	var id string
	req.Booking.Accepted = func(_ context.Context, h string) error { id = h; return nil }
	if _, err := newCarrier(f).CreateShipment(ctx, s, req); !errors.Is(err, carrier.ErrUnavailable) || id == "" {
		t.Fatalf("an unconfirmed booking: %v (%q)", err, id)
	}
	return []carrier.DispatchShipment{{ShipmentID: "shp_" + id, ProviderShipmentID: id, ProductType: ServiceCourierStandard}}
}

// pdfPages is poppler's page count of a PDF.
func pdfPages(t *testing.T, pdf []byte) int {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 16)])
	}
	path := filepath.Join(t.TempDir(), "m.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfinfo", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pages:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("pdfinfo names no pages:\n%s", out)
	return 0
}

// The fake holds the dispatch order form to shipx.yaml strictly: a
// misspelt optional attribute is refused, at the top and in the address;
// the adapter's own form passes.
func TestFakeRefusesMisspeltDispatchOrderFields(t *testing.T) {
	f := newFake(t)
	s := dispatchSettings(f)
	if _, err := newCarrier(f).OrderCourierPickup(ctxT(t), s, pickupRequest("pck_s", booked(t, f, s, ServiceCourierStandard, 1))); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	sent := f.orderForms[0]
	f.mu.Unlock()
	for _, tc := range []struct {
		name, field string
		spoil       func(map[string]any)
	}{
		{"top level", "office_hour", func(b map[string]any) { b["office_hour"] = b["office_hours"]; delete(b, "office_hours") }},
		{"in the address", "flat_number", func(b map[string]any) { b["address"].(map[string]any)["flat_number"] = "3" }},
		{"a shipment id as text", "shipments", func(b map[string]any) { b["shipments"] = []any{"101"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body map[string]any
			raw, _ := json.Marshal(sent)
			_ = json.Unmarshal(raw, &body)
			tc.spoil(body)
			var reported []string
			f.set(func(f *fakeShipX) {
				f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
			})
			defer f.set(func(f *fakeShipX) { f.report = t.Errorf })
			raw, _ = json.Marshal(body)
			r, _ := http.NewRequest(http.MethodPost, f.URL()+"/v1/organizations/"+f.org+"/dispatch_orders", bytes.NewReader(raw))
			r.Header.Set("Authorization", "Bearer "+f.token)
			r.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || len(reported) != 1 || !strings.Contains(reported[0], tc.field) {
				t.Errorf("HTTP %d, reported %q; want 400 naming %s", res.StatusCode, reported, tc.field)
			}
		})
	}
}

func TestDispatchInfo(t *testing.T) {
	d := New(Config{}).Info().Dispatch
	want := carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityDefaults,
		PickupShipments: carrier.PickupNamesShipments, Manifest: carrier.ManifestByCarrier, CancelAfterManifest: carrier.CancelAfterManifestCarrier}
	d.Note = ""
	if d != want {
		t.Errorf("Dispatch = %+v, want %+v", d, want)
	}
	if _, ok := carrier.DispatcherOf(New(Config{})); !ok {
		t.Error("the adapter is no Dispatcher")
	}
}
