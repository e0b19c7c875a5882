package packeta

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/carrier"
)

func newCarrier(f *fakePacketa) *Carrier {
	return New(Config{ProductionURL: f.url()})
}

// settingsFor is a production channel (Packeta has no test host).
func settingsFor(f *fakePacketa) carrier.Settings {
	return carrier.Settings{"apiPassword": f.password, "sandboxMode": false}
}

// rejection asserts err is a single Rejection on field whose message has want.
func isRejection(t *testing.T, err error, field, want string) {
	t.Helper()
	var r *carrier.Rejection
	if !errors.As(err, &r) {
		t.Fatalf("error = %v (%T), want a *carrier.Rejection on %s", err, err, field)
	}
	if r.Field != field || !strings.Contains(r.Message, want) {
		t.Fatalf("Rejection = {%q, %q}, want field %q and a message with %q", r.Field, r.Message, field, want)
	}
}

func unavailable(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("error = %v, want one wrapping carrier.ErrUnavailable", err)
	}
	var r *carrier.Rejection
	if errors.As(err, &r) {
		t.Fatalf("error %v is also a Rejection", err)
	}
}

func TestInfo(t *testing.T) {
	c := New(Config{})
	info := c.Info()
	if info.Code != "packeta" || !info.SupportsCOD || !slices.Equal(info.LabelFormats, []string{"pdf", "zpl"}) {
		t.Errorf("Info = %+v", info)
	}
	if info.MaxParcels != MaxParcels || MaxParcels > carrier.MaxParcelsPerShipment {
		t.Errorf("MaxParcels = %d", info.MaxParcels)
	}
	uses := map[string]carrier.PickupPointUse{}
	for _, p := range info.ProductTypes {
		uses[p.Code] = p.PickupPoint
		if !p.SupportsCOD || p.CODProduct != "" {
			t.Errorf("product %s: COD without a product switch expected: %+v", p.Code, p)
		}
	}
	if uses[ProductPickupPoint] != carrier.PickupPointRequired || uses[ProductHomeDelivery] != carrier.PickupPointNone || len(uses) != 2 {
		t.Errorf("pickup point use: %v", uses)
	}
	keys := map[string]carrier.Setting{}
	for _, s := range info.Settings {
		keys[s.Key] = s
	}
	if s := keys["apiPassword"]; !s.Secret || !s.Required {
		t.Errorf("apiPassword: %+v", s)
	}
	if s := keys["sandboxMode"]; s.Default != true || s.Type != carrier.TypeBoolean || !strings.Contains(s.Description, "no test environment") {
		t.Errorf("sandboxMode: %+v", s)
	}
	if s := keys[carrier.LabelFormatSetting]; s.Default != carrier.DefaultLabelFormat || !slices.Equal(s.Enum, []string{"pdf", "zpl"}) {
		t.Errorf("defaultLabelFormat: %+v", s)
	}
	if s := keys["productType"]; s.Default != ProductPickupPoint || !slices.Equal(s.Enum, []string{ProductPickupPoint, ProductHomeDelivery}) {
		t.Errorf("productType: %+v", s)
	}
	if _, ok := keys[carrier.DefaultPickupPointSetting]; !ok {
		t.Error("no defaultPickupPoint setting")
	}
	if s := keys["pdfLabelFormat"]; s.Default != "A6 on A6" || !slices.Equal(s.Enum, fakePDFFormats) {
		t.Errorf("pdfLabelFormat: %+v", s)
	}
	if errs := info.ValidateSettings(map[string]any{"apiPassword": "x"}); len(errs) != 0 {
		t.Errorf("minimal settings refused: %v", errs)
	}
	if c.cfg.ProductionURL != ProductionURL || c.cfg.SandboxURL != "" {
		t.Errorf("New(Config{}) = %+v, want Packeta's endpoint and no test host", c.cfg)
	}
}

func TestValidateCredentials(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()

	// Without a sender label: packetStatus of an id no packet has; the
	// PacketIdFault says the password was accepted. sandboxMode (default
	// true) does not matter: the check changes nothing, so it asks
	// production, the only host.
	if err := c.ValidateCredentials(ctx, carrier.Settings{"apiPassword": f.password}); err != nil {
		t.Fatalf("valid password: %v", err)
	}
	s := settingsFor(f)
	s["eshop"] = "shop-1"
	if err := c.ValidateCredentials(ctx, s); err != nil {
		t.Fatalf("valid password and sender: %v", err)
	}
	if got := f.callLog(); !slices.Equal(got, []string{"packetStatus", "senderGetReturnRouting"}) {
		t.Errorf("calls = %v", got)
	}

	s = settingsFor(f)
	s["apiPassword"] = "wrong"
	isRejection(t, c.ValidateCredentials(ctx, s), "apiPassword", "Incorrect API password.")
	s["eshop"] = "shop-1"
	isRejection(t, c.ValidateCredentials(ctx, s), "apiPassword", "Incorrect API password.")

	s = settingsFor(f)
	s["eshop"] = "unknown-shop"
	isRejection(t, c.ValidateCredentials(ctx, s), "eshop", "Sender 'unknown-shop' does not exist.")

	before := len(f.callLog())
	isRejection(t, c.ValidateCredentials(ctx, carrier.Settings{}), "apiPassword", "required")
	if len(f.callLog()) != before {
		t.Error("a missing password still called Packeta")
	}
}

// TestPasswordInEveryBody: Packeta has no login or session; the password
// is the first argument of every call and travels nowhere else (the fake
// fails the test on an Authorization header).
func TestPasswordInEveryBody(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	out, err := c.CreateShipment(ctx, s, pointRequest(1))
	if err != nil {
		t.Fatal(err)
	}
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
	if _, err := c.Labels(ctx, s, ref, "pdf"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[0]}); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelShipment(ctx, s, ref); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) != 4 {
		t.Fatalf("%d calls, want 4 (no login)", len(f.bodies))
	}
	for _, b := range f.bodies {
		if len(b.kids) == 0 || b.kids[0].name != "apiPassword" || b.kids[0].text != f.password {
			t.Errorf("%s does not start with the password", b.name)
		}
	}
}

// TestSandboxMode: Packeta has no test host. sandboxMode true (the
// default) refuses to book, print, cancel or track unless a test host is
// configured (as the fake is here), so a channel set up without choosing
// never books a real packet.
func TestSandboxMode(t *testing.T) {
	f := newFake(t)
	c := New(Config{ProductionURL: "http://127.0.0.1:1/unused"})
	ctx := context.Background()
	s := carrier.Settings{"apiPassword": f.password}
	_, err := c.CreateShipment(ctx, s, pointRequest(1))
	isRejection(t, err, "sandboxMode", "no test environment")
	_, err = c.Labels(ctx, s, carrier.ShipmentRef{TrackingNumbers: []string{"Z4200000001"}}, "pdf")
	isRejection(t, err, "sandboxMode", "no test environment")
	_, err = c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "Z4200000001"})
	isRejection(t, err, "sandboxMode", "no test environment")
	isRejection(t, c.CancelShipment(ctx, s, carrier.ShipmentRef{TrackingNumbers: []string{"Z4200000001"}}), "sandboxMode", "no test environment")

	sandboxed := New(Config{ProductionURL: "http://127.0.0.1:1/unused", SandboxURL: f.url()})
	if _, err := sandboxed.CreateShipment(ctx, s, pointRequest(1)); err != nil {
		t.Fatalf("with a configured test host: %v", err)
	}
	if got := f.callLog(); !slices.Equal(got, []string{"createPacket"}) {
		t.Errorf("calls = %v", got)
	}
}

// TestUnavailable: no answer, a timeout, 429 and 5xx are ErrUnavailable in
// every call; so is an answer that is not Packeta's XML.
func TestUnavailable(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusTooManyRequests} {
		f := newFake(t)
		c := newCarrier(f)
		ctx := context.Background()
		s := settingsFor(f)
		out, err := c.CreateShipment(ctx, s, pointRequest(2))
		if err != nil {
			t.Fatal(err)
		}
		ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
		f.fail("", status, -1)
		_, err = c.CreateShipment(ctx, s, pointRequest(1))
		unavailable(t, err)
		_, err = c.Labels(ctx, s, ref, "zpl")
		unavailable(t, err)
		_, err = c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[0]})
		unavailable(t, err)
		unavailable(t, c.CancelShipment(ctx, s, ref))
		unavailable(t, c.ValidateCredentials(ctx, s))
	}

	f := newFake(t)
	f.hang = true
	c := newCarrier(f)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CreateShipment(ctx, settingsFor(f), pointRequest(1))
	unavailable(t, err)

	junk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>maintenance</html>"))
	}))
	defer junk.Close()
	_, err = New(Config{ProductionURL: junk.URL}).Track(context.Background(), settingsFor(f), carrier.TrackingRequest{TrackingNumber: "Z4200000001"})
	unavailable(t, err)
}

// TestSchemaRefuses: the fake's schema refuses what the WSDL refuses, so a
// passing test means the adapter's XML keeps to it.
func TestSchemaRefuses(t *testing.T) {
	good := el("attributes", tx("number", "A-1"), tx("name", "Jana"), tx("surname", "Nováková"),
		tx("addressId", "4307"), tx("value", "10.5"), tx("weight", "1.25"))
	if p := validate(good, "PacketAttributes", "a"); len(p) > 0 {
		t.Fatalf("a valid packet refused: %v", p)
	}
	cases := map[string]*node{
		"unknown element":   el("attributes", append(slices.Clone(good.kids), tx("pickupPoint", "1"))...),
		"missing required":  el("attributes", good.kids[1:]...),
		"too long":          el("attributes", append(slices.Clone(good.kids[1:]), tx("number", strings.Repeat("1", 25)))...),
		"three decimals":    el("attributes", append(slices.Clone(good.kids), tx("cod", "1.005"))...),
		"not unsigned":      el("attributes", append(slices.Clone(good.kids[:3]), tx("addressId", "-4"), good.kids[4], good.kids[5])...),
		"twice":             el("attributes", append(slices.Clone(good.kids), tx("name", "X"))...),
		"unmodelled struct": el("attributes", append(slices.Clone(good.kids), el("services"))...),
	}
	for name, n := range cases {
		if p := validate(n, "PacketAttributes", "a"); len(p) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
	if p := validate(el("result", tx("barcode", "Z1"), tx("id", "1"), tx("barcodeText", "Z 1")), "PacketIdDetail", "r"); len(p) == 0 {
		t.Error("a sequence out of order accepted")
	}
}
