package ppl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

// env is one adapter between a sandbox fake and a production fake.
type env struct {
	c        *Carrier
	sandbox  *fakePPL
	prod     *fakePPL
	settings carrier.Settings
}

func newEnv(t *testing.T) *env {
	t.Helper()
	sb, prod := newFake(t, "sandbox"), newFake(t, "prod")
	return &env{
		c:        New(Config{SandboxURL: sb.base(), ProductionURL: prod.base(), PollInterval: 2 * time.Millisecond}),
		sandbox:  sb,
		prod:     prod,
		settings: carrier.Settings{"clientId": "client-1", "clientSecret": "secret-1", "productType": "BUSS", "sandboxMode": true},
	}
}

// ctxT only keeps a broken test from hanging: one context serves a whole
// create, labels, track and cancel sequence, which took over 10 s on a
// loaded CI machine.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func parcel(kg float64) carrier.Parcel {
	return carrier.Parcel{Type: "package", Length: 30, Width: 20, Height: 10, DimensionUnit: "CM", Weight: kg, WeightUnit: "KG"}
}

func request(ref, product, format string, parcels ...carrier.Parcel) carrier.ShipmentRequest {
	return carrier.ShipmentRequest{
		Reference:    ref,
		ProductType:  product,
		LabelFormat:  format,
		ShippingDate: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Acme s.r.o.", Email: "sklad@acme.cz", Phone: "+420111222333"},
		Recipient:    carrier.Contact{FirstName: "Jana", LastName: "Nováková", Email: "jana@example.cz", Phone: "+420777888999"},
		Origin:       carrier.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "110 00", CountryCode: "cz"},
		Destination:  carrier.Address{StreetName: "Dlouhá", HouseNumber: "12", ApartmentNumber: "3", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"},
		Parcels:      parcels,
	}
}

func TestInfo(t *testing.T) {
	info := New(Config{}).Info()
	if info.Code != "ppl" || !info.SupportsCOD {
		t.Errorf("code %q, supports COD %v", info.Code, info.SupportsCOD)
	}
	if !reflect.DeepEqual(info.LabelFormats, []string{"pdf", "zpl"}) {
		t.Errorf("label formats %v", info.LabelFormats)
	}
	cod := map[string]string{}
	for _, p := range info.ProductTypes {
		cod[p.Code] = p.CODProduct
	}
	want := map[string]string{"BUSS": "BUSD", "PRIV": "PRID", "SMAR": "SMAD", "SMEU": "SMED", "CONN": "COND", "DOPO": "DOPD"}
	if !reflect.DeepEqual(cod, want) {
		t.Errorf("COD products %v, want %v", cod, want)
	}
	if got := info.SecretKeys(); !reflect.DeepEqual(got, map[string]bool{"clientSecret": true}) {
		t.Errorf("secret keys %v", got)
	}
	if errs := info.ValidateSettings(map[string]any{"clientId": "a", "clientSecret": "b", "productType": "PRIV", "sandboxMode": false, "defaultLabelFormat": "zpl"}); len(errs) != 0 {
		t.Errorf("valid settings refused: %v", errs)
	}
	if errs := info.ValidateSettings(map[string]any{"clientId": "a", "clientSecret": "b", "defaultLabelFormat": "epl"}); len(errs["defaultLabelFormat"]) == 0 {
		t.Error("epl accepted as default label format")
	}
	c := New(Config{})
	if c.base(carrier.Settings{}) != SandboxURL || c.base(carrier.Settings{"sandboxMode": false}) != ProductionURL {
		t.Error("documented hosts are not the defaults")
	}
}

func TestCreateLabelsTrackCancel(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	e.sandbox.pollsToComplete = 2
	req := request("ORDER-1001", "BUSS", "pdf", parcel(2.5), parcel(1), parcel(0.4))
	got, err := e.c.CreateShipment(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("CreateShipment: %v", err)
	}
	if len(got.TrackingNumbers) != 3 || got.ProviderShipmentID == "" {
		t.Fatalf("created %+v", got)
	}
	if n := e.sandbox.calls("GET /shipment/batch/" + got.ProviderShipmentID); n < 3 {
		t.Errorf("batch polled %d times, want until complete (3)", n)
	}
	// What PPL was sent.
	body := e.sandbox.lastBody()
	sh := body["shipments"].([]any)[0].(map[string]any)
	set := sh["shipmentSet"].(map[string]any)
	if set["numberOfShipments"] != float64(3) || len(set["shipmentSetItems"].([]any)) != 3 {
		t.Errorf("shipmentSet %v", set)
	}
	if sh["productType"] != "BUSS" || sh["referenceId"] != "ORDER-1001" || sh["cashOnDelivery"] != nil {
		t.Errorf("shipment %v", sh)
	}
	rcp := sh["recipient"].(map[string]any)
	if rcp["street"] != "Dlouhá 12/3" || rcp["zipCode"] != "60200" || rcp["name"] != "Jana Nováková" {
		t.Errorf("recipient %v", rcp)
	}
	if snd := sh["sender"].(map[string]any); snd["zipCode"] != "11000" || snd["country"] != "CZ" || snd["name"] != "Acme s.r.o." {
		t.Errorf("sender %v", snd)
	}
	if ls := body["labelSettings"].(map[string]any); ls["format"] != "Pdf" {
		t.Errorf("labelSettings %v", ls)
	}
	if e.prod.calls("") != 0 {
		t.Error("sandboxMode true called production")
	}

	// Labels with the booking, in parcel order.
	if len(got.Labels) != 3 {
		t.Fatalf("%d labels", len(got.Labels))
	}
	if bc := labelcheck.LabelBarcodes(t, "pdf", got.Labels); !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("pdf barcodes %v, want %v", bc, got.TrackingNumbers)
	}
	ref := carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID, TrackingNumbers: got.TrackingNumbers}

	// Labels again, in the other format: the batch is relabelled.
	zpl, err := e.c.Labels(ctx, e.settings, ref, "zpl")
	if err != nil {
		t.Fatalf("Labels(zpl): %v", err)
	}
	if bc := labelcheck.LabelBarcodes(t, "zpl", zpl); !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("zpl barcodes %v, want %v", bc, got.TrackingNumbers)
	}
	if e.sandbox.calls("PUT /shipment/batch/") != 1 {
		t.Error("labelSettings not changed for zpl")
	}
	// Same format again: no relabelling.
	if _, err := e.c.Labels(ctx, e.settings, ref, "zpl"); err != nil {
		t.Fatalf("Labels(zpl) again: %v", err)
	}
	if e.sandbox.calls("PUT /shipment/batch/") != 1 {
		t.Error("relabelled although the format was already zpl")
	}

	// Tracking a booked parcel with no events yet: recognized, nothing to say.
	tr, err := e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: got.TrackingNumbers[1]})
	if err != nil || !tr.Recognized || len(tr.Events) != 0 {
		t.Errorf("Track new parcel = %+v, %v", tr, err)
	}

	// Cancel every parcel.
	if err := e.c.CancelShipment(ctx, e.settings, ref); err != nil {
		t.Fatalf("CancelShipment: %v", err)
	}
	for _, n := range got.TrackingNumbers {
		if e.sandbox.calls("POST /shipment/"+n+"/cancel") != 1 {
			t.Errorf("parcel %s not cancelled", n)
		}
	}
	tr, err = e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: got.TrackingNumbers[0]})
	if err != nil || !tr.Recognized || len(tr.Events) != 1 || tr.Events[0].Code != "Canceled" || tr.Events[0].Status != carrier.StatusCancelled {
		t.Errorf("Track cancelled parcel = %+v, %v", tr, err)
	}
	if n := e.sandbox.tokenCount(); n != 1 {
		t.Errorf("%d token requests for one token lifetime, want 1", n)
	}
}

func TestZPLBookingOneParcel(t *testing.T) {
	e := newEnv(t)
	e.settings["defaultLabelFormat"] = "zpl"
	got, err := e.c.CreateShipment(ctxT(t), e.settings, request("ORDER-7", "PRIV", "", parcel(3)))
	if err != nil {
		t.Fatalf("CreateShipment: %v", err)
	}
	if bc := labelcheck.LabelBarcodes(t, "zpl", got.Labels); len(got.TrackingNumbers) != 1 || !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("barcodes %v, numbers %v", bc, got.TrackingNumbers)
	}
	if ls := e.sandbox.lastBody()["labelSettings"].(map[string]any); ls["format"] != "Zpl" {
		t.Errorf("labelSettings %v", ls)
	}
}

func TestCashOnDelivery(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	e.settings["codIban"] = "CZ6508000000192000145399"
	req := request("ORDER-2002", "BUSD", "pdf", parcel(1), parcel(2))
	req.COD = &carrier.Money{Minor: 150050, Currency: "CZK"}
	got, err := e.c.CreateShipment(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("COD booking: %v", err)
	}
	if len(got.TrackingNumbers) != 2 {
		t.Errorf("numbers %v", got.TrackingNumbers)
	}
	sh := e.sandbox.lastBody()["shipments"].([]any)[0].(map[string]any)
	cod := sh["cashOnDelivery"].(map[string]any)
	want := map[string]any{"codCurrency": "CZK", "codPrice": 1500.5, "codVarSym": "2002", "iban": "CZ6508000000192000145399"}
	if !reflect.DeepEqual(cod, want) || sh["productType"] != "BUSD" {
		t.Errorf("cashOnDelivery %v (product %v), want %v", cod, sh["productType"], want)
	}

	// Every COD product is passed through as shipd switched it (PPL's
	// codVarSym is required: the references have digits; the Smart ones
	// deliver to a ParcelShop).
	for i, p := range []string{"PRID", "SMAD", "SMED", "COND", "DOPD"} {
		r := request(fmt.Sprintf("ORDER-%s-%d", p, i), p, "pdf", parcel(1))
		r.COD = &carrier.Money{Minor: 10000, Currency: "CZK"}
		if pickupUse(p) == carrier.PickupPointRequired {
			r.PickupPoint = "KM10479401"
		}
		if _, err := e.c.CreateShipment(ctx, e.settings, r); err != nil {
			t.Errorf("%s with COD: %v", p, err)
		}
	}

	// COD on a product without it: PPL refuses.
	bad := request("ORDER-2003", "BUSS", "pdf", parcel(1))
	bad.COD = &carrier.Money{Minor: 10000, Currency: "CZK"}
	_, err = e.c.CreateShipment(ctx, e.settings, bad)
	var rej *carrier.Rejection
	if !errors.As(err, &rej) || rej.Field != "cash_on_delivery_amount" || rej.Message == "" {
		t.Errorf("COD on BUSS: %v", err)
	}

	// COD on an international set of parcels: PPL refuses the set.
	intl := request("ORDER-2004", "COND", "pdf", parcel(1), parcel(1))
	intl.Destination = carrier.Address{StreetName: "Hauptstraße", HouseNumber: "5", CityName: "Wien", PostalCode: "1010", CountryCode: "AT"}
	intl.COD = &carrier.Money{Minor: 5000, Currency: "EUR"}
	_, err = e.c.CreateShipment(ctx, e.settings, intl)
	if !errors.As(err, &rej) || rej.Field != "parcels" || rej.Message != "Cash on delivery service is not allowed for export bundled shipments" {
		t.Errorf("international COD set: %v", err)
	}
}

func TestValidationErrors(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	req := request("ORDER-3", "BUSS", "pdf", parcel(1), parcel(40))
	req.Destination.PostalCode = "6020"
	req.Recipient.Phone = ""
	_, err := e.c.CreateShipment(ctx, e.settings, req)
	var many carrier.Rejections
	if !errors.As(err, &many) {
		t.Fatalf("want Rejections, got %T %v", err, err)
	}
	fields := map[string]string{}
	for _, r := range many {
		fields[r.Field] = r.Message
	}
	if fields["destination_address.postal_code"] != "Zip code '6020' is not valid for country CZ." {
		t.Errorf("postal code: %v", fields)
	}
	if fields["parcels.1.weight_amount"] == "" || len(many) != 2 {
		t.Errorf("rejections %v", many)
	}

	// An unknown product: one Rejection on product_type.
	_, err = e.c.CreateShipment(ctx, e.settings, request("ORDER-4", "XXXX", "pdf", parcel(1)))
	var one *carrier.Rejection
	if !errors.As(err, &one) || one.Field != "product_type" || one.Message != "Product type 'XXXX' is not valid." {
		t.Errorf("unknown product: %v", err)
	}

	// An item the batch fails to import: Rejection with its message.
	_, err = e.c.CreateShipment(ctx, e.settings, request("IMPORTERR-1", "BUSS", "pdf", parcel(1)))
	if !errors.As(err, &one) || one.Message != "Recipient address could not be verified. (ADDRESS_NOT_FOUND)" {
		t.Errorf("import error: %v", err)
	}
}

func TestFieldMapping(t *testing.T) {
	for key, want := range map[string]string{
		"Shipments[0].Recipient.ZipCode": "destination_address.postal_code",
		"Shipments[2].Recipient.Phone":   "recipient_contact.phone_number",
		"Shipments[0].ProductType":       "product_type",
		"Shipments[0].ShipmentSet":       "parcels",
		"Shipments[0].ShipmentSet.ShipmentSetItems[4].WeighedShipmentInfo.Weight": "parcels.4.weight_amount",
		"Shipments[0].CashOnDelivery.CodPrice":                                    "cash_on_delivery_amount",
		"LabelSettings.Format":                                                    "LabelSettings.Format",
		"Shipments[0].Depot":                                                      "Shipments[0].Depot",
	} {
		if got := fieldOf(key); got != want {
			t.Errorf("fieldOf(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestCancelAfterPickupRefused(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	got, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-5", "BUSS", "pdf", parcel(1)))
	if err != nil {
		t.Fatal(err)
	}
	e.sandbox.pickUp(got.TrackingNumbers[0])
	err = e.c.CancelShipment(ctx, e.settings, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID, TrackingNumbers: got.TrackingNumbers})
	var rej *carrier.Rejection
	if !errors.As(err, &rej) || rej.Message != "Shipment "+got.TrackingNumbers[0]+" cannot be cancelled, it has already been picked up." {
		t.Errorf("cancel after pickup: %v", err)
	}
	// Without tracking numbers, the batch names the parcels.
	e.sandbox.mu.Lock()
	e.sandbox.shipments[got.TrackingNumbers[0]].pickedUp = false
	e.sandbox.mu.Unlock()
	if err := e.c.CancelShipment(ctx, e.settings, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID}); err != nil {
		t.Errorf("cancel by batch: %v", err)
	}
	if e.sandbox.calls("POST /shipment/"+got.TrackingNumbers[0]+"/cancel") != 2 {
		t.Error("cancel by batch did not cancel the parcel")
	}
}

func TestCredentials(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	if err := e.c.ValidateCredentials(ctx, e.settings); err != nil {
		t.Fatalf("valid credentials: %v", err)
	}
	bad := carrier.Settings{"clientId": "client-1", "clientSecret": "wrong"}
	err := e.c.ValidateCredentials(ctx, bad)
	var rej *carrier.Rejection
	if !errors.As(err, &rej) || rej.Field != "clientSecret" || rej.Message != "the carrier refused the credentials (invalid_client: Client authentication failed)" {
		t.Errorf("wrong secret: %v", err)
	}
	// A refused login refuses the booking too, before anything is sent.
	if _, err := e.c.CreateShipment(ctx, bad, request("ORDER-6", "BUSS", "pdf", parcel(1))); !errors.As(err, &rej) || rej.Field != "clientSecret" {
		t.Errorf("booking with a wrong secret: %v", err)
	}
	if e.sandbox.calls("POST /shipment/batch") != 0 {
		t.Error("booked without a token")
	}
}

func TestTokenCachedAndRenewed(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	for i := range 5 {
		if _, err := e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "1234567890" + string(rune('0'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.sandbox.tokenCount(); n != 1 {
		t.Errorf("%d token requests for 5 calls within a token's life, want 1", n)
	}
	// PPL drops the token early (expired/revoked server-side): the adapter
	// gets a new one and the call succeeds.
	e.sandbox.expireTokens()
	if _, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-8", "BUSS", "pdf", parcel(1))); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if n := e.sandbox.tokenCount(); n != 2 {
		t.Errorf("%d token requests after one expiry, want 2", n)
	}
	if n := e.sandbox.calls("POST /shipment/batch"); n != 2 {
		t.Errorf("booking sent %d times, want 2 (refused, then retried)", n)
	}
	// Other credentials have their own token.
	e.sandbox.mu.Lock()
	e.sandbox.clientID, e.sandbox.clientSecret = "client-2", "secret-2"
	e.sandbox.mu.Unlock()
	other := carrier.Settings{"clientId": "client-2", "clientSecret": "secret-2"}
	if err := e.c.ValidateCredentials(ctx, other); err != nil {
		t.Fatal(err)
	}
	if n := e.sandbox.tokenCount(); n != 3 {
		t.Errorf("%d token requests, want 3", n)
	}
	// A token the fake keeps refusing ends as a credential problem, not a loop.
	e.sandbox.expireTokens()
	e.sandbox.mu.Lock()
	e.sandbox.tokenTTL = 0 // born expired on the server; the client cannot tell
	e.sandbox.mu.Unlock()
	_, err := e.c.Track(ctx, other, carrier.TrackingRequest{TrackingNumber: "123"})
	var rej *carrier.Rejection
	if !errors.As(err, &rej) || rej.Field != "clientSecret" {
		t.Errorf("token refused twice: %v", err)
	}
}

func TestUnavailable(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	if err := e.c.ValidateCredentials(ctx, e.settings); err != nil {
		t.Fatal(err)
	}
	for _, status := range []int{500, 502, 503, 429} {
		e.sandbox.fail(status, 1, "")
		_, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-9", "BUSS", "pdf", parcel(1)))
		if !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("HTTP %d on booking: %v", status, err)
		}
	}
	e.sandbox.fail(503, -1, "")
	if _, err := e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "1"}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("503 on tracking: %v", err)
	}
	if err := e.c.CancelShipment(ctx, e.settings, carrier.ShipmentRef{TrackingNumbers: []string{"1"}}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("503 on cancel: %v", err)
	}
	if _, err := e.c.Labels(ctx, e.settings, carrier.ShipmentRef{ProviderShipmentID: "x"}, "pdf"); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("503 on labels: %v", err)
	}
	// Once the batch is booked, failed polls are waited out: a retry of the
	// whole booking would book the parcels twice.
	e.sandbox.fail(503, 2, "GET /shipment/batch/")
	posts := e.sandbox.calls("POST /shipment/batch")
	if _, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-9", "BUSS", "pdf", parcel(1))); err != nil {
		t.Errorf("booking with two failed polls: %v", err)
	}
	if e.sandbox.calls("POST /shipment/batch") != posts+1 {
		t.Error("booking sent more than once")
	}
	e.sandbox.fail(0, 0, "")

	// The token endpoint down (a fresh adapter, no cached token).
	fresh := New(Config{SandboxURL: e.sandbox.base(), PollInterval: time.Millisecond})
	e.sandbox.mu.Lock()
	e.sandbox.tokenTimes = make([]time.Time, 12) // the 12 tokens a minute are used up
	for i := range e.sandbox.tokenTimes {
		e.sandbox.tokenTimes[i] = time.Now()
	}
	e.sandbox.mu.Unlock()
	if err := fresh.ValidateCredentials(ctx, e.settings); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("token 429: %v", err)
	}
}

func TestTimeouts(t *testing.T) {
	e := newEnv(t)
	if err := e.c.ValidateCredentials(ctxT(t), e.settings); err != nil {
		t.Fatal(err)
	}
	// The vendor never answers.
	e.sandbox.setHang(true)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-10", "BUSS", "pdf", parcel(1)))
	if !errors.Is(err, carrier.ErrUnavailable) || time.Since(start) > 2*time.Second {
		t.Errorf("hanging vendor: %v after %v", err, time.Since(start))
	}
	e.sandbox.setHang(false)

	// The batch never completes: polling ends with the deadline.
	e.sandbox.pollsToComplete = 1 << 30
	ctx, cancel = context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = e.c.CreateShipment(ctx, e.settings, request("ORDER-11", "BUSS", "pdf", parcel(1)))
	if !errors.Is(err, carrier.ErrUnavailable) || time.Since(start) > 2*time.Second {
		t.Errorf("batch never complete: %v after %v", err, time.Since(start))
	}
	if e.sandbox.calls("GET /shipment/batch/") < 5 {
		t.Error("the batch was not polled repeatedly")
	}
}

func TestSandboxModeSelectsHost(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	e.prod.clientID, e.prod.clientSecret = "prod-client", "prod-secret"
	prodSettings := carrier.Settings{"clientId": "prod-client", "clientSecret": "prod-secret", "sandboxMode": false}
	got, err := e.c.CreateShipment(ctx, prodSettings, request("ORDER-12", "BUSS", "zpl", parcel(1)))
	if err != nil {
		t.Fatalf("production booking: %v", err)
	}
	if e.prod.calls("POST /shipment/batch") != 1 || e.sandbox.calls("") != 0 {
		t.Errorf("sandboxMode false: prod %d calls, sandbox %d", e.prod.calls(""), e.sandbox.calls(""))
	}
	if bc := labelcheck.LabelBarcodes(t, "zpl", got.Labels); !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("prod labels %v, numbers %v", bc, got.TrackingNumbers)
	}
	// No sandboxMode setting at all: the sandbox (default true).
	if err := e.c.ValidateCredentials(ctx, carrier.Settings{"clientId": "client-1", "clientSecret": "secret-1"}); err != nil {
		t.Fatal(err)
	}
	if e.sandbox.tokenCount() != 1 || e.prod.tokenCount() != 1 {
		t.Errorf("tokens: sandbox %d, prod %d", e.sandbox.tokenCount(), e.prod.tokenCount())
	}
}

// The limit GET /v1/providers publishes is the one the adapter keeps (PPL
// documents 50 to one address); PPL's answer names no price and none is
// made up.
func TestPublishedParcelLimitIsKept(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	limit := e.c.Info().MaxParcels
	if limit != 50 {
		t.Fatalf("published limit %d, want PPL's 50", limit)
	}
	parcels := make([]carrier.Parcel, limit+1)
	for i := range parcels {
		parcels[i] = parcel(1)
	}
	_, err := e.c.CreateShipment(ctx, e.settings, request("OVER", "BUSS", "pdf", parcels...))
	var r *carrier.Rejection
	if !errors.As(err, &r) || r.Field != "parcels" || !strings.Contains(r.Message, "1 to 50 parcels per shipment set, got 51") {
		t.Fatalf("51 parcels: %v", err)
	}
	if n := e.sandbox.calls(""); n != 0 {
		t.Errorf("a refused shipment still called PPL %d times", n)
	}
	out, err := e.c.CreateShipment(ctx, e.settings, request("AT-LIMIT", "BUSS", "zpl", parcels[:limit]...))
	if err != nil {
		t.Fatalf("50 parcels: %v", err)
	}
	if len(out.TrackingNumbers) != limit || out.Price != nil {
		t.Errorf("%d tracking numbers, price %v; want %d and none", len(out.TrackingNumbers), out.Price, limit)
	}
}

// A cancel retried after an earlier one worked (its answer or its record
// lost) is carrier.ErrAlreadyCancelled, not a refusal; so is one whose
// every parcel was cancelled before, while a set cancelled only in part is
// cancelled in full and answers success.
func TestCancelOfACancelledShipment(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	got, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-6", "BUSS", "pdf", parcel(1), parcel(2)))
	if err != nil {
		t.Fatal(err)
	}
	ref := carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID, TrackingNumbers: got.TrackingNumbers}
	if err := e.c.CancelShipment(ctx, e.settings, ref); err != nil {
		t.Fatalf("first cancel: %v", err)
	}
	if err := e.c.CancelShipment(ctx, e.settings, ref); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Errorf("second cancel: %v, want ErrAlreadyCancelled", err)
	}

	// The first cancel reached parcel 1 only (then PPL stopped answering).
	got, err = e.c.CreateShipment(ctx, e.settings, request("ORDER-7", "BUSS", "pdf", parcel(1), parcel(2)))
	if err != nil {
		t.Fatal(err)
	}
	ref = carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID, TrackingNumbers: got.TrackingNumbers}
	e.sandbox.fail(503, -1, "POST /shipment/"+got.TrackingNumbers[1]+"/cancel")
	if err := e.c.CancelShipment(ctx, e.settings, ref); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("cut-off cancel: %v", err)
	}
	e.sandbox.fail(0, 0, "")
	if err := e.c.CancelShipment(ctx, e.settings, ref); err != nil {
		t.Errorf("retried cancel of a half-cancelled set: %v", err)
	}
	e.sandbox.mu.Lock()
	both := e.sandbox.shipments[got.TrackingNumbers[0]].cancelled && e.sandbox.shipments[got.TrackingNumbers[1]].cancelled
	e.sandbox.mu.Unlock()
	if !both {
		t.Error("the set is not cancelled in full")
	}

	// A refusal for another reason stays one.
	got, err = e.c.CreateShipment(ctx, e.settings, request("ORDER-8", "BUSS", "pdf", parcel(1)))
	if err != nil {
		t.Fatal(err)
	}
	e.sandbox.pickUp(got.TrackingNumbers[0])
	var rej *carrier.Rejection
	if err := e.c.CancelShipment(ctx, e.settings, carrier.ShipmentRef{TrackingNumbers: got.TrackingNumbers}); !errors.As(err, &rej) {
		t.Errorf("cancel after pickup: %v", err)
	}
}

// Labels that cannot be downloaded do not undo the booking: PPL holds the
// batch, so the answer names it and its parcels without labels, and Labels
// fetches them once PPL serves them again.
func TestBookingAnswersWithoutLabelsWhenTheyFail(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	e.sandbox.fail(503, 1, "GET /data/")
	got, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-9", "BUSS", "pdf", parcel(1), parcel(2)))
	if err != nil {
		t.Fatalf("booking with a label outage: %v", err)
	}
	if got.ProviderShipmentID == "" || len(got.TrackingNumbers) != 2 || got.Labels != nil {
		t.Fatalf("answer %+v, want the batch and 2 numbers, no labels", got)
	}
	labels, err := e.c.Labels(ctx, e.settings, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID, TrackingNumbers: got.TrackingNumbers}, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if bc := labelcheck.LabelBarcodes(t, "pdf", labels); !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("barcodes %v, numbers %v", bc, got.TrackingNumbers)
	}
}
