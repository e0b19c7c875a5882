package dpdpl

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

// env is one adapter between a demo fake, a production fake and a tracking
// fake.
type env struct {
	c        *Carrier
	sandbox  *fakeDPD
	prod     *fakeDPD
	tracking *fakeDPD
	settings carrier.Settings
}

func newEnv(t *testing.T) *env {
	t.Helper()
	sb, prod, tr := newFake(t, "sandbox"), newFake(t, "prod"), newFake(t, "tracking")
	return &env{
		c:        New(Config{SandboxURL: sb.packageURL(), ProductionURL: prod.packageURL(), TrackingURL: tr.eventsURL()}),
		sandbox:  sb,
		prod:     prod,
		tracking: tr,
		settings: carrier.Settings{"login": "test-login", "password": "test-password", "masterFid": "1495", "productType": "CLASSIC", "sandboxMode": true},
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func parcel(kg float64) carrier.Parcel {
	return carrier.Parcel{Type: "package", Length: 30, Width: 20, Height: 10.5, DimensionUnit: "CM", Weight: kg, WeightUnit: "KG"}
}

func request(ref, product, format string, parcels ...carrier.Parcel) carrier.ShipmentRequest {
	return carrier.ShipmentRequest{
		Reference:    ref,
		ProductType:  product,
		LabelFormat:  format,
		ShippingDate: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Acme Sp. z o.o.", Email: "magazyn@acme.pl", Phone: "+48111222333"},
		Recipient:    carrier.Contact{FirstName: "Anna", LastName: "Kowalska", Email: "anna@example.pl", Phone: "+48777888999"},
		Origin:       carrier.Address{StreetName: "Magazynowa", HouseNumber: "1", CityName: "Warszawa", PostalCode: "02-274", CountryCode: "pl"},
		Destination:  carrier.Address{StreetName: "Długa", HouseNumber: "12", ApartmentNumber: "3", CityName: "Kraków", PostalCode: "31-147", CountryCode: "PL"},
		Parcels:      parcels,
	}
}

func rejection(t *testing.T, err error) *carrier.Rejection {
	t.Helper()
	var rej *carrier.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("got %v, want a *carrier.Rejection", err)
	}
	return rej
}

func TestInfo(t *testing.T) {
	c := New(Config{})
	info := c.Info()
	if info.Code != "dpd_pl" || !info.SupportsCOD || info.MaxParcels != MaxParcels || MaxParcels > carrier.MaxParcelsPerShipment {
		t.Errorf("info %+v", info)
	}
	if !reflect.DeepEqual(info.LabelFormats, []string{"pdf", "zpl", "epl"}) {
		t.Errorf("label formats %v", info.LabelFormats)
	}
	if got := info.SecretKeys(); !reflect.DeepEqual(got, map[string]bool{"password": true, "trackingPassword": true}) {
		t.Errorf("secret keys %v", got)
	}
	uses := map[string]carrier.PickupPointUse{}
	for _, p := range info.ProductTypes {
		uses[p.Code] = p.PickupPoint
		if !p.SupportsCOD || p.CODProduct != "" {
			t.Errorf("product %s: COD %v via %q", p.Code, p.SupportsCOD, p.CODProduct)
		}
	}
	if !reflect.DeepEqual(uses, map[string]carrier.PickupPointUse{"CLASSIC": carrier.PickupPointNone, "PICKUP": carrier.PickupPointRequired}) {
		t.Errorf("pickup point uses %v", uses)
	}
	for _, s := range info.Settings {
		switch s.Key {
		case carrier.LabelFormatSetting:
			if s.Default != carrier.DefaultLabelFormat || !reflect.DeepEqual(s.Enum, []string{"pdf", "zpl", "epl"}) {
				t.Errorf("%s: %+v", s.Key, s)
			}
		case "sandboxMode":
			if s.Default != true {
				t.Errorf("sandboxMode defaults to %v", s.Default)
			}
		}
	}
	if errs := info.ValidateSettings(map[string]any{"login": "a", "password": "b", "masterFid": "1495", "productType": "PICKUP",
		"defaultPickupPoint": "PL11033", "defaultLabelFormat": "epl", "sandboxMode": false}); len(errs) != 0 {
		t.Errorf("valid settings refused: %v", errs)
	}
	d := info.Dispatch
	if !d.Pickups || !d.PickupCancel || d.PickupAvailability != carrier.AvailabilityCarrier || d.PickupShipments != carrier.PickupCountsOnly ||
		d.Manifest != carrier.ManifestByCarrier || d.CancelAfterManifest != carrier.CancelAfterManifestRefused || d.Note == "" {
		t.Errorf("dispatch %+v", d)
	}
	if _, ok := carrier.DispatcherOf(c); !ok {
		t.Error("DPD Poland is no Dispatcher")
	}
	if c.base(carrier.Settings{}) != SandboxURL || c.base(carrier.Settings{"sandboxMode": false}) != ProductionURL || c.cfg.TrackingURL != TrackingURL {
		t.Error("the documented hosts are not the defaults")
	}
	if !strings.HasPrefix(SandboxURL, "https://dpdservicesdemo.dpd.com.pl/") {
		t.Errorf("sandbox %s is not the WSDL's service address", SandboxURL)
	}
}

func TestCreateLabelsTrackCancel(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	req := request("ORDER-1001", "CLASSIC", "pdf", parcel(2.5), parcel(1), parcel(0.4))
	got, err := e.c.CreateShipment(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("CreateShipment: %v", err)
	}
	if len(got.TrackingNumbers) != 3 || got.ProviderShipmentID == "" || got.Price != nil || len(got.Labels) != 0 {
		t.Fatalf("created %+v", got)
	}
	// What DPD was sent.
	body := e.sandbox.lastBody()
	pkgs := body.child("openUMLFeV3").all("packages")
	if len(pkgs) != 1 {
		t.Fatalf("%d packages", len(pkgs))
	}
	pkg := pkgs[0]
	if ps := pkg.all("parcels"); len(ps) != 3 || ps[0].text("weight") != "2.5" || ps[2].text("weight") != "0.4" || ps[0].text("sizeZ") != "11" {
		t.Errorf("parcels %+v", ps)
	}
	if pkg.text("receiver/address") != "Długa 12/3" || pkg.text("receiver/postalCode") != "31147" || pkg.text("receiver/name") != "Anna Kowalska" {
		t.Errorf("receiver %+v", pkg.child("receiver"))
	}
	if pkg.text("sender/fid") != "1495" || pkg.text("sender/countryCode") != "PL" || pkg.text("sender/company") != "Acme Sp. z o.o." || pkg.text("payerType") != "SENDER" {
		t.Errorf("sender %+v", pkg.child("sender"))
	}
	if pkg.child("services") != nil || body.text("pkgNumsGenerationPolicyV1") != "ALL_OR_NOTHING" {
		t.Errorf("services %v, policy %q", pkg.child("services"), body.text("pkgNumsGenerationPolicyV1"))
	}
	if e.prod.count("") != 0 {
		t.Error("sandboxMode true called production")
	}

	// Labels in every format DPD prints: one document, parcels in order.
	ref := carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID, TrackingNumbers: got.TrackingNumbers}
	for _, format := range []string{"pdf", "zpl", "epl"} {
		ls, err := e.c.Labels(ctx, e.settings, ref, format)
		if err != nil {
			t.Fatalf("Labels(%s): %v", format, err)
		}
		if len(ls) != 1 {
			t.Errorf("%s: %d files, DPD answers one", format, len(ls))
		}
		if bc := labelcheck.LabelBarcodes(t, format, ls); !slices.Equal(bc, got.TrackingNumbers) {
			t.Errorf("%s barcodes %v, want %v", format, bc, got.TrackingNumbers)
		}
		if f := e.sandbox.lastBody(); f.text("outputDocFormatV1") != strings.ToUpper(format) || f.text("dpdServicesParamsV1/session/sessionType") != "DOMESTIC" {
			t.Errorf("%s: label request %q %q", format, f.text("outputDocFormatV1"), f.text("dpdServicesParamsV1/session/sessionType"))
		}
	}
	// The channel's default format when the call names none.
	e.settings["defaultLabelFormat"] = "zpl"
	if ls, err := e.c.Labels(ctx, e.settings, ref, ""); err != nil || ls[0].Format != "zpl" {
		t.Errorf("default format: %v, %v", ls, err)
	}
	if _, err := e.c.Labels(ctx, e.settings, ref, "png"); rejection(t, err).Field != "label_format" {
		t.Errorf("png: %v", err)
	}

	// Tracking a parcel just booked (the tracking service is another fake):
	// data registered, waiting for shipment.
	e.tracking.setEvents(got.TrackingNumbers[1], fakeEvent{code: "030103", description: "Zarejestrowano dane przesyłki", at: "2026-11-21 09:00:00"})
	tr, err := e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: got.TrackingNumbers[1]})
	if err != nil || !tr.Recognized || len(tr.Events) != 1 || tr.Events[0].Status != carrier.StatusWaitingForShipment {
		t.Errorf("Track = %+v, %v", tr, err)
	}

	// Cancel: DPD Poland's API has none.
	rej := rejection(t, e.c.CancelShipment(ctx, e.settings, ref))
	if !strings.Contains(rej.Message, "customer service") {
		t.Errorf("cancel: %v", rej)
	}
	if n := e.sandbox.count(""); n != 5 {
		t.Errorf("%d calls to dpdservices, want 1 booking and 4 label requests (cancel calls nothing)", n)
	}
}

// DPD has no session: every call carries authDataV1, the sandboxMode false
// ones to production.
func TestEveryCallAuthenticatesItself(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	e.settings["sandboxMode"] = false
	got, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-9", "", "", parcel(1)))
	if err != nil {
		t.Fatalf("CreateShipment: %v", err)
	}
	if _, err := e.c.Labels(ctx, e.settings, carrier.ShipmentRef{TrackingNumbers: got.TrackingNumbers}, "pdf"); err != nil {
		t.Fatalf("Labels: %v", err)
	}
	if err := e.c.ValidateCredentials(ctx, e.settings); err != nil {
		t.Fatalf("ValidateCredentials: %v", err)
	}
	if e.sandbox.count("") != 0 || e.prod.count("") != 3 {
		t.Errorf("sandbox %d calls, production %d", e.sandbox.count(""), e.prod.count(""))
	}
	for _, b := range e.prod.bodies {
		if b.text("authDataV1/login") != "test-login" || b.text("authDataV1/masterFid") != "1495" {
			t.Errorf("%s without credentials", b.Name.Local)
		}
	}
}

func TestInternationalLabels(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	req := request("ORDER-DE", "CLASSIC", "", parcel(3), parcel(4))
	req.Destination = carrier.Address{StreetName: "Hauptstraße", HouseNumber: "5", CityName: "Berlin", PostalCode: "10115", CountryCode: "DE"}
	got, err := e.c.CreateShipment(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("CreateShipment: %v", err)
	}
	ls, err := e.c.Labels(ctx, e.settings, carrier.ShipmentRef{TrackingNumbers: got.TrackingNumbers}, "pdf")
	if err != nil {
		t.Fatalf("Labels: %v", err)
	}
	if bc := labelcheck.LabelBarcodes(t, "pdf", ls); !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("barcodes %v, want %v", bc, got.TrackingNumbers)
	}
	if e.sandbox.count("generateSpedLabelsV4") != 2 || e.sandbox.lastBody().text("dpdServicesParamsV1/session/sessionType") != "INTERNATIONAL" {
		t.Error("an international package was not printed again as INTERNATIONAL")
	}
	// A waybill DPD does not know.
	_, err = e.c.Labels(ctx, e.settings, carrier.ShipmentRef{TrackingNumbers: []string{"0000000000000U"}}, "pdf")
	if rej := rejection(t, err); !strings.Contains(rej.Message, "NOT_FOUND") {
		t.Errorf("unknown waybill: %v", rej)
	}
}

func TestPickupPointAndCashOnDelivery(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)

	// A point named by the shipment, with COD.
	req := request("ORDER-P1", "PICKUP", "pdf", parcel(2))
	req.PickupPoint = " PL11033 "
	req.COD = &carrier.Money{Minor: 12550, Currency: "PLN"}
	if _, err := e.c.CreateShipment(ctx, e.settings, req); err != nil {
		t.Fatalf("PICKUP with COD: %v", err)
	}
	pkg := e.sandbox.lastBody().child("openUMLFeV3").child("packages")
	if pkg.text("services/dpdPickup/pudo") != "PL11033" || pkg.text("services/cod/amount") != "125.50" || pkg.text("services/cod/currency") != "PLN" {
		t.Errorf("services %q %q %q", pkg.text("services/dpdPickup/pudo"), pkg.text("services/cod/amount"), pkg.text("services/cod/currency"))
	}

	// The channel's default point when the shipment names none.
	e.settings["defaultPickupPoint"] = "PL14151"
	e.settings["productType"] = "PICKUP"
	if _, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-P2", "", "pdf", parcel(1))); err != nil {
		t.Fatalf("default point: %v", err)
	}
	if p := e.sandbox.lastBody().text("openUMLFeV3/packages/services/dpdPickup/pudo"); p != "PL14151" {
		t.Errorf("pudo %q, want the channel's default", p)
	}

	// A point DPD does not know: DPD's refusal on pickup_point_id.
	bad := request("ORDER-P3", "PICKUP", "pdf", parcel(1))
	bad.PickupPoint = "PL99999"
	rej := rejection(t, must(e.c.CreateShipment(ctx, e.settings, bad)))
	if rej.Field != carrier.PickupPointField || !strings.Contains(rej.Message, "PL99999") {
		t.Errorf("unknown point: %v", rej)
	}

	// Refused before any call: PICKUP without a point, CLASSIC with one,
	// COD in a currency DPD does not collect.
	delete(e.settings, "defaultPickupPoint")
	before := e.sandbox.count("")
	if rej := rejection(t, must(e.c.CreateShipment(ctx, e.settings, request("ORDER-P4", "PICKUP", "pdf", parcel(1))))); rej.Field != carrier.PickupPointField {
		t.Errorf("PICKUP without a point: %v", rej)
	}
	classic := request("ORDER-P5", "CLASSIC", "pdf", parcel(1))
	classic.PickupPoint = "PL11033"
	if rej := rejection(t, must(e.c.CreateShipment(ctx, e.settings, classic))); rej.Field != carrier.PickupPointField {
		t.Errorf("CLASSIC with a point: %v", rej)
	}
	jpy := request("ORDER-P6", "CLASSIC", "pdf", parcel(1))
	jpy.COD = &carrier.Money{Minor: 1000, Currency: "JPY"}
	if rej := rejection(t, must(e.c.CreateShipment(ctx, e.settings, jpy))); rej.Field != "cash_on_delivery_currency" {
		t.Errorf("COD in JPY: %v", rej)
	}
	if e.sandbox.count("") != before {
		t.Error("a request known to be refused reached DPD")
	}
}

func must(_ carrier.CreatedShipment, err error) error { return err }

func TestValidationErrors(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)

	// DPD's validation: a postal code of the wrong pattern, a recipient
	// without a name.
	req := request("ORDER-V1", "CLASSIC", "pdf", parcel(1))
	req.Destination.PostalCode = "3114"
	req.Recipient = carrier.Contact{Phone: "+48777888999"}
	err := must(e.c.CreateShipment(ctx, e.settings, req))
	var rs carrier.Rejections
	if !errors.As(err, &rs) || len(rs) != 2 {
		t.Fatalf("got %v, want two rejections", err)
	}
	fields := []string{rs[0].Field, rs[1].Field}
	slices.Sort(fields)
	if !slices.Equal(fields, []string{"destination_address.postal_code", "recipient_contact.last_name"}) {
		t.Errorf("fields %v", fields)
	}
	if !strings.Contains(err.Error(), "Niepoprawny kod pocztowy") {
		t.Errorf("DPD's message lost: %v", err)
	}

	// Refused before any call: too heavy, too many parcels, a format DPD
	// does not print, a masterFid that is not a number.
	before := e.sandbox.count("")
	if rej := rejection(t, must(e.c.CreateShipment(ctx, e.settings, request("ORDER-V2", "CLASSIC", "pdf", parcel(1), parcel(40))))); rej.Field != "parcels.1.weight_amount" {
		t.Errorf("40 kg: %v", rej)
	}
	many := make([]carrier.Parcel, MaxParcels+1)
	for i := range many {
		many[i] = parcel(1)
	}
	if rej := rejection(t, must(e.c.CreateShipment(ctx, e.settings, request("ORDER-V3", "CLASSIC", "pdf", many...)))); rej.Field != "parcels" || !strings.Contains(rej.Message, "50") {
		t.Errorf("%d parcels: %v", len(many), rej)
	}
	if rej := rejection(t, must(e.c.CreateShipment(ctx, e.settings, request("ORDER-V4", "CLASSIC", "png", parcel(1))))); rej.Field != "label_format" {
		t.Errorf("png: %v", rej)
	}
	s := carrier.Settings{"login": "test-login", "password": "test-password", "masterFid": "FID-1"}
	if rej := rejection(t, must(e.c.CreateShipment(ctx, s, request("ORDER-V5", "CLASSIC", "pdf", parcel(1))))); rej.Field != "masterFid" {
		t.Errorf("masterFid: %v", rej)
	}
	if e.sandbox.count("") != before {
		t.Error("a request known to be refused reached DPD")
	}
}

func TestValidateCredentials(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	if err := e.c.ValidateCredentials(ctx, e.settings); err != nil {
		t.Fatalf("good credentials: %v", err)
	}
	if e.sandbox.count("findPostalCodeV1") != 1 {
		t.Error("findPostalCodeV1 not asked")
	}
	e.settings["password"] = "wrong"
	rej := rejection(t, e.c.ValidateCredentials(ctx, e.settings))
	if rej.Field != "password" || !strings.Contains(rej.Message, fakeLoginFault) {
		t.Errorf("wrong password: %v", rej)
	}
	// The same fault on a booking blames the password too.
	rej = rejection(t, must(e.c.CreateShipment(ctx, e.settings, request("ORDER-C1", "CLASSIC", "pdf", parcel(1)))))
	if rej.Field != "password" || !strings.Contains(rej.Message, fakeLoginFault) {
		t.Errorf("booking with a wrong password: %v", rej)
	}
}

func TestUnavailable(t *testing.T) {
	e := newEnv(t)
	for _, status := range []int{503, 429, 502, 500} {
		e.sandbox.failNext(status, 1)
		if err := e.c.ValidateCredentials(ctxT(t), e.settings); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("HTTP %d without a fault: %v, want ErrUnavailable", status, err)
		}
		e.sandbox.failNext(status, 1)
		if err := must(e.c.CreateShipment(ctxT(t), e.settings, request("ORDER-U", "CLASSIC", "pdf", parcel(1)))); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("booking, HTTP %d: %v, want ErrUnavailable", status, err)
		}
	}
	e.tracking.failNext(503, 1)
	if _, err := e.c.Track(ctxT(t), e.settings, carrier.TrackingRequest{TrackingNumber: "1"}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("tracking 503: %v", err)
	}
	e.sandbox.mu.Lock()
	e.sandbox.hang = true
	e.sandbox.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := e.c.ValidateCredentials(ctx, e.settings); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("hang: %v, want ErrUnavailable", err)
	}
}
