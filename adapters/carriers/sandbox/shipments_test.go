package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/platform/carrier"
)

var settings = carrier.Settings{"clientId": "client", "clientSecret": "secret"}

func box(weight float64, unit string, l, w, h float64, dimUnit string) carrier.Parcel {
	return carrier.Parcel{Type: "package", Weight: weight, WeightUnit: unit, Length: l, Width: w, Height: h, DimensionUnit: dimUnit}
}

// threeParcels bill 3, 12 and 1 started kg: actual weight wins, then the
// volumetric weight (50×40×30/5000 = 12 kg), then a half kilo in grams.
var threeParcels = []carrier.Parcel{
	box(2.5, "KG", 30, 20, 10, "CM"),
	box(1, "KG", 50, 40, 30, "CM"),
	box(500, "G", 10, 10, 10, "CM"),
}

func request(ref string, parcels ...carrier.Parcel) carrier.ShipmentRequest {
	if len(parcels) == 0 {
		parcels = threeParcels
	}
	return carrier.ShipmentRequest{
		Reference:    ref,
		ProductType:  "STANDARD",
		LabelFormat:  "zpl",
		ShippingDate: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Acme s.r.o.", Phone: "+420111222333"},
		Recipient:    carrier.Contact{FirstName: "Jana", LastName: "Nováková", Phone: "+420777888999"},
		Origin:       carrier.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "cz"},
		Destination:  carrier.Address{StreetName: "Dlouhá", HouseNumber: "12", ApartmentNumber: "3", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"},
		Parcels:      parcels,
	}
}

func withCOD(r carrier.ShipmentRequest, product string) carrier.ShipmentRequest {
	r.ProductType = product
	r.COD = &carrier.Money{Minor: 12550, Currency: "CZK"}
	return r
}

func book(t *testing.T, c *sandbox.Carrier, req carrier.ShipmentRequest) carrier.CreatedShipment {
	t.Helper()
	out, err := c.CreateShipment(context.Background(), settings, req)
	if err != nil {
		t.Fatalf("CreateShipment(%s): %v", req.Reference, err)
	}
	return out
}

var zplBarcode = regexp.MustCompile(`\^BC[^\^]*\^FD([^\^]*)\^FS`)

func barcodeOf(t *testing.T, zpl []byte) string {
	t.Helper()
	m := zplBarcode.FindAllSubmatch(zpl, -1)
	if len(m) != 1 {
		t.Fatalf("%d barcodes in label:\n%s", len(m), zpl)
	}
	return string(m[0][1])
}

func TestCreateShipmentBooksEveryParcel(t *testing.T) {
	c := sandbox.New()
	out := book(t, c, withCOD(request("ORDER-1001"), "STANDARD_COD"))

	if !regexp.MustCompile(`^SBX[0-9A-Z]{12}$`).MatchString(out.ProviderShipmentID) {
		t.Errorf("provider shipment id %q", out.ProviderShipmentID)
	}
	// 3 × 4.90 + (3 + 12 + 1) × 0.80 + 1.50 COD fee
	if want := (carrier.Money{Minor: 2900, Currency: "EUR"}); out.Price == nil || *out.Price != want {
		t.Errorf("price = %v, want %v", out.Price, want)
	}
	if len(out.TrackingNumbers) != 3 || len(out.Labels) != 3 {
		t.Fatalf("tracking numbers %v, %d labels", out.TrackingNumbers, len(out.Labels))
	}
	seen := map[string]bool{}
	for i, tn := range out.TrackingNumbers {
		if !sandbox.ValidTrackingNumber(tn) || !strings.HasPrefix(tn, "SB") || !strings.HasSuffix(tn, "CZ") || seen[tn] {
			t.Errorf("tracking number %d = %q", i, tn)
		}
		seen[tn] = true

		l := out.Labels[i]
		if l.Format != "zpl" || barcodeOf(t, l.Data) != tn {
			t.Errorf("label %d: format %s, barcode %s, want %s", i, l.Format, barcodeOf(t, l.Data), tn)
		}
		for _, want := range []string{
			fmt.Sprintf("^FD%d/3^FS", i+1), "STANDARD_5FCOD", "Sandbox carrier", "Acme s.r.o.", "Jana Nováková",
			"Dlouhá 12/3", "60200 Brno", "COD  125.50 CZK", "2026-11-21", "ORDER-1001",
			[]string{"2.50 KG", "1.00 KG", "0.50 KG"}[i],
		} {
			if !bytes.Contains(l.Data, []byte(want)) {
				t.Errorf("label %d lacks %q", i, want)
			}
		}
	}
}

func TestPrice(t *testing.T) {
	tests := []struct {
		name    string
		product string
		cod     bool
		parcels []carrier.Parcel
		minor   int64
	}{
		{"standard, three parcels", "STANDARD", false, threeParcels, 3*490 + 16*80},
		{"express, three parcels", "EXPRESS", false, threeParcels, 3*990 + 16*80},
		{"express with cash on delivery", "EXPRESS_COD", true, threeParcels, 3*990 + 16*80 + 150},
		{"a whole kilogram starts no second one", "STANDARD", false, []carrier.Parcel{box(2, "KG", 10, 10, 10, "CM")}, 490 + 2*80},
		{"just over a kilogram starts the next", "STANDARD", false, []carrier.Parcel{box(2.01, "KG", 10, 10, 10, "CM")}, 490 + 3*80},
		{"pounds and inches", "STANDARD", false, []carrier.Parcel{box(10, "LB", 10, 10, 10, "IN")}, 490 + 5*80},            // 4.54 kg; 16.39 l / 5 = 3.28 kg
		{"millimetres, volume wins", "STANDARD", false, []carrier.Parcel{box(100, "G", 600, 400, 300, "MM")}, 490 + 15*80}, // 72 l / 5 = 14.4 kg
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request("PRICE", tt.parcels...)
			req.ProductType = tt.product
			if tt.cod {
				req = withCOD(req, tt.product)
			}
			out := book(t, sandbox.New(), req)
			if out.Price == nil || out.Price.Minor != tt.minor || out.Price.Currency != "EUR" {
				t.Errorf("price = %v, want %d EUR cents", out.Price, tt.minor)
			}
		})
	}
}

func TestUnpricedReferenceBooksWithoutPrice(t *testing.T) {
	out := book(t, sandbox.New(), request(sandbox.RefUnpriced+"-1"))
	if out.Price != nil {
		t.Errorf("price = %v, want none", *out.Price)
	}
	if len(out.TrackingNumbers) != 3 || len(out.Labels) != 3 {
		t.Errorf("an unpriced booking is still a booking: %v, %d labels", out.TrackingNumbers, len(out.Labels))
	}
}

func rejected(t *testing.T, err error) []*carrier.Rejection {
	t.Helper()
	var many carrier.Rejections
	if errors.As(err, &many) {
		return many
	}
	var one *carrier.Rejection
	if !errors.As(err, &one) {
		t.Fatalf("err = %v (%T), want a rejection", err, err)
	}
	return []*carrier.Rejection{one}
}

func TestCashOnDeliveryNeedsItsProduct(t *testing.T) {
	c := sandbox.New()
	_, err := c.CreateShipment(context.Background(), settings, withCOD(request("COD-1"), "STANDARD"))
	if r := rejected(t, err); len(r) != 1 || r[0].Field != "product_type" ||
		r[0].Message != "product STANDARD does not carry cash on delivery; use STANDARD_COD" {
		t.Errorf("COD on STANDARD: %v", err)
	}

	req := request("COD-2")
	req.ProductType = "EXPRESS_COD"
	_, err = c.CreateShipment(context.Background(), settings, req)
	if r := rejected(t, err); len(r) != 1 || r[0].Field != "product_type" || !strings.Contains(r[0].Message, "use EXPRESS") {
		t.Errorf("EXPRESS_COD without COD: %v", err)
	}

	req.ProductType = "OVERNIGHT"
	_, err = c.CreateShipment(context.Background(), settings, req)
	if r := rejected(t, err); len(r) != 1 || r[0].Field != "product_type" {
		t.Errorf("unknown product: %v", err)
	}

	if out := book(t, c, withCOD(request("COD-3"), "EXPRESS_COD")); !bytes.Contains(out.Labels[0].Data, []byte("COD  125.50 CZK")) {
		t.Errorf("EXPRESS_COD label lacks the COD amount")
	}
	req.ProductType = ""
	if out := book(t, c, req); !bytes.Contains(out.Labels[0].Data, []byte("^FDSTANDARD^FS")) || out.Price == nil || out.Price.Minor != 3*490+16*80 {
		t.Errorf("empty product is not booked as STANDARD: %v", out.Price)
	}
}

func TestCarrierSideRejections(t *testing.T) {
	heavy := box(31.6, "KG", 10, 10, 10, "CM")
	limit := box(31.5, "KG", 10, 10, 10, "CM")
	many := make([]carrier.Parcel, 21)
	for i := range many {
		many[i] = box(1, "KG", 10, 10, 10, "CM")
	}
	tests := []struct {
		name   string
		req    func() carrier.ShipmentRequest
		fields []string
		msg    string
	}{
		{"unserved postal code", func() carrier.ShipmentRequest {
			r := request("R")
			r.Destination.PostalCode = "99999"
			return r
		}, []string{"destination_address.postal_code"}, "the sandbox carrier does not serve postal code 99999"},
		{"second parcel too heavy", func() carrier.ShipmentRequest { return request("R", limit, heavy) },
			[]string{"parcels.1.weight_amount"}, "31.60 kg exceeds the 31.5 kg limit of the sandbox carrier"},
		{"too heavy in pounds", func() carrier.ShipmentRequest { return request("R", box(70, "LB", 1, 1, 1, "CM")) },
			[]string{"parcels.0.weight_amount"}, "exceeds the 31.5 kg limit"},
		{"weightless parcel", func() carrier.ShipmentRequest { return request("R", box(0, "KG", 1, 1, 1, "CM")) },
			[]string{"parcels.0.weight_amount"}, "more than 0"},
		{"21 parcels", func() carrier.ShipmentRequest { return request("R", many...) }, []string{"parcels"}, "limit of 20 parcels"},
		{"no parcels", func() carrier.ShipmentRequest { r := request("R"); r.Parcels = nil; return r }, []string{"parcels"}, "at least one parcel"},
		{"unknown label format", func() carrier.ShipmentRequest { r := request("R"); r.LabelFormat = "png"; return r }, []string{"label_format"}, "not \"png\""},
		{"everything at once", func() carrier.ShipmentRequest {
			r := withCOD(request("R", heavy, limit, heavy), "EXPRESS")
			r.Destination.PostalCode = "99 999"
			return r
		}, []string{"product_type", "destination_address.postal_code", "parcels.0.weight_amount", "parcels.2.weight_amount"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sandbox.New().CreateShipment(context.Background(), settings, tt.req())
			r := rejected(t, err)
			var fields []string
			for _, x := range r {
				fields = append(fields, x.Field)
			}
			if strings.Join(fields, " ") != strings.Join(tt.fields, " ") || !strings.Contains(r[0].Message, tt.msg) {
				t.Errorf("err = %v; fields %v, want %v with %q", err, fields, tt.fields, tt.msg)
			}
			if len(tt.fields) > 1 {
				var all carrier.Rejections
				if !errors.As(err, &all) {
					t.Errorf("several problems come as %T, want carrier.Rejections", err)
				}
			}
		})
	}
	if _, err := sandbox.New().CreateShipment(context.Background(), settings, request("R", limit)); err != nil {
		t.Errorf("exactly 31.5 kg: %v", err)
	}
}

func unavailable(t *testing.T, err error, what string) {
	t.Helper()
	var r *carrier.Rejection
	if !errors.Is(err, carrier.ErrUnavailable) || errors.As(err, &r) {
		t.Errorf("%s: err = %v, want one wrapping carrier.ErrUnavailable", what, err)
	}
}

func TestTransientFailuresThenSuccess(t *testing.T) {
	c := sandbox.New()
	for i := range 2 {
		_, err := c.CreateShipment(context.Background(), settings, request("TRANSIENT-2-order"))
		unavailable(t, err, fmt.Sprintf("attempt %d", i+1))
		if err == nil || !strings.Contains(err.Error(), "sandbox carrier answered 503") {
			t.Errorf("attempt %d: %v", i+1, err)
		}
	}
	book(t, c, request("TRANSIENT-2-order"))
	book(t, c, request("TRANSIENT-2-order")) // later bookings of it keep working

	// Each reference counts for itself; other shapes are ordinary references.
	_, err := c.CreateShipment(context.Background(), settings, request("TRANSIENT-1-other"))
	unavailable(t, err, "TRANSIENT-1-other")
	book(t, c, request("TRANSIENT-1-other"))
	for _, ref := range []string{"TRANSIENT-0-x", "TRANSIENT-x-1", "TRANSIENT-2", "TRANSIENT-", "transient-2-x"} {
		book(t, c, request(ref))
	}
	// A fresh carrier has its own memory.
	_, err = sandbox.New().CreateShipment(context.Background(), settings, request("TRANSIENT-2-order"))
	unavailable(t, err, "new carrier")
}

func TestDownAlwaysFails(t *testing.T) {
	c := sandbox.New()
	for range 3 {
		_, err := c.CreateShipment(context.Background(), settings, request("DOWN-1"))
		unavailable(t, err, "DOWN")
	}
}

func TestHangReturnsWhenTheContextEnds(t *testing.T) {
	c := sandbox.New()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := c.CreateShipment(ctx, settings, request("HANG-forever"))
		done <- err
	}()

	// It hangs alone: the carrier books other shipments meanwhile.
	book(t, c, request("BESIDE"))

	select {
	case err := <-done:
		if took := time.Since(start); took < 90*time.Millisecond {
			t.Errorf("HANG returned after %s, before its context ended", took)
		}
		unavailable(t, err, "HANG")
	case <-time.After(5 * time.Second):
		t.Fatal("HANG did not return within 5 s of its context ending")
	}
}

func TestDoneContextAndTriggerSecrets(t *testing.T) {
	c := sandbox.New()
	out := book(t, c, request("OK"))
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.CreateShipment(ctx, settings, request("OK"))
	unavailable(t, err, "create with done context")
	_, err = c.Labels(ctx, settings, ref, "pdf")
	unavailable(t, err, "labels with done context")
	unavailable(t, c.CancelShipment(ctx, settings, ref), "cancel with done context")

	down := carrier.Settings{"clientId": "c", "clientSecret": sandbox.SecretUnavailable}
	_, err = c.CreateShipment(context.Background(), down, request("OK"))
	unavailable(t, err, "create, carrier unreachable")
	bad := carrier.Settings{"clientId": "c", "clientSecret": sandbox.SecretInvalid}
	_, err = c.Labels(context.Background(), bad, ref, "pdf")
	if r := rejected(t, err); r[0].Field != "clientSecret" {
		t.Errorf("labels with rejected credentials: %v", err)
	}
}

func TestLabelsAgainInAnotherFormat(t *testing.T) {
	c := sandbox.New()
	out := book(t, c, request("ORDER-7"))
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}

	pdf, err := c.Labels(context.Background(), settings, ref, "pdf")
	if err != nil || len(pdf) != 3 {
		t.Fatalf("pdf labels: %d, %v", len(pdf), err)
	}
	for i, l := range pdf {
		if l.Format != "pdf" || !bytes.HasPrefix(l.Data, []byte("%PDF-")) {
			t.Errorf("pdf label %d: format %s, starts %q", i, l.Format, l.Data[:min(8, len(l.Data))])
		}
	}
	epl, err := c.Labels(context.Background(), settings, ref, "EPL")
	if err != nil || len(epl) != 3 {
		t.Fatalf("epl labels: %d, %v", len(epl), err)
	}
	for i, l := range epl {
		if l.Format != "epl" || !bytes.HasPrefix(l.Data, []byte("N\n")) || !bytes.Contains(l.Data, []byte(`,"`+out.TrackingNumbers[i]+`"`)) {
			t.Errorf("epl label %d lacks barcode %s:\n%s", i, out.TrackingNumbers[i], l.Data)
		}
	}
	zpl, err := c.Labels(context.Background(), carrier.Settings{"clientSecret": "s", "defaultLabelFormat": "zpl"}, ref, "")
	if err != nil || len(zpl) != 3 || zpl[0].Format != "zpl" || barcodeOf(t, zpl[2].Data) != out.TrackingNumbers[2] {
		t.Fatalf("labels in the channel's default format: %v", err)
	}
	if !bytes.Equal(zpl[1].Data, out.Labels[1].Data) {
		t.Error("the same format prints the same label again")
	}

	_, err = c.Labels(context.Background(), settings, ref, "png")
	if r := rejected(t, err); r[0].Field != "label_format" {
		t.Errorf("unknown format: %v", err)
	}
	_, err = c.Labels(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: "SBXNOSUCHTHING"}, "pdf")
	if r := rejected(t, err); !strings.HasPrefix(r[0].Message, "unknown shipment") {
		t.Errorf("unknown shipment: %v", err)
	}
}

func TestCancelShipment(t *testing.T) {
	c := sandbox.New()
	out := book(t, c, request("ORDER-8"))
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}
	if err := c.CancelShipment(context.Background(), settings, ref); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if err := c.CancelShipment(context.Background(), settings, ref); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Errorf("second cancel: %v, want ErrAlreadyCancelled", err)
	}
	if _, err := c.Labels(context.Background(), settings, ref, "pdf"); len(rejected(t, err)) != 1 {
		t.Errorf("labels of a cancelled shipment: %v", err)
	}

	picked := book(t, c, request("NO-CANCEL-1"))
	err := c.CancelShipment(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: picked.ProviderShipmentID})
	if r := rejected(t, err); r[0].Message != "the shipment has already been picked up and can no longer be cancelled" {
		t.Errorf("NO-CANCEL: %v", err)
	}
	err = c.CancelShipment(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: "SBXNOSUCHTHING"})
	if r := rejected(t, err); !strings.HasPrefix(r[0].Message, "unknown shipment") {
		t.Errorf("unknown shipment: %v", err)
	}
	// Another carrier value knows nothing of this one's bookings.
	if err := sandbox.New().CancelShipment(context.Background(), settings, ref); len(rejected(t, err)) != 1 {
		t.Errorf("cancel on another carrier: %v", err)
	}
}

func TestNumbersAreUniqueUnderConcurrency(t *testing.T) {
	c := sandbox.New()
	var mu sync.Mutex
	tns, ids := map[string]bool{}, map[string]bool{}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			req := request(fmt.Sprintf("BULK-%d", i), box(1, "KG", 1, 1, 1, "CM"), box(1, "KG", 1, 1, 1, "CM"))
			req.Origin.CountryCode = ""
			out, err := c.CreateShipment(context.Background(), settings, req)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if ids[out.ProviderShipmentID] {
				t.Errorf("provider shipment id %s twice", out.ProviderShipmentID)
			}
			ids[out.ProviderShipmentID] = true
			for _, tn := range out.TrackingNumbers {
				if tns[tn] || !sandbox.ValidTrackingNumber(tn) || !strings.HasSuffix(tn, "XX") {
					t.Errorf("tracking number %s: repeated, invalid or not from XX", tn)
				}
				tns[tn] = true
			}
		})
	}
	wg.Wait()
	if len(tns) != 100 || len(ids) != 50 {
		t.Errorf("%d tracking numbers, %d ids", len(tns), len(ids))
	}
}

func TestValidTrackingNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"RA473124829GB":  true,  // UPU S10 example: serial 47312482, check digit 9
		"EE876543216CA":  true,  // serial 87654321: sum 192, 192 mod 11 = 5, check 6
		"EE876543217CA":  false, // the same with a wrong check digit
		"SB000000005XX":  true,  // sum 0: 11 becomes 5
		"SB000000080CZ":  true,  // sum 56, 56 mod 11 = 1: 10 becomes 0
		"SB000000081CZ":  false,
		"RA473124828GB":  false,
		"ra473124829gb":  false,
		"RA47312482GB":   false,
		"RA4731248290GB": false,
		"R1473124829GB":  false,
		"RA47312A829GB":  false,
		"":               false,
	} {
		if got := sandbox.ValidTrackingNumber(s); got != want {
			t.Errorf("ValidTrackingNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestInfoStillDescribesTheProducts(t *testing.T) {
	info := sandbox.New().Info()
	if info.Code != "sandbox" || !info.SupportsCOD || len(info.ProductTypes) != 3 ||
		info.ProductTypes[0].CODProduct != "STANDARD_COD" || info.ProductTypes[1].CODProduct != "EXPRESS_COD" ||
		info.ProductTypes[2].CODProduct != "POINT_COD" || info.PickupPointUse("POINT") != carrier.PickupPointRequired ||
		info.PickupPointUse("STANDARD") != carrier.PickupPointNone {
		t.Errorf("info = %+v", info)
	}
	var p carrier.Provider = sandbox.New()
	if _, ok := p.(carrier.Shipper); !ok {
		t.Error("the sandbox carrier does not ship")
	}
}

// The limit GET /v1/providers publishes is the one the carrier keeps.
func TestPublishedParcelLimitIsTheCarriers(t *testing.T) {
	c := sandbox.New()
	limit := c.Info().MaxParcels
	if limit != 20 {
		t.Fatalf("published limit %d, want the documented 20", limit)
	}
	parcels := make([]carrier.Parcel, limit+1)
	for i := range parcels {
		parcels[i] = box(1, "KG", 10, 10, 10, "CM")
	}
	if out := book(t, c, request("AT-LIMIT", parcels[:limit]...)); len(out.TrackingNumbers) != limit {
		t.Errorf("%d parcels booked %d tracking numbers", limit, len(out.TrackingNumbers))
	}
	_, err := c.CreateShipment(context.Background(), settings, request("OVER-LIMIT", parcels...))
	if r := rejected(t, err); len(r) != 1 || r[0].Field != "parcels" || !strings.Contains(r[0].Message, "limit of 20 parcels") {
		t.Errorf("%d parcels: %v", limit+1, err)
	}
}

// POINT books to one of the sandbox's pickup points, named by the shipment
// or by the channel; the sandbox refuses a point it does not have, a POINT
// shipment without one and a point on a product to the address, each on
// pickup_point_id.
func TestPickupPoints(t *testing.T) {
	c := sandbox.New()
	toPoint := func(ref, product, point string) carrier.ShipmentRequest {
		req := request(ref)
		req.ProductType, req.PickupPoint = product, point
		return req
	}
	if out := book(t, c, toPoint("POINT-1", "POINT", " SBP1001 ")); len(out.TrackingNumbers) != len(request("x").Parcels) || out.Price == nil {
		t.Errorf("a POINT shipment booked as %+v", out)
	}
	withDefault := carrier.Settings{"clientId": "id", "clientSecret": "secret", carrier.DefaultPickupPointSetting: "SBP42"}
	if _, err := c.CreateShipment(context.Background(), withDefault, toPoint("POINT-2", "POINT", "")); err != nil {
		t.Errorf("a POINT shipment on a channel with a default point: %v", err)
	}
	for _, tc := range []struct{ product, point, reason string }{
		{"POINT", "KRA010", `has no pickup point "KRA010"`},
		{"POINT", "", "delivers only to a pickup point"},
		{"STANDARD", "SBP1001", "takes no pickup point"},
	} {
		_, err := c.CreateShipment(context.Background(), settings, toPoint("POINT-3", tc.product, tc.point))
		var r *carrier.Rejection
		if !errors.As(err, &r) || r.Field != carrier.PickupPointField || !strings.Contains(r.Message, tc.reason) {
			t.Errorf("%s to %q: %v, want a rejection on %s saying %q", tc.product, tc.point, err, carrier.PickupPointField, tc.reason)
		}
	}
}

// The sandbox keeps its newest bookings only: an older one's labels and
// cancel answer "unknown shipment", a cancelled one stays remembered once,
// and tracking goes on for all.
func TestOnlyTheNewestBookingsAreRemembered(t *testing.T) {
	c := sandbox.NewWithConfig(sandbox.Config{Remember: 3})
	var made []carrier.CreatedShipment
	for i := range 5 {
		made = append(made, book(t, c, request(fmt.Sprintf("ORDER-R%d", i), threeParcels[0])))
	}
	// Cancelling a remembered booking does not count it twice.
	if err := c.CancelShipment(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: made[4].ProviderShipmentID}); err != nil {
		t.Fatal(err)
	}
	for i, out := range made[:4] { // the fifth is cancelled: no labels
		_, err := c.Labels(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}, "zpl")
		forgotten := err != nil && strings.HasPrefix(rejected(t, err)[0].Message, "unknown shipment")
		if want := i < 2; forgotten != want || (!want && err != nil) {
			t.Errorf("booking %d: labels answered %v; forgotten want %v", i, err, want)
		}
	}
	for i, out := range made {
		if _, err := c.Track(context.Background(), settings, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[0]}); err != nil {
			t.Errorf("tracking booking %d: %v", i, err)
		}
	}
}

// A cancel is forgotten with its booking: the tracking of a forgotten
// booking's parcels no longer tells it, a remembered one's still does.
func TestCancelsAreForgottenWithTheirBookings(t *testing.T) {
	c := sandbox.NewWithConfig(sandbox.Config{Remember: 2})
	var made []carrier.CreatedShipment
	for i := range 3 {
		made = append(made, book(t, c, request(fmt.Sprintf("ORDER-F%d", i), threeParcels...)))
		if i < 2 {
			if err := c.CancelShipment(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: made[i].ProviderShipmentID}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, out := range made[:2] {
		for _, tn := range out.TrackingNumbers {
			told := slices.ContainsFunc(track(t, c, tn).Events, func(e carrier.TrackingEvent) bool { return e.Status == carrier.StatusCancelled })
			if want := i == 1; told != want {
				t.Errorf("booking %d (forgotten: %v), parcel %s: tracking tells the cancel %v", i, i == 0, tn, told)
			}
		}
	}
}
