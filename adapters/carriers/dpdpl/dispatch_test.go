package dpdpl

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

// pickupRequest is a courier order for Tuesday 1 December 2026, 12:00 to
// 15:00 (one of the fake's ranges), of two shipments' three parcels.
func pickupRequest() carrier.CourierPickupRequest {
	big := parcel(2.5)
	big.Length, big.Width, big.Height = 40, 30, 25
	return carrier.CourierPickupRequest{
		Date: "2026-12-01", ReadyFrom: "12:00", ReadyUntil: "15:00",
		Address: carrier.Address{StreetName: "Magazynowa", HouseNumber: "1", CityName: "Warszawa", PostalCode: "02-274", CountryCode: "PL"},
		Contact: carrier.Contact{CompanyName: "Acme Sp. z o.o.", FirstName: "Jan", LastName: "Nowak", Phone: "+48111222333"},
		Shipments: []carrier.DispatchShipment{
			{ShipmentID: "shp_1", Parcels: []carrier.Parcel{big, parcel(1)}},
			{ShipmentID: "shp_2", Parcels: []carrier.Parcel{parcel(0.4)}},
		},
		ParcelCount: 3, TotalWeightKG: 3.9,
		Booking: carrier.Booking{Key: "pck_1"},
	}
}

// An order sends the date, window, sender block and counts; DPD answers an
// order number and checksum, recorded as soon as DPD answers. A retried
// attempt given that record answers the same order without ordering again,
// and the order is cancelled by its number and checksum.
func TestCourierPickupIsOrderedOnceAndCancelled(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	req := pickupRequest()
	var recorded []string
	req.Booking.Accepted = func(_ context.Context, handle string) error {
		recorded = append(recorded, handle)
		return nil
	}
	p, err := e.c.OrderCourierPickup(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("OrderCourierPickup: %v", err)
	}
	if !strings.HasPrefix(p.ConfirmationNumber, "20261201") || p.Date != "" || p.ReadyFrom != "" || p.ReadyUntil != "" {
		t.Errorf("pickup %+v: want DPD's number and no confirmed window", p)
	}
	if len(recorded) != 1 || recorded[0] != p.Handle || !strings.Contains(p.Handle, `"check_sum":`) {
		t.Errorf("recorded %q, handle %q", recorded, p.Handle)
	}

	// What DPD was sent.
	b := e.sandbox.lastBody().child("dpdPickupParamsV3")
	for path, want := range map[string]string{
		"operationType": "INSERT", "orderType": "DOMESTIC", "pickupDate": "2026-12-01", "pickupTimeFrom": "12:00",
		"pickupTimeTo": "15:00", "waybillsReady": "true",
		"pickupCallSimplifiedDetails/pickupSender/senderFullName":    "Acme Sp. z o.o.",
		"pickupCallSimplifiedDetails/pickupSender/senderName":        "Jan Nowak",
		"pickupCallSimplifiedDetails/pickupSender/senderAddress":     "Magazynowa 1",
		"pickupCallSimplifiedDetails/pickupSender/senderPostalCode":  "02274",
		"pickupCallSimplifiedDetails/pickupSender/senderPhone":       "+48111222333",
		"pickupCallSimplifiedDetails/pickupCustomer/customerPhone":   "+48111222333",
		"pickupCallSimplifiedDetails/pickupPayer/payerNumber":        "1495",
		"pickupCallSimplifiedDetails/packagesParams/standardParcel":  "true",
		"pickupCallSimplifiedDetails/packagesParams/parcelsCount":    "3",
		"pickupCallSimplifiedDetails/packagesParams/parcelsWeight":   "3.9",
		"pickupCallSimplifiedDetails/packagesParams/parcelMaxWeight": "2.5",
		"pickupCallSimplifiedDetails/packagesParams/parcelMaxWidth":  "40",
		"pickupCallSimplifiedDetails/packagesParams/parcelMaxHeight": "30",
		"pickupCallSimplifiedDetails/packagesParams/parcelMaxDepth":  "25",
	} {
		if got := b.text(path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if b.child("checkSum") != nil || b.child("orderNumber") != nil {
		t.Error("an INSERT names an order")
	}

	// The next attempt, given what the first recorded, orders nothing.
	again := pickupRequest()
	again.Booking.Handle = recorded[0]
	again.Booking.Accepted = func(context.Context, string) error { t.Error("a resumed order recorded again"); return nil }
	p2, err := e.c.OrderCourierPickup(ctx, e.settings, again)
	if err != nil || p2 != p {
		t.Errorf("resumed: %+v, %v; want %+v", p2, err, p)
	}
	if n := e.sandbox.pickupOrderCount(); n != 1 || e.sandbox.count("packagesPickupCallV4") != 1 {
		t.Errorf("DPD holds %d orders after %d calls, want 1 and 1", n, e.sandbox.count("packagesPickupCallV4"))
	}

	// Cancel: the number and checksum only.
	if err := e.c.CancelCourierPickup(ctx, e.settings, p); err != nil {
		t.Fatalf("CancelCourierPickup: %v", err)
	}
	b = e.sandbox.lastBody().child("dpdPickupParamsV3")
	if len(b.Children) != 3 || b.text("operationType") != "CANCEL" || b.text("orderNumber") != p.ConfirmationNumber || b.text("checkSum") == "" {
		t.Errorf("cancel sent %d elements: %q %q %q", len(b.Children), b.text("operationType"), b.text("orderNumber"), b.text("checkSum"))
	}
	if !e.sandbox.order(p.ConfirmationNumber).cancelled {
		t.Error("DPD did not cancel the order")
	}
	// Twice: DPD's refusal, with its reason.
	if rej := rejection(t, e.c.CancelCourierPickup(ctx, e.settings, p)); !strings.Contains(rej.Message, "ALREADY_CANCELLED") {
		t.Errorf("second cancel: %v", rej)
	}
	// An order whose courier is on the way.
	p3, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest())
	if err != nil {
		t.Fatal(err)
	}
	e.sandbox.order(p3.ConfirmationNumber).noCancel = true
	if rej := rejection(t, e.c.CancelCourierPickup(ctx, e.settings, p3)); !strings.Contains(rej.Message, "nie można anulować") {
		t.Errorf("late cancel: %v", rej)
	}
	// Without the checksum shipd cannot ask DPD at all.
	before := e.sandbox.count("")
	if rej := rejection(t, e.c.CancelCourierPickup(ctx, e.settings, carrier.CourierPickup{ConfirmationNumber: "202612011"})); !strings.Contains(rej.Message, "customer service") {
		t.Errorf("no handle: %v", rej)
	}
	if e.sandbox.count("") != before {
		t.Error("a cancel without a checksum reached DPD")
	}
}

// DPD's refusals land on the request's fields; what DPD is known to refuse
// is refused before any call.
func TestCourierPickupRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	field := func(err error) string { t.Helper(); return rejection(t, err).Field }
	order := func(edit func(*carrier.CourierPickupRequest)) error {
		req := pickupRequest()
		edit(&req)
		_, err := e.c.OrderCourierPickup(ctx, e.settings, req)
		return err
	}

	// DPD's own validation (errorDetails.fields).
	if f := field(order(func(r *carrier.CourierPickupRequest) { r.Date = "2026-12-06" })); f != carrier.PickupFieldDate {
		t.Errorf("a Sunday blames %q", f)
	}
	if f := field(order(func(r *carrier.CourierPickupRequest) { r.ReadyFrom, r.ReadyUntil = "07:00", "09:00" })); f != carrier.PickupFieldReadyFrom {
		t.Errorf("a window DPD does not offer blames %q", f)
	}
	err := order(func(r *carrier.CourierPickupRequest) { r.Address.PostalCode = "0227" })
	if f := field(err); f != carrier.PickupFieldAddress || !strings.Contains(err.Error(), "Niepoprawny kod pocztowy") {
		t.Errorf("a bad postal code: %v", err)
	}
	e.settings["masterFid"] = "1496"
	e.sandbox.masterFid = "1496"
	if err := order(func(*carrier.CourierPickupRequest) {}); err != nil {
		t.Errorf("the payer is the masterFid: %v", err)
	}
	e.sandbox.masterFid, e.settings["masterFid"] = "1495", "1495"

	// Refused before any call.
	before := e.sandbox.count("")
	for name, tc := range map[string]struct {
		edit  func(*carrier.CourierPickupRequest)
		field string
	}{
		"no date":         {func(r *carrier.CourierPickupRequest) { r.Date = "1.12.2026" }, carrier.PickupFieldDate},
		"no window":       {func(r *carrier.CourierPickupRequest) { r.ReadyFrom = "" }, carrier.PickupFieldReadyFrom},
		"window reversed": {func(r *carrier.CourierPickupRequest) { r.ReadyUntil = "11:00" }, carrier.PickupFieldReadyUntil},
		"no parcels":      {func(r *carrier.CourierPickupRequest) { r.ParcelCount = 0 }, carrier.PickupFieldParcels},
		"no weight":       {func(r *carrier.CourierPickupRequest) { r.TotalWeightKG = 0 }, carrier.PickupFieldWeight},
		"no street":       {func(r *carrier.CourierPickupRequest) { r.Address.StreetName = "" }, carrier.PickupFieldAddress},
		"no phone":        {func(r *carrier.CourierPickupRequest) { r.Contact.Phone = "" }, carrier.PickupFieldContact},
	} {
		if f := field(order(tc.edit)); f != tc.field {
			t.Errorf("%s blames %q, want %q", name, f, tc.field)
		}
	}
	if e.sandbox.count("") != before {
		t.Error("a request known to be refused reached DPD")
	}

	// Wrong credentials: DPD's fault, on the password.
	e.settings["password"] = "wrong"
	if f := field(order(func(*carrier.CourierPickupRequest) {})); f != "password" {
		t.Errorf("wrong password blames %q", f)
	}
	e.settings["password"] = "test-password"

	// A record that fails ends the attempt as unavailable: DPD holds the
	// order, the next attempt may order again (the window ADR 0041 leaves).
	req := pickupRequest()
	req.Booking.Accepted = func(context.Context, string) error { return errors.New("database gone") }
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("a failed record: %v, want ErrUnavailable", err)
	}
}

func TestDispatchUnavailable(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	p, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest())
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []int{503, 502, 429, 500} {
		e.sandbox.failNext(status, 1)
		if _, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest()); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("order, HTTP %d: %v", status, err)
		}
		e.sandbox.failNext(status, 1)
		if err := e.c.CancelCourierPickup(ctx, e.settings, p); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("cancel, HTTP %d: %v", status, err)
		}
		e.sandbox.failNext(status, 1)
		if _, err := e.c.CourierPickupWindows(ctx, e.settings, carrier.PickupWindowsRequest{Date: "2026-12-01", Address: pickupRequest().Address}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("windows, HTTP %d: %v", status, err)
		}
		e.sandbox.failNext(status, 1)
		m := carrier.ManifestRequest{Date: "2026-12-01", Shipments: []carrier.DispatchShipment{{ShipmentID: "s", TrackingNumbers: []string{"1"}}}}
		if _, err := e.c.CreateManifest(ctx, e.settings, m); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("manifest, HTTP %d: %v", status, err)
		}
	}
	if n := e.sandbox.pickupOrderCount(); n != 1 {
		t.Errorf("DPD holds %d orders, want 1", n)
	}
}

// DPD's ranges hold for every date at a postal code; each is to be ordered
// by its start minus its offset, and those past their deadline are gone.
func TestCourierPickupWindows(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	at := func(s string) {
		e.c.now = func() time.Time { v, _ := time.ParseInLocation("2006-01-02 15:04", s, warsaw); return v }
	}
	addr := pickupRequest().Address
	windows := func(date string) []carrier.PickupWindow {
		t.Helper()
		ws, err := e.c.CourierPickupWindows(ctx, e.settings, carrier.PickupWindowsRequest{Date: date, Address: addr})
		if err != nil {
			t.Fatalf("CourierPickupWindows(%s): %v", date, err)
		}
		return ws
	}
	at("2026-11-30 10:00")
	want := []carrier.PickupWindow{{From: "08:00", Until: "10:00", OrderBy: "00:00"}, {From: "09:00", Until: "12:00", OrderBy: "07:30"},
		{From: "12:00", Until: "15:00", OrderBy: "10:00"}, {From: "15:00", Until: "18:00", OrderBy: "12:00"}}
	if got := windows("2026-12-01"); !slices.Equal(got, want) {
		t.Errorf("tomorrow: %+v", got)
	}
	if b := e.sandbox.lastBody(); b.text("senderPlaceV1/countryCode") != "PL" || b.text("senderPlaceV1/zipCode") != "02274" {
		t.Errorf("asked for %q %q", b.text("senderPlaceV1/countryCode"), b.text("senderPlaceV1/zipCode"))
	}
	if got := windows("2026-11-30"); !slices.Equal(got, want[2:]) {
		t.Errorf("today at 10:00: %+v", got)
	}
	at("2026-11-30 23:00")
	if got := windows("2026-12-01"); !slices.Equal(got, want[1:]) {
		t.Errorf("tomorrow, after 22:00: %+v", got)
	}
	if got := windows("2026-11-29"); len(got) != 0 || got == nil {
		t.Errorf("yesterday: %+v", got)
	}
	addr.PostalCode = fakeNoRanges
	if got := windows("2026-12-01"); len(got) != 0 || got == nil {
		t.Errorf("a postal code without ranges: %+v", got)
	}
	if _, err := e.c.CourierPickupWindows(ctx, e.settings, carrier.PickupWindowsRequest{Date: "tomorrow", Address: addr}); rejection(t, err).Field != carrier.PickupFieldDate {
		t.Errorf("no date: %v", err)
	}
	addr.PostalCode = ""
	if _, err := e.c.CourierPickupWindows(ctx, e.settings, carrier.PickupWindowsRequest{Date: "2026-12-01", Address: addr}); rejection(t, err).Field != carrier.PickupFieldAddress {
		t.Errorf("no postal code: %v", err)
	}
}

// book books shipments of the given parcel counts to destination (a
// country code) and answers them as a manifest names them.
func book(t *testing.T, e *env, country string, parcels ...int) []carrier.DispatchShipment {
	t.Helper()
	var out []carrier.DispatchShipment
	for i, n := range parcels {
		ps := make([]carrier.Parcel, n)
		for j := range ps {
			ps[j] = parcel(1.5)
		}
		req := request("M-"+country+string(rune('A'+i)), "CLASSIC", "pdf", ps...)
		if country != "PL" {
			req.Destination = carrier.Address{StreetName: "Hauptstraße", HouseNumber: "5", CityName: "Berlin", PostalCode: "10115", CountryCode: country}
		}
		got, err := e.c.CreateShipment(ctxT(t), e.settings, req)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, carrier.DispatchShipment{ShipmentID: "shp_" + req.Reference, ProviderShipmentID: got.ProviderShipmentID,
			TrackingNumbers: got.TrackingNumbers, Parcels: ps, Recipient: req.Recipient, Destination: req.Destination})
	}
	return out
}

// waybills are the shipments' waybills, sorted.
func waybills(shipments []carrier.DispatchShipment) []string {
	var out []string
	for _, sh := range shipments {
		out = append(out, sh.TrackingNumbers...)
	}
	slices.Sort(out)
	return out
}

// pageBarcodes are the barcodes scanned on each page of a PDF, sorted
// (zbar reads a page in no fixed order; a protocol here is one page).
func pageBarcodes(t *testing.T, pdf []byte) [][]string {
	t.Helper()
	pages := labelcheck.PDFBarcodes(t, pdf)
	for _, p := range pages {
		slices.Sort(p)
	}
	return pages
}

// checkPDF holds a document to be a PDF that poppler reads.
func checkPDF(t *testing.T, doc []byte) {
	t.Helper()
	if !bytes.HasPrefix(doc, []byte("%PDF-")) {
		t.Fatalf("the document is not a PDF: %.20q", doc)
	}
	path := filepath.Join(t.TempDir(), "m.pdf")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdfinfo", path).CombinedOutput(); err != nil || !strings.Contains(string(out), "Pages:") {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
}

// The manifest is DPD's protocol: one per session type, domestic first, the
// PDFs merged, every waybill on it once, scanned back in order.
func TestManifestIsDPDsProtocol(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	domestic := book(t, e, "PL", 2, 1)
	international := book(t, e, "DE", 1)
	req := carrier.ManifestRequest{Key: "man_1", Date: "2026-11-21",
		Sender:    carrier.Contact{CompanyName: "Acme Sp. z o.o.", Phone: "+48111222333"},
		Origin:    carrier.Address{StreetName: "Magazynowa", HouseNumber: "1", CityName: "Warszawa", PostalCode: "02-274", CountryCode: "PL"},
		Shipments: []carrier.DispatchShipment{international[0], domestic[0], domestic[1]}}
	m, err := e.c.CreateManifest(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("CreateManifest: %v", err)
	}
	if m.Reference != "PROT-1,PROT-2" {
		t.Errorf("reference %q", m.Reference)
	}
	checkPDF(t, m.Document)
	if got, want := pageBarcodes(t, m.Document), [][]string{waybills(domestic), waybills(international)}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the protocols' pages list %v, want %v", got, want)
	}
	var sessions []string
	for _, b := range e.sandbox.bodies {
		if b.Name.Local != "generateProtocolV2" {
			continue
		}
		p := b.child("dpdServicesParamsV1")
		sessions = append(sessions, p.text("session/sessionType"))
		if b.text("outputDocFormatV1") != "PDF" || b.text("outputDocPageFormatV1") != "A4" || p.text("policy") != "STOP_ON_FIRST_ERROR" ||
			p.text("pickupAddress/fid") != "1495" || p.text("pickupAddress/postalCode") != "02274" || p.text("pickupAddress/company") != "Acme Sp. z o.o." {
			t.Errorf("protocol request %s %s %s %+v", b.text("outputDocFormatV1"), b.text("outputDocPageFormatV1"), p.text("policy"), p.child("pickupAddress"))
		}
	}
	if !slices.Equal(sessions, []string{"DOMESTIC", "INTERNATIONAL"}) {
		t.Errorf("sessions %v", sessions)
	}

	// A waybill on a protocol already, one DPD does not know: refused on
	// the shipments, naming them.
	_, err = e.c.CreateManifest(ctx, e.settings, carrier.ManifestRequest{Date: "2026-11-21", Shipments: domestic[:1]})
	if rej := rejection(t, err); rej.Field != carrier.PickupFieldShipments || !strings.Contains(rej.Message, "ALREADY_ADVICED") || !strings.Contains(rej.Message, domestic[0].TrackingNumbers[0]) {
		t.Errorf("again: %v", rej)
	}
	unknown := carrier.DispatchShipment{ShipmentID: "shp_x", TrackingNumbers: []string{"0000000000000U"}}
	_, err = e.c.CreateManifest(ctx, e.settings, carrier.ManifestRequest{Date: "2026-11-21", Shipments: []carrier.DispatchShipment{unknown}})
	if rej := rejection(t, err); rej.Field != carrier.PickupFieldShipments || !strings.Contains(rej.Message, "NOT_FOUND") {
		t.Errorf("unknown waybill: %v", rej)
	}
	// Refused before any call: nothing to hand over, a shipment without waybills.
	before := e.sandbox.count("")
	for _, bad := range [][]carrier.DispatchShipment{nil, {{ShipmentID: "shp_y"}}} {
		if _, err := e.c.CreateManifest(ctx, e.settings, carrier.ManifestRequest{Date: "2026-11-21", Shipments: bad}); rejection(t, err).Field != carrier.PickupFieldShipments {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if e.sandbox.count("") != before {
		t.Error("a manifest known to be refused reached DPD")
	}
	// Wrong credentials.
	e.settings["password"] = "wrong"
	if _, err := e.c.CreateManifest(ctx, e.settings, carrier.ManifestRequest{Shipments: international}); rejection(t, err).Field != "password" {
		t.Errorf("wrong password: %v", err)
	}
}

// Past the parcels one protocol takes, the manifest is asked for in chunks
// of whole shipments, and the protocols come back as one PDF in order.
func TestManifestChunksAtTheProtocolLimit(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	shipments := book(t, e, "PL", 1, 2, 1)
	e.sandbox.protocolLimit = 2
	// Unchunked, DPD refuses the lot.
	_, err := e.c.CreateManifest(ctx, e.settings, carrier.ManifestRequest{Date: "2026-11-21", Shipments: shipments})
	if rej := rejection(t, err); !strings.Contains(rej.Message, "PARCEL_LIMIT_EXCEEDED") {
		t.Fatalf("over the limit: %v", rej)
	}
	defer func(n int) { maxProtocolParcels = n }(maxProtocolParcels)
	maxProtocolParcels = 2
	m, err := e.c.CreateManifest(ctx, e.settings, carrier.ManifestRequest{Date: "2026-11-21", Shipments: shipments})
	if err != nil {
		t.Fatalf("CreateManifest: %v", err)
	}
	if m.Reference != "PROT-1,PROT-2,PROT-3" {
		t.Errorf("reference %q, want three protocols", m.Reference)
	}
	checkPDF(t, m.Document)
	want := [][]string{waybills(shipments[:1]), waybills(shipments[1:2]), waybills(shipments[2:])}
	if got := pageBarcodes(t, m.Document); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the merged protocols' pages list %v, want %v", got, want)
	}
}

// The fake's schema refuses a misspelt optional element in each of the
// shipping day's requests as the adapter writes them, and takes them as
// they are.
func TestSchemaRefusesMisspeltDispatchElements(t *testing.T) {
	w := loadWSDL(t, "testdata/dpd-pl-dpdservices.wsdl")
	auth := authData{Login: "l", MasterFid: 1495, Password: "p"}
	params, err := pickupOrderOf(pickupRequest(), 1495)
	if err != nil {
		t.Fatal(err)
	}
	sum := int64(7)
	for _, tc := range []struct {
		req            operation
		good, misspelt string
	}{
		{&pickupCallRequest{Params: params, Auth: auth}, "<parcelMaxWeight>", "<parcelMaxWeigth>"},
		{&pickupCallRequest{Params: pickupCallParams{OperationType: "CANCEL", OrderNumber: "1", CheckSum: &sum}, Auth: auth}, "<checkSum>", "<checksum>"},
		{&availabilityRequest{Place: postalCode{CountryCode: "PL", ZipCode: "02274"}, Auth: auth}, "<countryCode>", "<country>"},
		{&protocolRequest{Params: protocolParams{PickupAddress: &pickupAddress{Address: "a", City: "c", Company: "x", CountryCode: "PL", Fid: 1, PostalCode: "02274"},
			Policy: "STOP_ON_FIRST_ERROR", Session: labelsSession{SessionType: "DOMESTIC"}}, DocFormat: "PDF", PageFormat: "A4", Auth: auth}, "<company>", "<companyName>"},
	} {
		raw, err := xml.Marshal(tc.req)
		if err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(string(raw), ">", ` xmlns:dpd="`+packageNS+`">`, 1)
		for _, spoil := range []bool{false, true} {
			b := body
			if spoil {
				end := "</" + strings.TrimPrefix(tc.good, "<")
				b = strings.Replace(strings.Replace(b, tc.good, tc.misspelt, 1), end, "</"+strings.TrimPrefix(tc.misspelt, "<"), 1)
			}
			n, err := parseXML(strings.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", tc.req.operationName(), err)
			}
			problems := checkOperation(w, n)
			if spoil != (len(problems) > 0) {
				t.Errorf("%s (misspelt %v): problems %v", tc.req.operationName(), spoil, problems)
			}
		}
	}
}
