package ppl

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

// The point a shipment names goes to specificDelivery.parcelShopCode; the
// channel's default stands in for none; a point PPL does not know is
// PPL's refusal on pickup_point_id; a point where the product takes none,
// or none where it needs one, is refused before any call.
func TestPickupPoint(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	point := func() any {
		sh := e.sandbox.lastBody()["shipments"].([]any)[0].(map[string]any)
		sd, _ := sh["specificDelivery"].(map[string]any)
		return sd["parcelShopCode"]
	}

	req := request("ORDER-21", "SMAR", "pdf", parcel(1), parcel(2))
	req.PickupPoint = " KM10479401 "
	got, err := e.c.CreateShipment(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("SMAR to a ParcelShop: %v", err)
	}
	if p := point(); p != "KM10479401" {
		t.Errorf("parcelShopCode %v", p)
	}
	if bc := labelcheck.LabelBarcodes(t, "pdf", got.Labels); !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("barcodes %v, numbers %v", bc, got.TrackingNumbers)
	}

	// PRIV may name one; the channel's default point stands in.
	withDefault := carrier.Settings{}
	for k, v := range e.settings {
		withDefault[k] = v
	}
	withDefault[carrier.DefaultPickupPointSetting] = "KM12345678"
	if _, err := e.c.CreateShipment(ctx, withDefault, request("ORDER-22", "PRIV", "pdf", parcel(1))); err != nil {
		t.Fatalf("PRIV with the default point: %v", err)
	}
	if p := point(); p != "KM12345678" {
		t.Errorf("default parcelShopCode %v", p)
	}

	// A point PPL does not know: PPL's own words, on pickup_point_id.
	req = request("ORDER-23", "SMAD", "pdf", parcel(1))
	req.PickupPoint = "KM00000000"
	req.COD = &carrier.Money{Minor: 5000, Currency: "CZK"}
	_, err = e.c.CreateShipment(ctx, e.settings, req)
	var rej *carrier.Rejection
	if !errors.As(err, &rej) || rej.Field != carrier.PickupPointField || rej.Message != "Parcel shop 'KM00000000' does not exist." {
		t.Errorf("unknown point: %v", err)
	}

	// Refused before any call: a point on BUSS, none on SMAR (nor a default).
	calls := e.sandbox.calls("POST /shipment/batch")
	req = request("ORDER-24", "BUSS", "pdf", parcel(1))
	req.PickupPoint = "KM10479401"
	if _, err := e.c.CreateShipment(ctx, e.settings, req); !errors.As(err, &rej) || rej.Field != carrier.PickupPointField {
		t.Errorf("point on BUSS: %v", err)
	}
	if _, err := e.c.CreateShipment(ctx, e.settings, request("ORDER-25", "SMAR", "pdf", parcel(1))); !errors.As(err, &rej) || rej.Field != carrier.PickupPointField {
		t.Errorf("SMAR without a point: %v", err)
	}
	if e.sandbox.calls("POST /shipment/batch") != calls {
		t.Error("a refused point still reached PPL")
	}

	// What Info publishes is the rule the adapter keeps.
	uses := map[string]carrier.PickupPointUse{}
	for _, p := range New(Config{}).Info().ProductTypes {
		uses[p.Code] = p.PickupPoint
	}
	want := map[string]carrier.PickupPointUse{"BUSS": "none", "PRIV": "optional", "SMAR": "required", "SMEU": "required", "CONN": "optional", "DOPO": "none"}
	for code, use := range want {
		if uses[code] != use {
			t.Errorf("%s publishes %q, want %q", code, uses[code], use)
		}
	}
}

// A booking killed between PPL's acceptance and the poll (its context ends
// right after the batch id was recorded) is finished by the retry from the
// recorded handle: one batch, one set of parcels at PPL.
func TestBookingResumesFromTheRecordedBatch(t *testing.T) {
	e := newEnv(t)
	req := request("ORDER-31", "BUSS", "zpl", parcel(1), parcel(2))
	var recorded string
	ctx, kill := context.WithCancel(ctxT(t))
	req.Booking = carrier.Booking{Key: "shp_31", Accepted: func(_ context.Context, handle string) error {
		recorded = handle
		kill() // the worker dies once the handle is stored
		return nil
	}}
	if _, err := e.c.CreateShipment(ctx, e.settings, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("killed attempt: %v", err)
	}
	if recorded == "" {
		t.Fatal("no batch recorded")
	}

	req.Booking = carrier.Booking{Key: "shp_31", Handle: recorded, Accepted: func(context.Context, string) error {
		t.Error("a resumed booking recorded again")
		return nil
	}}
	got, err := e.c.CreateShipment(ctxT(t), e.settings, req)
	if err != nil {
		t.Fatalf("resumed: %v", err)
	}
	if got.ProviderShipmentID != recorded || len(got.TrackingNumbers) != 2 {
		t.Errorf("resumed %+v, want batch %s with 2 parcels", got, recorded)
	}
	if bc := labelcheck.LabelBarcodes(t, "zpl", got.Labels); !slices.Equal(bc, got.TrackingNumbers) {
		t.Errorf("barcodes %v, numbers %v", bc, got.TrackingNumbers)
	}
	e.sandbox.mu.Lock()
	batches, parcels := len(e.sandbox.batches), len(e.sandbox.shipments)
	e.sandbox.mu.Unlock()
	if batches != 1 || parcels != 2 || e.sandbox.calls("POST /shipment/batch") != 1 {
		t.Errorf("PPL holds %d batches, %d parcels after %d bookings; want 1, 2, 1", batches, parcels, e.sandbox.calls("POST /shipment/batch"))
	}

	// Recording failing ends the attempt as unavailable, before any poll.
	polls := e.sandbox.calls("GET /shipment/batch/")
	req.Booking = carrier.Booking{Key: "shp_32", Accepted: func(context.Context, string) error {
		return errors.New("database gone")
	}}
	if _, err := e.c.CreateShipment(ctxT(t), e.settings, req); !errors.Is(err, carrier.ErrUnavailable) || !strings.Contains(err.Error(), "database gone") {
		t.Errorf("failed record: %v", err)
	}
	if e.sandbox.calls("GET /shipment/batch/") != polls {
		t.Error("polled a batch shipd could not record")
	}
}

// The fake refuses what PPL's document does not allow: a misspelt optional
// field, an unknown one deeper down, a value past a documented length, and
// the adapter's own requests pass.
func TestFakeIsStrict(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	if err := e.c.ValidateCredentials(ctx, e.settings); err != nil {
		t.Fatal(err)
	}
	e.sandbox.expectRefusals = true
	tok, _, err := e.c.token(ctx, e.sandbox.base(), e.settings)
	if err != nil {
		t.Fatal(err)
	}
	const valid = `{"labelSettings":{"format":"Pdf"},"shipments":[{"referenceId":"R1","productType":"BUSS",` +
		`"recipient":{"name":"Jana","street":"Dlouhá 1","city":"Brno","zipCode":"60200","country":"CZ"%s}%s}]}`
	post := func(body string) int {
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.sandbox.base()+"/shipment/batch", bytes.NewReader([]byte(body)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, tc := range []struct {
		name, recipient, shipment string
		want                      int
	}{
		{"valid", "", "", http.StatusCreated},
		{"misspelt optional field", "", `,"specificDelivery":{"parcelShopCod":"KM10479401"}`, http.StatusBadRequest},
		{"misspelt recipient field", `,"emial":"jana@example.cz"`, "", http.StatusBadRequest},
		{"phone past 30 characters", `,"phone":"` + strings.Repeat("1", 31) + `"`, "", http.StatusBadRequest},
		{"documented optional field", "", `,"note":"x"`, http.StatusCreated},
	} {
		body := strings.Replace(valid, "%s", tc.recipient, 1)
		body = strings.Replace(body, "%s", tc.shipment, 1)
		if got := post(body); got != tc.want {
			t.Errorf("%s: HTTP %d, want %d", tc.name, got, tc.want)
		}
	}
	if e.sandbox.calls("POST /shipment/batch") != 5 {
		t.Error("requests not counted")
	}
	e.sandbox.mu.Lock()
	refused := strings.Join(e.sandbox.refusals, "\n")
	e.sandbox.mu.Unlock()
	for _, word := range []string{"parcelShopCod", "emial", "phone"} {
		if !strings.Contains(refused, word) {
			t.Errorf("no refusal names %s:\n%s", word, refused)
		}
	}
}
