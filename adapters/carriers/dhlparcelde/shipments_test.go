package dhlparcelde

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

func parcel(kg float64) carrier.Parcel {
	return carrier.Parcel{Type: "package", Weight: kg, WeightUnit: "KG", Length: 30, Width: 20, Height: 10, DimensionUnit: "CM"}
}

func request(parcels ...carrier.Parcel) carrier.ShipmentRequest {
	return carrier.ShipmentRequest{
		Reference:    "ORDER-100234",
		ProductType:  "V01PAK",
		LabelFormat:  "pdf",
		ShippingDate: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "My Online Shop GmbH", FirstName: "Max", LastName: "Mustermann", Email: "max@shop.de", Phone: "+49 228 123456"},
		Recipient:    carrier.Contact{FirstName: "Maria", LastName: "Musterfrau", Email: "maria@example.de", Phone: "+49 987654321"},
		Origin:       carrier.Address{StreetName: "Sträßchensweg", HouseNumber: "10", CityName: "Bonn", PostalCode: "53113", CountryCode: "de"},
		Destination:  carrier.Address{StreetName: "Kurt-Schumacher-Str.", HouseNumber: "20", ApartmentNumber: "3", CityName: "Bonn", PostalCode: "53113", CountryCode: "DE"},
		Parcels:      parcels,
	}
}

func rejectionsOf(t *testing.T, err error) []*carrier.Rejection {
	t.Helper()
	refusals, ok := carrier.RefusalsOf(err)
	if !ok {
		t.Fatalf("error %v (%T) is no rejection", err, err)
	}
	return refusals
}

func fields(rs []*carrier.Rejection) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Field)
	}
	return out
}

// barcodes reads the merged label back: the barcode of each parcel in order,
// each PDF page holding one parcel's label alone.
func barcodes(t *testing.T, format string, ls []carrier.Label) []string {
	t.Helper()
	merged := labelcheck.Merge(t, format, ls)
	if format != "pdf" {
		return labelcheck.Barcodes(t, format, merged)
	}
	var out []string
	for i, page := range labelcheck.PDFBarcodes(t, merged) {
		if len(page) != 1 {
			t.Fatalf("page %d has barcodes %v, want one", i+1, page)
		}
		out = append(out, page[0])
	}
	return out
}

func TestCreateLabelsTrackCancel(t *testing.T) {
	for _, format := range []string{"pdf", "zpl"} {
		t.Run(format, func(t *testing.T) {
			f := newFake(t)
			c := f.carrier()
			s := testSettings()
			ctx := context.Background()
			req := request(parcel(2.5), parcel(0.5), parcel(31.5))
			req.LabelFormat = format

			out, err := c.CreateShipment(ctx, s, req)
			if err != nil {
				t.Fatalf("CreateShipment: %v", err)
			}
			if len(out.TrackingNumbers) != 3 || out.ProviderShipmentID != out.TrackingNumbers[0] {
				t.Fatalf("created %+v", out)
			}
			if f.count("POST "+shippingBase+"/orders") != 1 {
				t.Errorf("%d POST /orders, want all parcels in one", f.count("POST "+shippingBase+"/orders"))
			}
			o := f.orders[0]
			if len(o.Shipments) != 3 || o.Profile != DefaultProfile {
				t.Fatalf("order %+v", o)
			}
			first := o.Shipments[0]
			if first.Consignee.Country != "DEU" || first.Shipper.Country != "DEU" || first.Consignee.AddressHouse != "20/3" ||
				first.Shipper.Name1 != "My Online Shop GmbH" || first.Shipper.Name2 != "Max Mustermann" || first.ShipDate != "2026-11-23" ||
				first.RefNo != "ORDER-100234" || first.BillingNumber != testBilling || first.Services != nil {
				t.Errorf("first shipment %+v", first)
			}
			var grams []float64
			for _, sh := range o.Shipments {
				grams = append(grams, sh.Details.Weight.Value)
			}
			if !reflect.DeepEqual(grams, []float64{2500, 500, 31500}) || *first.Details.Dim != (dimensions{UOM: "mm", Length: 300, Width: 200, Height: 100}) {
				t.Errorf("weights %v dims %+v", grams, first.Details.Dim)
			}

			// Labels with the booking, one per parcel, barcodes in parcel order.
			if got := barcodes(t, format, out.Labels); !reflect.DeepEqual(got, out.TrackingNumbers) {
				t.Errorf("booking labels decode to %v, want %v", got, out.TrackingNumbers)
			}
			// Labels again, in the other format too.
			ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
			for _, again := range []string{format, map[string]string{"pdf": "zpl", "zpl": "pdf"}[format]} {
				ls, err := c.Labels(ctx, s, ref, again)
				if err != nil {
					t.Fatalf("Labels(%s): %v", again, err)
				}
				if got := barcodes(t, again, ls); !reflect.DeepEqual(got, out.TrackingNumbers) {
					t.Errorf("Labels(%s) decode to %v, want %v", again, got, out.TrackingNumbers)
				}
			}

			// Tracking of the second parcel.
			f.setTracking(t, out.TrackingNumbers[1], "pre-transit", "transit", "delivered")
			tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[1]})
			if err != nil || !tr.Recognized || len(tr.Events) != 3 {
				t.Fatalf("Track = %+v, %v", tr, err)
			}
			slices.SortFunc(tr.Events, func(a, b carrier.TrackingEvent) int { return a.At.Compare(b.At) })
			var statuses []carrier.TrackingStatus
			for _, e := range tr.Events {
				statuses = append(statuses, e.Status)
			}
			if want := []carrier.TrackingStatus{"waiting_for_shipment", "in_transit", "delivered"}; !reflect.DeepEqual(statuses, want) {
				t.Errorf("statuses %v, want %v", statuses, want)
			}
			last := tr.Events[2]
			if last.Code != "delivered" || last.Description != "event delivered" || last.Location != "1043 AG Oderweg 2, AMSTERDAM, NL" ||
				!last.At.Equal(time.Date(2025, 1, 10, 9, 0, 0, 0, time.UTC)) {
				t.Errorf("last event %+v", last)
			}

			// Cancel every parcel, once.
			if err := c.CancelShipment(ctx, s, ref); err != nil {
				t.Fatalf("CancelShipment: %v", err)
			}
			for _, n := range out.TrackingNumbers {
				if !f.shipments[n].deleted {
					t.Errorf("shipment %s not deleted", n)
				}
			}
			// DHL answers a deleted shipment as unknown [V]: the second
			// cancel (the first's answer lost) is told it is done already.
			if err := c.CancelShipment(ctx, s, ref); !errors.Is(err, carrier.ErrAlreadyCancelled) {
				t.Errorf("second cancel: %v, want ErrAlreadyCancelled", err)
			}
			if _, err := c.Labels(ctx, s, ref, format); len(rejectionsOf(t, err)) != 3 {
				t.Errorf("labels of a cancelled shipment: %v", err)
			}
			if n := f.tokenCount(); n != 1 {
				t.Errorf("%d token requests for one token lifetime, want 1", n)
			}
		})
	}
}

func TestCancelRefusedOnceManifested(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	out, err := c.CreateShipment(context.Background(), testSettings(), request(parcel(1)))
	if err != nil {
		t.Fatal(err)
	}
	f.manifested[out.TrackingNumbers[0]] = true
	err = c.CancelShipment(context.Background(), testSettings(), carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID})
	rs := rejectionsOf(t, err)
	if len(rs) != 1 || !strings.Contains(rs[0].Message, "cannot be deleted") {
		t.Errorf("cancel of a manifested shipment: %v", err)
	}
}

// A cancel retried after its answer was lost finds DHL's documented answer
// for deleted shipments ("does not exist (or was already deleted)", 400 per
// item): every parcel's is ErrAlreadyCancelled, a single parcel's too (DHL
// answers that one with HTTP 400); some deleted before and the rest now is a
// cancel that worked; a manifested parcel among them keeps it a refusal.
func TestCancelOfDeletedShipments(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	ctx := context.Background()
	book := func(parcels ...carrier.Parcel) carrier.ShipmentRef {
		out, err := c.CreateShipment(ctx, s, request(parcels...))
		if err != nil {
			t.Fatal(err)
		}
		return carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
	}

	one := book(parcel(1))
	if err := c.CancelShipment(ctx, s, one); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelShipment(ctx, s, one); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Errorf("a single parcel's second cancel: %v, want ErrAlreadyCancelled", err)
	}

	two := book(parcel(1), parcel(2))
	if err := c.CancelShipment(ctx, s, carrier.ShipmentRef{TrackingNumbers: two.TrackingNumbers[:1]}); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelShipment(ctx, s, two); err != nil {
		t.Errorf("one parcel deleted before, the other now: %v, want nil", err)
	}
	if !f.shipments[two.TrackingNumbers[1]].deleted {
		t.Error("the second parcel was not deleted")
	}

	mixed := book(parcel(1), parcel(2))
	if err := c.CancelShipment(ctx, s, carrier.ShipmentRef{TrackingNumbers: mixed.TrackingNumbers[:1]}); err != nil {
		t.Fatal(err)
	}
	f.manifested[mixed.TrackingNumbers[1]] = true
	rs := rejectionsOf(t, c.CancelShipment(ctx, s, mixed))
	if len(rs) != 2 || !strings.Contains(rs[1].Message, "cannot be deleted") {
		t.Errorf("a deleted and a manifested parcel: %v, want both refusals", rs)
	}
}

func TestCashOnDelivery(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := context.Background()

	req := request(parcel(1), parcel(2))
	req.COD = &carrier.Money{Minor: 12550, Currency: "EUR"}
	if _, err := c.CreateShipment(ctx, testSettings(), req); err != nil {
		t.Fatalf("COD booking: %v", err)
	}
	sh := f.orders[0].Shipments
	cod := sh[0].Services.CashOnDelivery
	if cod.Amount != (value{Currency: "EUR", Value: 125.5}) || cod.TransferNote1 != "ORDER-100234" || sh[1].Services != nil {
		t.Errorf("COD sent as %+v / %+v", sh[0].Services, sh[1].Services)
	}

	calls := f.count("")
	req.COD = &carrier.Money{Minor: 12550, Currency: "CZK"}
	if rs := rejectionsOf(t, mustFail(c.CreateShipment(ctx, testSettings(), req))); !reflect.DeepEqual(fields(rs), []string{"cash_on_delivery.currency"}) {
		t.Errorf("COD in CZK: %v", rs)
	}
	req.COD = &carrier.Money{Minor: 1000, Currency: "EUR"}
	req.ProductType = "V53WPAK"
	if rs := rejectionsOf(t, mustFail(c.CreateShipment(ctx, testSettings(), req))); !reflect.DeepEqual(fields(rs), []string{"product_type"}) {
		t.Errorf("COD with V53WPAK: %v", rs)
	}
	if f.count("") != calls {
		t.Errorf("refused COD requests reached DHL")
	}
}

func mustFail(_ carrier.CreatedShipment, err error) error { return err }

func TestRejections(t *testing.T) {
	ctx := context.Background()
	t.Run("refused before any call", func(t *testing.T) {
		f := newFake(t)
		c := f.carrier()
		req := request(parcel(40), parcel(1))
		req.Destination.CountryCode = "XX"
		req.LabelFormat = "epl"
		rs := rejectionsOf(t, mustFail(c.CreateShipment(ctx, testSettings(), req)))
		want := []string{"label_format", "destination_address.country_code", "parcels.0.weight_amount"}
		if !reflect.DeepEqual(fields(rs), want) {
			t.Errorf("fields %v, want %v (%v)", fields(rs), want, rs)
		}
		many := request(make([]carrier.Parcel, 31)...)
		for i := range many.Parcels {
			many.Parcels[i] = parcel(1)
		}
		if rs := rejectionsOf(t, mustFail(c.CreateShipment(ctx, testSettings(), many))); !reflect.DeepEqual(fields(rs), []string{"parcels"}) {
			t.Errorf("31 parcels: %v", rs)
		}
		s := testSettings()
		s["billingNumber"] = "123"
		if rs := rejectionsOf(t, mustFail(c.CreateShipment(ctx, s, request(parcel(1))))); !reflect.DeepEqual(fields(rs), []string{"billingNumber"}) {
			t.Errorf("short billing number: %v", rs)
		}
		if n := f.count(""); n != 0 {
			t.Errorf("%d calls reached DHL", n)
		}
	})
	t.Run("DHL validation message on one parcel", func(t *testing.T) {
		f := newFake(t)
		req := request(parcel(1))
		req.Destination.PostalCode = unservedPostal
		rs := rejectionsOf(t, mustFail(f.carrier().CreateShipment(ctx, testSettings(), req)))
		if len(rs) != 1 || rs[0].Field != "destination_address.postal_code" || !strings.Contains(rs[0].Message, "Postleitzahl ist nicht gültig") {
			t.Errorf("rejection %v", rs)
		}
	})
	t.Run("every parcel refused (207)", func(t *testing.T) {
		f := newFake(t)
		req := request(parcel(1), parcel(2))
		req.ProductType = "V53WPAK" // the billing number is V01PAK's
		rs := rejectionsOf(t, mustFail(f.carrier().CreateShipment(ctx, testSettings(), req)))
		if !reflect.DeepEqual(fields(rs), []string{"billingNumber", "billingNumber"}) || !strings.HasPrefix(rs[1].Message, "parcel 2: ") {
			t.Errorf("rejections %v", rs)
		}
	})
	t.Run("partial failure deletes what was created", func(t *testing.T) {
		f := newFake(t)
		c := f.carrier()
		// The second parcel goes to another consignee DHL does not serve:
		// impossible through shipd, so the fake refuses its weight instead.
		f.failItem = func(i int) *responseItem {
			if i != 1 {
				return nil
			}
			it := itemError("shipments[1].details.weight.value", "Das Gewicht ist für das Produkt zu hoch.")
			return &it
		}
		rs := rejectionsOf(t, mustFail(c.CreateShipment(ctx, testSettings(), request(parcel(1), parcel(2)))))
		if !reflect.DeepEqual(fields(rs), []string{"parcels.1.weight_amount"}) {
			t.Errorf("rejections %v", rs)
		}
		if f.count("DELETE "+shippingBase+"/orders") != 1 || len(f.shipments) != 1 {
			t.Fatalf("created parcel not deleted: %v", f.calls)
		}
		for n, sh := range f.shipments {
			if !sh.deleted {
				t.Errorf("shipment %s of the refused booking still exists", n)
			}
		}
	})
}

func TestFieldOfDHLProperty(t *testing.T) {
	for prop, want := range map[string]string{
		"shipments[0].consignee.postalCode":        "destination_address.postal_code",
		"shipments[2].consignee.phone":             "recipient_contact.phone_number",
		"consignee.addressStreet":                  "destination_address.street_name",
		"shipper.city":                             "origin_address.city_name",
		"shipper.email":                            "sender_contact.email_address",
		"shipments[2].details.weight.value":        "parcels.2.weight_amount",
		"dimension.weight":                         "parcels.2.weight_amount",
		"details.dim.height":                       "parcels.2.height_dimension",
		"shipments[2].product":                     "product_type",
		"services.cashOnDelivery.amount.value":     "cash_on_delivery.amount",
		"services.cashOnDelivery.amount.currency":  "cash_on_delivery.currency",
		"shipments[2].services.preferredNeighbour": "shipments[2].services.preferredNeighbour",
	} {
		if got := field(prop, 2); got != want {
			t.Errorf("field(%q) = %q, want %q", prop, got, want)
		}
	}
}

func TestCredentials(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.carrier()
	if err := c.ValidateCredentials(ctx, testSettings()); err != nil {
		t.Fatalf("ValidateCredentials: %v", err)
	}
	for key, field := range map[string]string{"clientSecret": "clientSecret", "clientId": "clientSecret", "password": "password", "username": "password"} {
		s := testSettings()
		s[key] = "wrong"
		rs := rejectionsOf(t, c.ValidateCredentials(ctx, s))
		if len(rs) != 1 || rs[0].Field != field || !strings.Contains(rs[0].Message, "invalid_") {
			t.Errorf("wrong %s: %v", key, rs)
		}
	}
	s := testSettings()
	s["password"] = ""
	if rs := rejectionsOf(t, c.ValidateCredentials(ctx, s)); rs[0].Field != "password" {
		t.Errorf("empty password: %v", rs)
	}
	if n := f.tokenCount(); n != 5 {
		t.Errorf("%d token requests, want 5 (one per distinct credentials)", n)
	}
}

func TestTokenCachedRefreshedAndRevoked(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	out, err := c.CreateShipment(ctx, s, request(parcel(1)))
	if err != nil {
		t.Fatal(err)
	}
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
	for range 3 {
		if _, err := c.Labels(ctx, s, ref, "pdf"); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.tokenCount(); n != 1 {
		t.Fatalf("%d token requests for 4 calls in one token lifetime", n)
	}

	// DHL drops the token early: one 401, a new token, the call succeeds.
	f.revokeTokens()
	if _, err := c.Labels(ctx, s, ref, "pdf"); err != nil {
		t.Fatalf("after revocation: %v", err)
	}
	if n := f.tokenCount(); n != 2 {
		t.Errorf("%d token requests after a revocation, want 2", n)
	}

	// A token about to expire (expires_in under oauth2's 10 s margin) is
	// fetched again before the next call instead of being sent expired.
	f.tokenTTL = 5
	f.revokeTokens()
	c.Labels(ctx, s, ref, "pdf") // 401, new short-lived token
	before := f.tokenCount()
	if _, err := c.Labels(ctx, s, ref, "pdf"); err != nil {
		t.Fatal(err)
	}
	if f.tokenCount() != before+1 {
		t.Errorf("an expiring token was reused")
	}

	// Tokens that never work: one retry, then a rejection on clientId.
	f.tokenTTL = 1799
	c2 := f.carrier()
	f.mu.Lock()
	f.refuseTokens = true
	f.mu.Unlock()
	before = f.tokenCount()
	rs := rejectionsOf(t, c2.CancelShipment(ctx, s, ref))
	if rs[0].Field != "clientId" || f.tokenCount() != before+2 {
		t.Errorf("refused tokens: %v after %d token requests", rs, f.tokenCount()-before)
	}
}

func TestUnavailable(t *testing.T) {
	s := testSettings()
	for _, status := range []int{500, 503, 429} {
		f := newFake(t)
		f.failNext(status)
		_, err := f.carrier().CreateShipment(context.Background(), s, request(parcel(1)))
		if !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("HTTP %d: %v", status, err)
		}
		f.failNext(status)
		if _, err := f.carrier().Track(context.Background(), s, carrier.TrackingRequest{TrackingNumber: "340434310000000001"}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("tracking HTTP %d: %v", status, err)
		}
	}

	f := newFake(t)
	f.tokenStatus = http.StatusServiceUnavailable
	if err := f.carrier().ValidateCredentials(context.Background(), s); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("token endpoint 503: %v", err)
	}

	f = newFake(t)
	f.hang = true
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := f.carrier().CreateShipment(ctx, s, request(parcel(1)))
	if !errors.Is(err, carrier.ErrUnavailable) || time.Since(start) > 2*time.Second {
		t.Errorf("hanging DHL: %v after %v", err, time.Since(start))
	}
}

func TestSandboxModePicksTheHost(t *testing.T) {
	prod, sb := newFake(t), newFake(t)
	c := New(Config{ProductionURL: prod.srv.URL, SandboxURL: sb.srv.URL, ProductionTrackingURL: prod.srv.URL, SandboxTrackingURL: sb.srv.URL})
	for _, tc := range []struct {
		name string
		mode any
		want *fake
	}{{"sandbox", true, sb}, {"production", false, prod}, {"default (sandbox)", nil, sb}} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			delete(s, "sandboxMode")
			if tc.mode != nil {
				s["sandboxMode"] = tc.mode
			}
			other := prod
			if tc.want == prod {
				other = sb
			}
			calls := func(f *fake) int { return f.count("POST "+shippingBase) + f.count("GET "+trackingPath) }
			beforeProd, beforeSB := calls(prod), calls(sb)
			if _, err := c.CreateShipment(context.Background(), s, request(parcel(1))); err != nil {
				t.Fatal(err)
			}
			if tc.want.tokenCount() != 1 || other.tokenCount() > 1 {
				t.Errorf("token requests: chosen host %d, other %d", tc.want.tokenCount(), other.tokenCount())
			}
			if tr, err := c.Track(context.Background(), s, carrier.TrackingRequest{TrackingNumber: "340434319999999999"}); err != nil || tr.Recognized {
				t.Fatalf("Track = %+v, %v", tr, err)
			}
			gotWant := calls(tc.want) - map[*fake]int{prod: beforeProd, sb: beforeSB}[tc.want]
			gotOther := calls(other) - map[*fake]int{prod: beforeProd, sb: beforeSB}[other]
			if gotWant != 2 || gotOther != 0 { // POST /orders, tracking
				t.Errorf("%d calls to the chosen host, %d to the other", gotWant, gotOther)
			}
		})
	}
	d := New(Config{})
	if d.apiHost(carrier.Settings{"sandboxMode": false}) != "https://api-eu.dhl.com" || d.apiHost(carrier.Settings{}) != "https://api-sandbox.dhl.com" ||
		d.trackingHost(carrier.Settings{"sandboxMode": false}) != "https://api-eu.dhl.com" {
		t.Error("documented hosts not the defaults")
	}
}

func TestTrack(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.carrier()
	s := testSettings()

	tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "340434310000000999"})
	if err != nil || tr.Recognized || len(tr.Events) != 0 {
		t.Errorf("unknown number: %+v, %v", tr, err)
	}

	f.setTracking(t, "340434310000000777", "transit", "failure", "unknown")
	tr, err = c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "340434310000000777"})
	if err != nil || !tr.Recognized {
		t.Fatalf("Track: %+v, %v", tr, err)
	}
	got := map[string]carrier.TrackingStatus{}
	for _, e := range tr.Events {
		got[e.Code] = e.Status
	}
	if want := map[string]carrier.TrackingStatus{"transit": "in_transit", "failure": "delivery_failed", "unknown": ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}

	s["clientId"] = "not-subscribed"
	if rs := rejectionsOf(t, mustFailTrack(c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "340434310000000777"}))); rs[0].Field != "clientId" {
		t.Errorf("bad key: %v", rs)
	}
	if n := f.tokenCount(); n != 0 {
		t.Errorf("tracking asked for %d OAuth tokens; it uses the API key", n)
	}
}

func mustFailTrack(_ carrier.Tracking, err error) error { return err }

func TestInfo(t *testing.T) {
	info := New(Config{}).Info()
	if info.Code != "dhl_parcel_de" || !info.SupportsCOD || !reflect.DeepEqual(info.LabelFormats, []string{"pdf", "zpl"}) {
		t.Errorf("info %+v", info)
	}
	if want := map[string]bool{"clientSecret": true, "password": true}; !reflect.DeepEqual(info.SecretKeys(), want) {
		t.Errorf("secret keys %v", info.SecretKeys())
	}
	for _, p := range info.ProductTypes {
		if p.CODProduct != "" || p.SupportsCOD != (p.Code == "V01PAK") {
			t.Errorf("product %+v", p)
		}
	}
	if errs := info.ValidateSettings(map[string]any(testSettings())); len(errs) != 0 {
		t.Errorf("test settings invalid: %v", errs)
	}
	if info.Settings[6].Key != "productType" || info.Settings[6].Default != "V01PAK" {
		t.Errorf("productType default %v", info.Settings[6].Default)
	}
}

// The fake's OpenAPI check is real: a request DHL's file refuses is caught.
func TestFakeRefusesRequestsOutsideDHLsOpenAPI(t *testing.T) {
	f := newFake(t)
	var refused []string
	f.report = func(format string, args ...any) { refused = append(refused, format) }
	c := f.carrier()
	tok, err := c.token(context.Background(), testSettings())
	if err != nil {
		t.Fatal(err)
	}
	body := `{"profile":"STANDARD_GRUPPENPROFIL","shipments":[{"product":"V01PAK","billingNumber":"33333333330102",
		"shipper":{"name1":"Shop","addressStreet":"Weg 1","postalCode":"53113","city":"Bonn","country":"DE"},
		"consignee":{"name1":"Maria","addressStreet":"Str. 2","postalCode":"53113","city":"Bonn","country":"DEU"},
		"details":{"weight":{"uom":"lb","value":1}}}]}`
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+shippingBase+"/orders?docFormat=PNG", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("dhl-api-key", testClientID)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || len(refused) != 1 {
		t.Errorf("alpha-2 country, pound weight and PNG labels: HTTP %d, %d refusals", res.StatusCode, len(refused))
	}
}

// The limit GET /v1/providers publishes is the one DHL's OpenAPI file sets
// (the fake holds requests to it) and the one the adapter refuses past; the
// answer names no price, and none is made up.
func TestPublishedParcelLimitIsDHLs(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	limit := c.Info().MaxParcels
	if limit != 30 {
		t.Fatalf("published limit %d, want DHL's 30", limit)
	}
	req := request(make([]carrier.Parcel, limit+1)...)
	for i := range req.Parcels {
		req.Parcels[i] = parcel(1)
	}
	rs := rejectionsOf(t, mustFail(c.CreateShipment(context.Background(), testSettings(), req)))
	if len(rs) != 1 || rs[0].Field != "parcels" || !strings.Contains(rs[0].Message, "31 parcels exceed DHL Parcel DE's 30") {
		t.Errorf("%d parcels: %v", limit+1, rs)
	}
	req.Parcels = req.Parcels[:limit]
	out, err := c.CreateShipment(context.Background(), testSettings(), req)
	if err != nil {
		t.Fatalf("%d parcels: %v", limit, err)
	}
	if len(out.TrackingNumbers) != limit || out.Price != nil {
		t.Errorf("%d tracking numbers, price %v; want %d and none", len(out.TrackingNumbers), out.Price, limit)
	}
}
