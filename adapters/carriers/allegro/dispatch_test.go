package allegro

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

// pickupDay is the day the tests collect on, a Monday; the fake proposes
// it and the next working day, never a Sunday.
const (
	pickupDay = "2026-11-23"
	sunday    = "2026-11-29"
)

// booked books shipments through the adapter, one parcel each, and
// answers them as a pickup or manifest names them.
func booked(t *testing.T, c *Carrier, refs ...string) []carrier.DispatchShipment {
	t.Helper()
	var out []carrier.DispatchShipment
	for _, ref := range refs {
		req := shipmentRequest(ref, ProductCourier, "pdf", parcel(2))
		got, err := c.CreateShipment(ctxT(t), testSettings(), req)
		if err != nil {
			t.Fatalf("booking %s: %v", ref, err)
		}
		out = append(out, carrier.DispatchShipment{ShipmentID: "shp_" + ref, ProviderShipmentID: got.ProviderShipmentID,
			Reference: ref, ProductType: ProductCourier, TrackingNumbers: got.TrackingNumbers, Parcels: req.Parcels})
	}
	return out
}

func pickupRequest(key string, shipments []carrier.DispatchShipment) carrier.CourierPickupRequest {
	return carrier.CourierPickupRequest{
		Date: pickupDay, ReadyFrom: "09:00", ReadyUntil: "12:00",
		Address:   carrier.Address{StreetName: "Magazynowa", HouseNumber: "5", CityName: "Warszawa", PostalCode: "02-123", CountryCode: "PL"},
		Contact:   carrier.Contact{CompanyName: "Sklep Kowalski", FirstName: "Jan", LastName: "Kowalski", Email: "magazyn@kowalski.pl", Phone: "500600700"},
		Shipments: shipments, ParcelCount: len(shipments), TotalWeightKG: 2 * float64(len(shipments)),
		Booking: carrier.Booking{Key: key},
	}
}

func windowsRequest(shipments []carrier.DispatchShipment, date string) carrier.PickupWindowsRequest {
	return carrier.PickupWindowsRequest{Date: date, Shipments: shipments,
		Address: carrier.Address{StreetName: "Magazynowa", HouseNumber: "5", CityName: "Warszawa", PostalCode: "02-123", CountryCode: "PL"}}
}

func ids(shipments []carrier.DispatchShipment) []string {
	var out []string
	for _, s := range shipments {
		out = append(out, s.ProviderShipmentID)
	}
	return out
}

// The day of two shipments: the windows Allegro proposes, a pickup ordered
// in one of them (its command recorded before the poll), read back, and no
// cancel.
func TestPickupWindowsOrderReadBack(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	shipments := booked(t, c, "D1", "D2")

	windows, err := c.CourierPickupWindows(ctxT(t), s, windowsRequest(shipments, pickupDay))
	if err != nil {
		t.Fatalf("CourierPickupWindows: %v", err)
	}
	want := []carrier.PickupWindow{{From: "09:00", Until: "12:00"}, {From: "12:00", Until: "16:00"}}
	if !slices.Equal(windows, want) {
		t.Errorf("windows %v, want %v", windows, want)
	}
	f.mu.Lock()
	asked := f.proposalBodies[0]
	f.mu.Unlock()
	// The contact Allegro requires is the shipments' sender.
	if asked.ReadyDate != pickupDay || asked.Address.Street != "Magazynowa 5" || asked.Address.Email != "sklep@kowalski.pl" ||
		asked.Address.Company != "Sklep Kowalski" || !slices.Equal(asked.ShipmentIDs, ids(shipments)) {
		t.Errorf("proposals asked with %+v", asked)
	}

	req := pickupRequest("pck_1", shipments)
	var recorded []string
	req.Booking.Accepted = func(_ context.Context, h string) error { recorded = append(recorded, h); return nil }
	got, err := c.OrderCourierPickup(ctxT(t), s, req)
	if err != nil {
		t.Fatalf("OrderCourierPickup: %v", err)
	}
	if !slices.Equal(recorded, []string{pickupCommandID("pck_1")}) {
		t.Errorf("recorded %v", recorded)
	}
	if !strings.HasPrefix(got.ConfirmationNumber, "AD") || got.Handle == "" || got.Date != pickupDay || got.ReadyFrom != "09:00" || got.ReadyUntil != "12:00" {
		t.Errorf("ordered %+v", got)
	}
	f.mu.Lock()
	sent := f.pickups[got.Handle].input
	f.mu.Unlock()
	if sent.Address.Street != "Magazynowa 5" || sent.Address.Email != "magazyn@kowalski.pl" || sent.Address.Name != "Jan Kowalski" ||
		*sent.PickupTime != (pickupTime{Date: pickupDay, MinTime: "09:00", MaxTime: "12:00"}) {
		t.Errorf("sent %+v %+v", sent.Address, sent.PickupTime)
	}

	back, err := c.pickup(ctxT(t), s, got.Handle)
	if err != nil {
		t.Fatalf("reading the pickup back: %v", err)
	}
	if back.CarrierPickupID != got.ConfirmationNumber || !slices.Equal(back.ShipmentIDs, ids(shipments)) {
		t.Errorf("read back %+v", back)
	}
	if err := c.CancelCourierPickup(ctxT(t), s, got); !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("cancel: %v, want ErrNotOffered", err)
	}
}

// One courier collects them all: the windows are those offered to every
// shipment; a day without proposals, or a shipment never collected (a
// locker method's), leaves none. More than 100 shipments are asked in
// several calls.
func TestPickupWindowsAreCommonToEveryShipment(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	shipments := booked(t, c, "W1", readyLate)
	windows, err := c.CourierPickupWindows(ctxT(t), s, windowsRequest(shipments, pickupDay))
	if want := []carrier.PickupWindow{{From: "12:00", Until: "16:00"}}; err != nil || !slices.Equal(windows, want) {
		t.Errorf("with a shipment ready late: %v %v, want %v", windows, err, want)
	}
	windows, err = c.CourierPickupWindows(ctxT(t), s, windowsRequest(shipments[:1], sunday))
	if err != nil || windows == nil || len(windows) != 0 {
		t.Errorf("a day without proposals: %#v %v", windows, err)
	}

	locker := shipmentRequest("L1", ProductPickupPoint, "pdf", parcel(1))
	locker.PickupPoint = knownPoint
	got, err := c.CreateShipment(ctxT(t), s, locker)
	if err != nil {
		t.Fatal(err)
	}
	withLocker := append(slices.Clone(shipments[:1]), carrier.DispatchShipment{ShipmentID: "shp_L1", ProviderShipmentID: got.ProviderShipmentID})
	if windows, err := c.CourierPickupWindows(ctxT(t), s, windowsRequest(withLocker, pickupDay)); err != nil || len(windows) != 0 {
		t.Errorf("with a locker shipment: %v %v", windows, err)
	}

	f.mu.Lock()
	in := f.shipments[shipments[0].ProviderShipmentID].input
	f.mu.Unlock()
	var many []carrier.DispatchShipment
	for range 150 {
		many = append(many, carrier.DispatchShipment{ProviderShipmentID: f.addShipment(in)})
	}
	before := f.count("POST " + proposalsPath)
	windows, err = c.CourierPickupWindows(ctxT(t), s, windowsRequest(many, pickupDay))
	if err != nil || len(windows) != 2 {
		t.Errorf("150 shipments: %v %v", windows, err)
	}
	f.mu.Lock()
	sizes := []int{len(f.proposalBodies[len(f.proposalBodies)-2].ShipmentIDs), len(f.proposalBodies[len(f.proposalBodies)-1].ShipmentIDs)}
	f.mu.Unlock()
	if n := f.count("POST "+proposalsPath) - before; n != 2 || !slices.Equal(sizes, []int{100, 50}) {
		t.Errorf("150 shipments asked in %d calls of %v, want 2 of 100 and 50", n, sizes)
	}
}

// Allegro's refusals blame the request's fields; what it is known to
// refuse is refused before any call.
func TestPickupRefusals(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	shipments := booked(t, c, "R1")

	for name, tc := range map[string]struct {
		change func(*carrier.CourierPickupRequest)
		field  string
	}{
		"a window not proposed": {func(r *carrier.CourierPickupRequest) { r.ReadyFrom, r.ReadyUntil = "07:00", "09:00" }, carrier.PickupFieldReadyFrom},
		"a day not proposed":    {func(r *carrier.CourierPickupRequest) { r.Date = sunday }, carrier.PickupFieldDate},
		"an unknown shipment": {func(r *carrier.CourierPickupRequest) {
			r.Shipments = append(slices.Clone(r.Shipments), carrier.DispatchShipment{ProviderShipmentID: "ba88f0fb-0000-0000-0000-000000000000"})
		}, carrier.PickupFieldShipments},
	} {
		req := pickupRequest("pck_"+name, shipments)
		tc.change(&req)
		_, err := c.OrderCourierPickup(ctxT(t), s, req)
		if !slices.Equal(field(err), []string{tc.field}) {
			t.Errorf("%s: %v, want a rejection of %s", name, err, tc.field)
		}
	}
	if _, err := c.CourierPickupWindows(ctxT(t), s, windowsRequest(append(slices.Clone(shipments),
		carrier.DispatchShipment{ProviderShipmentID: "ba88f0fb-0000-0000-0000-000000000000"}), pickupDay)); !slices.Equal(field(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("windows of an unknown shipment: %v", err)
	}

	before := f.count("")
	for name, tc := range map[string]struct {
		change func(*carrier.CourierPickupRequest)
		field  string
	}{
		"no shipments":       {func(r *carrier.CourierPickupRequest) { r.Shipments = nil }, carrier.PickupFieldShipments},
		"a shipment not his": {func(r *carrier.CourierPickupRequest) { r.Shipments[0].ProviderShipmentID = "" }, carrier.PickupFieldShipments},
		"no date":            {func(r *carrier.CourierPickupRequest) { r.Date = "" }, carrier.PickupFieldDate},
		"no e-mail":          {func(r *carrier.CourierPickupRequest) { r.Contact.Email = "" }, carrier.PickupFieldContact},
		"no city":            {func(r *carrier.CourierPickupRequest) { r.Address.CityName = "" }, carrier.PickupFieldAddress},
	} {
		req := pickupRequest("pck_x", slices.Clone(shipments))
		tc.change(&req)
		if _, err := c.OrderCourierPickup(ctxT(t), s, req); !slices.Equal(field(err), []string{tc.field}) {
			t.Errorf("%s: %v, want a rejection of %s", name, err, tc.field)
		}
	}
	if _, err := c.CourierPickupWindows(ctxT(t), s, windowsRequest(nil, pickupDay)); !slices.Equal(field(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("windows without shipments: %v", err)
	}
	if _, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_0"}); !slices.Equal(field(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("a manifest without shipments: %v", err)
	}
	if n := f.count("") - before; n != 0 {
		t.Errorf("refusals known before the call made %d calls", n)
	}
}

// A pickup killed between Allegro's acceptance and the poll is resumed from
// the recorded command by the retry: one command, one pickup.
func TestPickupResumesFromTheRecordedHandle(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	shipments := booked(t, c, "P1")
	req := pickupRequest("pck_resume", shipments)
	ctx, kill := context.WithCancel(ctxT(t))
	var handle string
	req.Booking.Accepted = func(_ context.Context, h string) error { handle = h; kill(); return nil }
	if _, err := c.OrderCourierPickup(ctx, testSettings(), req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("killed attempt: %v, want ErrUnavailable", err)
	}
	retry := pickupRequest("pck_resume", shipments)
	retry.Booking.Handle = handle
	retry.Booking.Accepted = func(context.Context, string) error { t.Error("a resumed pickup recorded again"); return nil }
	got, err := c.OrderCourierPickup(ctxT(t), testSettings(), retry)
	if err != nil || got.ConfirmationNumber == "" {
		t.Fatalf("resumed attempt: %+v %v", got, err)
	}
	if posts := f.count("POST " + pickupCommands); posts != 1 || len(f.pickups) != 1 {
		t.Errorf("%d pickup commands POSTed, %d pickups; want 1 and 1", posts, len(f.pickups))
	}
}

// An attempt whose record failed is retried with the key only: the same
// commandId goes out, Allegro refuses the duplicate, and the command is
// resumed: still one pickup.
func TestPickupRetriedWithTheKeyOnlyOrdersOnce(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	shipments := booked(t, c, "P2")
	req := pickupRequest("pck_key", shipments)
	req.Booking.Accepted = func(context.Context, string) error { return errors.New("database gone") }
	if _, err := c.OrderCourierPickup(ctxT(t), testSettings(), req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("attempt whose record failed: %v, want ErrUnavailable", err)
	}
	retry := pickupRequest("pck_key", shipments)
	var recorded string
	retry.Booking.Accepted = func(_ context.Context, h string) error { recorded = h; return nil }
	got, err := c.OrderCourierPickup(ctxT(t), testSettings(), retry)
	if err != nil || got.ConfirmationNumber == "" || recorded != pickupCommandID("pck_key") {
		t.Fatalf("retry: %+v %v, recorded %q", got, err, recorded)
	}
	f.mu.Lock()
	cmds, pickups := len(f.pickupCmds), len(f.pickups)
	f.mu.Unlock()
	if cmds != 1 || pickups != 1 {
		t.Errorf("%d commands, %d pickups; want 1 and 1", cmds, pickups)
	}
	// A second pickup of the same shipments under another key is Allegro's
	// refusal of the shipments.
	if _, err := c.OrderCourierPickup(ctxT(t), testSettings(), pickupRequest("pck_other", shipments)); !slices.Equal(field(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("a second pickup: %v", err)
	}
}

// The carrier's number may follow the command's success: the pickup is
// read for it.
func TestPickupNumberReadBackWhenLate(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	shipments := booked(t, c, "N1")
	f.mu.Lock()
	f.lateCarrierNo = true
	f.mu.Unlock()
	got, err := c.OrderCourierPickup(ctxT(t), testSettings(), pickupRequest("pck_late", shipments))
	if err != nil || !strings.HasPrefix(got.ConfirmationNumber, "AD") {
		t.Errorf("ordered %+v %v", got, err)
	}
	if n := f.count("GET " + pickupsPath + "/" + got.Handle); n != 1 {
		t.Errorf("the pickup read %d times", n)
	}
}

// Unreachable is ErrUnavailable, bad credentials blame them, on every
// operation of the day.
func TestDispatchUnavailableAndCredentials(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	shipments := booked(t, c, "U1")
	ops := map[string]func(carrier.Settings) error{
		"order": func(s carrier.Settings) error {
			_, err := c.OrderCourierPickup(ctxT(t), s, pickupRequest("pck_u", shipments))
			return err
		},
		"windows": func(s carrier.Settings) error {
			_, err := c.CourierPickupWindows(ctxT(t), s, windowsRequest(shipments, pickupDay))
			return err
		},
		"manifest": func(s carrier.Settings) error {
			_, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_u", Date: pickupDay, Shipments: shipments})
			return err
		},
	}
	for name, op := range ops {
		for _, status := range []int{503, 504, 429} {
			f.failNext(status)
			if err := op(s); !errors.Is(err, carrier.ErrUnavailable) {
				t.Errorf("%s, HTTP %d: %v, want ErrUnavailable", name, status, err)
			}
		}
		bad := testSettings()
		bad["clientSecret"] = "wrong"
		if err := op(bad); !slices.Equal(field(err), []string{"clientSecret"}) {
			t.Errorf("%s with a wrong secret: %v", name, err)
		}
	}
	f.mu.Lock()
	f.fail = nil
	f.mu.Unlock()
	f.revokeAccess()
	f.failNext(http.StatusUnauthorized, http.StatusUnauthorized)
	if err := ops["manifest"](s); !slices.Equal(field(err), []string{"refreshToken"}) {
		t.Errorf("a token refused twice: %v", err)
	}
}

// The protocol comes back as one PDF whose barcodes are the waybills of
// every shipment, one call per product; a manifest holding a shipment whose
// carrier makes no protocol (204) has no document, for shipd to draw its
// own.
func TestManifest(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	shipments := booked(t, c, "M1", "M2")
	locker := shipmentRequest("M3", ProductPickupPoint, "pdf", parcel(1), parcel(3))
	locker.PickupPoint = knownPoint
	got, err := c.CreateShipment(ctxT(t), s, locker)
	if err != nil {
		t.Fatal(err)
	}
	shipments = append(shipments, carrier.DispatchShipment{ShipmentID: "shp_M3", ProviderShipmentID: got.ProviderShipmentID,
		ProductType: ProductPickupPoint, TrackingNumbers: got.TrackingNumbers})

	m, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_1", Date: pickupDay, Shipments: shipments})
	if err != nil {
		t.Fatalf("CreateManifest: %v", err)
	}
	if pages := pdfPages(t, m.Document); pages < 2 {
		t.Errorf("%d pages, want one protocol per product", pages)
	}
	var want []string
	for _, sh := range shipments {
		want = append(want, sh.TrackingNumbers...)
	}
	// A page lists several parcels, which zbar reads in an order of its own.
	if got := labelcheck.Barcodes(t, "pdf", m.Document); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("protocol barcodes %v, want %v", got, want)
	}
	f.mu.Lock()
	calls := slices.Clone(f.protocolCalls)
	f.mu.Unlock()
	if len(calls) != 2 || !slices.Equal(calls[0], ids(shipments[:2])) || !slices.Equal(calls[1], ids(shipments[2:])) {
		t.Errorf("protocol calls %v", calls)
	}

	none := booked(t, c, noProtocol)
	m, err = c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_2", Date: pickupDay, Shipments: slices.Concat(shipments[:1], none)})
	if err != nil || m.Document != nil {
		t.Errorf("with a carrier without protocol: %d bytes, %v; want no document", len(m.Document), err)
	}

	unknown := []carrier.DispatchShipment{{ShipmentID: "shp_X", ProviderShipmentID: "ba88f0fb-0000-0000-0000-000000000000"}}
	if _, err := c.CreateManifest(ctxT(t), s, carrier.ManifestRequest{Key: "man_3", Shipments: unknown}); !slices.Equal(field(err), []string{carrier.PickupFieldShipments}) {
		t.Errorf("an unknown shipment: %v", err)
	}
}

// pdfPages is poppler's page count of a PDF, failing the test on anything
// that is not one.
func pdfPages(t *testing.T, pdf []byte) int {
	t.Helper()
	if !strings.HasPrefix(string(pdf), "%PDF") {
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
			n := 0
			for _, r := range strings.TrimSpace(rest) {
				n = n*10 + int(r-'0')
			}
			return n
		}
	}
	t.Fatalf("pdfinfo names no pages:\n%s", out)
	return 0
}

// The fake holds the pickup's requests to Allegro's file strictly: a
// misspelt optional property is refused, in the address (PickupAddressDto,
// flattened by fixSpec), in the pickup time and in the proposals' request;
// the body the adapter sends, pickupTime without the deprecated proposal
// id, passes (AssumedPickupTimeReading).
func TestFakeRefusesUndocumentedPickupProperties(t *testing.T) {
	sp := loadSpec(t)
	good := `{"commandId":"x","input":{"shipmentIds":["s1"],"pickupTime":{"date":"2026-11-23","minTime":"09:00","maxTime":"12:00"},` +
		`"address":{"company":"c","street":"s","postalCode":"00-001","city":"c","countryCode":"PL","email":"e","phone":"1"}}}`
	for body, refused := range map[string]bool{
		good: false,
		strings.Replace(good, `"minTime"`, `"minTme"`, 1):                    true,
		strings.Replace(good, `"company"`, `"compny"`, 1):                    true,
		strings.Replace(good, `"city":"c",`, `"city":"c","point":"P",`, 1):   true, // a pickup address has no point
		strings.Replace(good, `"shipmentIds":["s1"]`, `"shipmentIds":[]`, 1): true,
		strings.Replace(good, `"email":"e",`, ``, 1):                         true,
	} {
		r, _ := http.NewRequest(http.MethodPost, specBase+pickupCommands, strings.NewReader(body))
		r.Header.Set("Content-Type", mediaType)
		if _, err := sp.CheckRequest(r); (err != nil) != refused {
			t.Errorf("refused=%v, want %v: %v\n%s", err != nil, refused, err, body)
		}
	}
	proposals := `{"shipmentIds":["s1"],"readyDate":"2026-11-23","address":{"name":"n","street":"s","postalCode":"00-001","city":"c","countryCode":"PL","email":"e","phone":"1"}}`
	for body, refused := range map[string]bool{
		proposals: false,
		strings.Replace(proposals, `"readyDate"`, `"readyDay"`, 1): true,
	} {
		r, _ := http.NewRequest(http.MethodPost, specBase+proposalsPath, strings.NewReader(body))
		r.Header.Set("Content-Type", mediaType)
		if _, err := sp.CheckRequest(r); (err != nil) != refused {
			t.Errorf("proposals refused=%v, want %v: %v\n%s", err != nil, refused, err, body)
		}
	}
}

func TestDispatchInfo(t *testing.T) {
	d := New(Config{}).Info().Dispatch
	want := carrier.DispatchInfo{Pickups: true, PickupCancel: false, PickupAvailability: carrier.AvailabilityCarrier,
		PickupShipments: carrier.PickupNamesShipments, Manifest: carrier.ManifestByCarrier, CancelAfterManifest: carrier.CancelAfterManifestCarrier}
	d.Note = ""
	if d != want {
		t.Errorf("Dispatch = %+v, want %+v", d, want)
	}
	if _, ok := carrier.DispatcherOf(New(Config{})); !ok {
		t.Error("the adapter is no Dispatcher")
	}
}

func TestPickupFieldPaths(t *testing.T) {
	for path, want := range map[string]string{
		"input.shipmentIds[3]":         carrier.PickupFieldShipments,
		"shipmentIds":                  carrier.PickupFieldShipments,
		"input.pickupTime.date":        carrier.PickupFieldDate,
		"input.pickupTime":             carrier.PickupFieldDate,
		"input.pickupTime.minTime":     carrier.PickupFieldReadyFrom,
		"pickupTime.maxTime":           carrier.PickupFieldReadyUntil,
		"readyDate":                    carrier.PickupFieldDate,
		"input.address.postalCode":     carrier.PickupFieldAddress,
		"address.phone":                carrier.PickupFieldContact,
		"input.address.company":        carrier.PickupFieldContact,
		"input.pickupDateProposalId":   carrier.PickupFieldDate,
		"somethingAllegroAddsTomorrow": "",
		"":                             "",
	} {
		if got := pickupField(path); got != want {
			t.Errorf("pickupField(%q) = %q, want %q", path, got, want)
		}
	}
}

// The windows common to every shipment keep the first shipment's order,
// once each; a proposal without times is a window without times
// (AssumedWholeDayProposal); another day's proposals do not count.
func TestCommonWindows(t *testing.T) {
	day := func(min, max string) pickupTime { return pickupTime{Date: pickupDay, MinTime: min, MaxTime: max} }
	offered := map[string][]pickupTime{
		"a": {day("12:00", "16:00"), day("09:00", "12:00"), day("", ""), day("12:00", "16:00"), {Date: sunday, MinTime: "09:00", MaxTime: "12:00"}},
		"b": {day("09:00", "12:00"), day("", ""), day("12:00", "16:00")},
		"c": {day("09:00", "12:00"), day("12:00", "16:00"), day("", "")},
	}
	got := commonWindows([]string{"a", "b", "c"}, offered, pickupDay)
	want := []carrier.PickupWindow{{From: "12:00", Until: "16:00"}, {From: "09:00", Until: "12:00"}, {}}
	if !slices.Equal(got, want) {
		t.Errorf("windows %v, want %v", got, want)
	}
	offered["c"] = offered["c"][:1]
	if got := commonWindows([]string{"a", "b", "c"}, offered, pickupDay); !slices.Equal(got, []carrier.PickupWindow{{From: "09:00", Until: "12:00"}}) {
		t.Errorf("with c offered the morning only: %v", got)
	}
	if got := commonWindows([]string{"a", "missing"}, offered, pickupDay); got == nil || len(got) != 0 {
		t.Errorf("with a shipment offered nothing: %#v", got)
	}
}
