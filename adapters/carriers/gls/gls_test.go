package gls

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

func request(ref string, parcels ...carrier.Parcel) carrier.ShipmentRequest {
	if len(parcels) == 0 {
		parcels = []carrier.Parcel{
			{Type: "package", Weight: 2.5, WeightUnit: "KG", Length: 30, Width: 20, Height: 10, DimensionUnit: "CM"},
			{Type: "package", Weight: 1, WeightUnit: "KG", Length: 50, Width: 40, Height: 30, DimensionUnit: "CM"},
			{Type: "package", Weight: 500, WeightUnit: "G", Length: 10, Width: 10, Height: 10, DimensionUnit: "CM"},
		}
	}
	return carrier.ShipmentRequest{
		Reference:    ref,
		ProductType:  "PARCEL",
		ShippingDate: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Acme GmbH", FirstName: "Max", LastName: "Muster", Email: "ship@acme.example", Phone: "+49301234567"},
		Recipient:    carrier.Contact{FirstName: "Jana", LastName: "Nováková", Email: "jana@example.com", Phone: "+491701234567"},
		Origin:       carrier.Address{StreetName: "Lagerstraße", HouseNumber: "1", CityName: "Berlin", PostalCode: "10115", CountryCode: "de"},
		Destination:  carrier.Address{StreetName: "Hauptstraße", HouseNumber: "12", ApartmentNumber: "3", CityName: "Neuenstein", PostalCode: "36286", CountryCode: "DE"},
		Parcels:      parcels,
	}
}

func TestInfo(t *testing.T) {
	info := New(Config{}).Info()
	if info.Code != "gls" || !info.SupportsCOD {
		t.Errorf("code %q, COD %v", info.Code, info.SupportsCOD)
	}
	if !reflect.DeepEqual(info.LabelFormats, []string{"pdf", "zpl"}) {
		t.Errorf("label formats %v", info.LabelFormats)
	}
	for _, p := range info.ProductTypes {
		if !p.SupportsCOD || p.CODProduct != "" {
			t.Errorf("product %s: COD needs no product switch at GLS: %+v", p.Code, p)
		}
	}
	if !reflect.DeepEqual(info.SecretKeys(), map[string]bool{"clientSecret": true}) {
		t.Errorf("secret keys %v", info.SecretKeys())
	}
	if errs := info.ValidateSettings(map[string]any{"clientId": "a", "clientSecret": "b", "contactId": "c",
		"productType": "EXPRESS", "sandboxMode": false, "defaultLabelFormat": "zpl"}); len(errs) != 0 {
		t.Errorf("every setting: %v", errs)
	}
	if errs := info.ValidateSettings(map[string]any{"clientId": "a", "clientSecret": "b"}); !reflect.DeepEqual(errs, map[string][]string{"contactId": {"is required"}}) {
		t.Errorf("without contactId: %v", errs)
	}
}

// effective is the status shipd derives: that of the newest mapped event.
func effective(events []carrier.TrackingEvent) carrier.TrackingStatus {
	sorted := slices.Clone(events)
	slices.SortStableFunc(sorted, func(a, b carrier.TrackingEvent) int { return a.At.Compare(b.At) })
	for i := len(sorted) - 1; i >= 0; i-- {
		if sorted[i].Status != "" {
			return sorted[i].Status
		}
	}
	return ""
}

func TestCreateLabelsTrackCancel(t *testing.T) {
	for _, format := range []string{"pdf", "zpl"} {
		t.Run(format, func(t *testing.T) {
			f := newFake(t)
			c := f.carrier()
			s := carrier.Settings(f.settings())
			ctx := context.Background()
			req := request("order-1")
			req.LabelFormat = format
			req.COD = &carrier.Money{Minor: 12550, Currency: "EUR"}

			out, err := c.CreateShipment(ctx, s, req)
			if err != nil {
				t.Fatalf("CreateShipment: %v", err)
			}
			if len(out.TrackingNumbers) != 3 || !regexp.MustCompile(`^\d{11}$`).MatchString(out.TrackingNumbers[0]) {
				t.Fatalf("tracking numbers %v", out.TrackingNumbers)
			}
			if ids := strings.Split(out.ProviderShipmentID, ","); len(ids) != 3 || len(ids[0]) != 8 {
				t.Fatalf("provider shipment id %q: want 3 TrackIDs", out.ProviderShipmentID)
			}
			if got := labelcheck.LabelBarcodes(t, format, out.Labels); !reflect.DeepEqual(got, out.TrackingNumbers) {
				t.Errorf("booking labels decode to %v, want %v", got, out.TrackingNumbers)
			}

			// What GLS was sent: one unit per parcel in order, COD on the first.
			var sent fakeCreate
			if err := json.Unmarshal(f.lastBody("create"), &sent); err != nil {
				t.Fatal(err)
			}
			units := sent.Shipment.ShipmentUnit
			if len(units) != 3 || units[0].Weight != 2.5 || units[1].Weight != 1 || units[2].Weight != 0.5 {
				t.Errorf("units %+v", units)
			}
			if len(units[0].Service) != 1 || *units[0].Service[0].Cash != (cashService{ServiceName: CODServiceName, Reason: "order-1", Amount: 125.5, Currency: "EUR"}) {
				t.Errorf("COD service %+v", units[0].Service)
			}
			if len(units[1].Service)+len(units[2].Service) != 0 {
				t.Errorf("COD repeated on later parcels: %+v", units)
			}
			if sent.Shipment.Shipper.ContactID != f.contactID || sent.Shipment.Product != "PARCEL" ||
				sent.Shipment.Consignee.Address.StreetNumber != "12/3" || sent.Shipment.Shipper.Address.CountryCode != "DE" {
				t.Errorf("shipment %+v", sent.Shipment)
			}

			ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
			again, err := c.Labels(ctx, s, ref, format)
			if err != nil {
				t.Fatalf("Labels: %v", err)
			}
			if len(again) != 3 {
				t.Errorf("%d labels, want one per parcel", len(again))
			}
			if got := labelcheck.LabelBarcodes(t, format, again); !reflect.DeepEqual(got, out.TrackingNumbers) {
				t.Errorf("reprinted labels decode to %v, want %v", got, out.TrackingNumbers)
			}

			tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[1]})
			if err != nil || !tr.Recognized || effective(tr.Events) != carrier.StatusWaitingForShipment {
				t.Errorf("Track after booking: %+v, %v", tr, err)
			}

			if err := c.CancelShipment(ctx, s, ref); err != nil {
				t.Fatalf("CancelShipment: %v", err)
			}
			for _, n := range out.TrackingNumbers {
				tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: n})
				if err != nil || effective(tr.Events) != carrier.StatusCancelled {
					t.Errorf("Track %s after cancel: %+v, %v", n, tr, err)
				}
			}
			cancels := 0
			for _, call := range f.callLog() {
				if strings.Contains(call, "POST /shipit-farm/v1/backend/rs/shipments/cancel/") {
					cancels++
				}
			}
			if cancels != 3 {
				t.Errorf("%d cancel calls, want one per parcel", cancels)
			}
		})
	}
}

func TestPrintDataAsArray(t *testing.T) {
	f := newFake(t)
	f.printDataArray = true
	req := request("order-arr")
	req.LabelFormat = "zpl"
	out, err := f.carrier().CreateShipment(context.Background(), f.settings(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := labelcheck.LabelBarcodes(t, "zpl", out.Labels); !reflect.DeepEqual(got, out.TrackingNumbers) {
		t.Errorf("labels decode to %v, want %v", got, out.TrackingNumbers)
	}
}

func TestDefaultsFromSettings(t *testing.T) {
	f := newFake(t)
	s := f.settings()
	s["productType"] = "EXPRESS"
	s["defaultLabelFormat"] = "zpl"
	req := request("order-2")
	req.ProductType = ""
	out, err := f.carrier().CreateShipment(context.Background(), s, req)
	if err != nil {
		t.Fatal(err)
	}
	var sent fakeCreate
	_ = json.Unmarshal(f.lastBody("create"), &sent)
	if sent.Shipment.Product != "EXPRESS" || sent.PrintingOptions.ReturnLabels != (returnLabels{TemplateSet: TemplateSetZPL, LabelFormat: "ZEBRA"}) {
		t.Errorf("product %s, printing %+v", sent.Shipment.Product, sent.PrintingOptions)
	}
	if len(out.Labels) != 1 || out.Labels[0].Format != "zpl" {
		t.Errorf("labels %+v", out.Labels)
	}
}

func TestTrackTestParcels(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	want := map[string]carrier.TrackingStatus{
		"QAS_0000001": carrier.StatusWaitingForShipment,
		"QAS_0000002": carrier.StatusWaitingForShipment,
		"QAS_0000003": carrier.StatusOnHold,
		"QAS_0000004": carrier.StatusWaitingForShipment,
		"QAS_0000005": carrier.StatusInTransit,
		"QAS_0000006": carrier.StatusOutForDelivery,
		"QAS_0000007": carrier.StatusReadyForPickup,
		"QAS_0000008": carrier.StatusDelivered,
		"QAS_0000009": carrier.StatusInTransit,
		"QAS_0000010": carrier.StatusDeliveryFailed,
		"QAS_0000011": carrier.StatusCancelled,
		"QAS_0000012": carrier.StatusReadyForPickup, // FINAL: the newest mapped event (DELIVD.PARCELSHOP)
	}
	for id, status := range want {
		tr, err := c.Track(context.Background(), f.settings(), carrier.TrackingRequest{TrackingNumber: id})
		if err != nil || !tr.Recognized {
			t.Errorf("%s: %+v, %v", id, tr, err)
			continue
		}
		if got := effective(tr.Events); got != status {
			t.Errorf("%s (%s): status %q, want %q", id, qasParcels[id].status, got, status)
		}
		if n := len(qasParcels[id].events) + 1; len(tr.Events) != n {
			t.Errorf("%s: %d events, want %d", id, len(tr.Events), n)
		}
		for _, e := range tr.Events {
			if e.At.IsZero() || e.Code == "" {
				t.Errorf("%s: event without code or time: %+v", id, e)
			}
		}
	}
	tr, err := c.Track(context.Background(), f.settings(), carrier.TrackingRequest{TrackingNumber: "42249018928"})
	if err != nil || tr.Recognized {
		t.Errorf("unknown number (E_404_01): %+v, %v", tr, err)
	}
	if _, err := c.Track(context.Background(), f.settings(), carrier.TrackingRequest{TrackingNumber: "QAS_FAIL"}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("E_500_01: %v, want ErrUnavailable", err)
	}
}

// TestStatusTable covers every code the vendor file documents: the status
// enum of ParcelDTO and every dotted event code in ecitrackandtrace.yaml.
func TestStatusTable(t *testing.T) {
	want := map[string]carrier.TrackingStatus{
		"PLANNEDPICKUP": carrier.StatusWaitingForShipment, "INPICKUP": carrier.StatusWaitingForShipment,
		"PREADVICE": carrier.StatusWaitingForShipment, "NOTPICKEDUP": carrier.StatusOnHold,
		"INTRANSIT": carrier.StatusInTransit, "INWAREHOUSE": carrier.StatusInTransit,
		"INDELIVERY": carrier.StatusOutForDelivery, "DELIVEREDPS": carrier.StatusReadyForPickup,
		"DELIVERED": carrier.StatusDelivered, "NOTDELIVERED": carrier.StatusDeliveryFailed,
		"CANCELED": carrier.StatusCancelled, "FINAL": "",
		"INTIAL.PREADVICE": carrier.StatusWaitingForShipment, "INTIAL.E48_DATA": carrier.StatusWaitingForShipment,
		"INTIAL.NORMAL": carrier.StatusInTransit, "DELIVD.PARCELSHOP": carrier.StatusReadyForPickup,
		"CANCEL.NORMAL": carrier.StatusCancelled, "CHANGD.MONEWADDR": "", "CHANGD.PARCELBOX": "",
	}
	doc, err := openapi3.NewLoader().LoadFromFile("testdata/ecitrackandtrace.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, v := range doc.Components.Schemas["ParcelDTO"].Value.Properties["status"].Value.Enum {
		documented = append(documented, v.(string))
	}
	raw, _ := os.ReadFile("testdata/ecitrackandtrace.yaml")
	for _, m := range regexp.MustCompile(`\b[A-Z0-9]{4,8}\.[A-Z0-9_]{3,}\b`).FindAllString(string(raw), -1) {
		if !slices.Contains(documented, m) {
			documented = append(documented, m)
		}
	}
	if len(documented) < 19 {
		t.Fatalf("found only %d documented codes: %v", len(documented), documented)
	}
	for _, code := range documented {
		status, ok := want[code]
		if !ok {
			t.Errorf("documented code %s has no expectation in this test", code)
			continue
		}
		if got := statusTable.Status(code); got != status {
			t.Errorf("%s → %q, want %q", code, got, status)
		}
		if status == "" && !slices.Contains(unmappedCodes, code) {
			t.Errorf("%s is unmapped but not listed in unmappedCodes", code)
		}
	}
	for code, status := range statusTable {
		if !status.Valid() {
			t.Errorf("%s maps to non-standard %q", code, status)
		}
		if !slices.Contains(documented, code) {
			t.Errorf("%s is in the table but not documented by the vendor file", code)
		}
	}
}

func TestTokenCachedAndRefreshed(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := f.settings()
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "QAS_0000005"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateShipment(ctx, s, request("order-3")); err != nil {
		t.Fatal(err)
	}
	if n := f.tokenCount("sandbox"); n != 1 {
		t.Errorf("%d token requests for 4 calls within one token lifetime, want 1", n)
	}
	f.revokeAll() // the gateway now answers 401 steps.jwt.TokenExpired
	if _, err := c.CreateShipment(ctx, s, request("order-4")); err != nil {
		t.Fatalf("after the token expired: %v", err)
	}
	if _, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "QAS_0000005"}); err != nil {
		t.Fatal(err)
	}
	if n := f.tokenCount("sandbox"); n != 2 {
		t.Errorf("%d token requests after one expiry, want 2", n)
	}
}

func TestCredentialsRejected(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	if err := c.ValidateCredentials(context.Background(), f.settings()); err != nil {
		t.Errorf("good credentials: %v", err)
	}
	bad := f.settings()
	bad["clientSecret"] = "wrong"
	var rej *carrier.Rejection
	err := c.ValidateCredentials(context.Background(), bad)
	if !errors.As(err, &rej) || rej.Field != "clientSecret" || !strings.Contains(rej.Message, "Invalid client identifier") {
		t.Errorf("wrong secret: %v", err)
	}
	if _, err := c.CreateShipment(context.Background(), bad, request("order-5")); !errors.As(err, &rej) || rej.Field != "clientSecret" {
		t.Errorf("booking with a wrong secret: %v", err)
	}
	noContact := f.settings()
	delete(noContact, "contactId")
	if err := c.ValidateCredentials(context.Background(), noContact); !errors.As(err, &rej) || rej.Field != "contactId" {
		t.Errorf("no contactId: %v", err)
	}
}

func TestValidationErrors(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	heavy := request("order-6")
	heavy.Parcels[1].Weight = 45
	badZip := request("order-7")
	badZip.Destination.PostalCode = "99999"
	wrongContact := f.settings()
	wrongContact["contactId"] = "nobody"
	tests := []struct {
		name     string
		settings carrier.Settings
		req      carrier.ShipmentRequest
		field    string
		message  string
	}{
		{"postal code", f.settings(), badZip, "destination_address.postal_code", "zipcode 99999 is not valid"},
		{"weight of the second parcel", f.settings(), heavy, "parcels.1.weight_amount", "exceeds the maximum of 40 kg"},
		{"contact id", wrongContact, request("order-8"), "contactId", "unknown ContactID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.CreateShipment(context.Background(), tt.settings, tt.req)
			var rej *carrier.Rejection
			if !errors.As(err, &rej) || rej.Field != tt.field || !strings.Contains(rej.Message, tt.message) {
				t.Errorf("got %v (%T), want rejection on %s with %q", err, err, tt.field, tt.message)
			}
		})
	}
	t.Run("cancel refused", func(t *testing.T) {
		out, err := c.CreateShipment(context.Background(), f.settings(), request("NO-CANCEL-1"))
		if err != nil {
			t.Fatal(err)
		}
		err = c.CancelShipment(context.Background(), f.settings(), carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers})
		var rej *carrier.Rejection
		if !errors.As(err, &rej) || !strings.Contains(rej.Message, "cancellation not possible") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("EPL is not printed", func(t *testing.T) {
		req := request("order-9")
		req.LabelFormat = "epl"
		var rej *carrier.Rejection
		if _, err := c.CreateShipment(context.Background(), f.settings(), req); !errors.As(err, &rej) || rej.Field != "label_format" {
			t.Errorf("got %v", err)
		}
	})
}

func TestUnavailable(t *testing.T) {
	t.Run("ShipIT 503", func(t *testing.T) {
		f := newFake(t)
		f.shipitStatus = 503
		if _, err := f.carrier().CreateShipment(context.Background(), f.settings(), request("order-10")); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("ShipIT 503 on cancel", func(t *testing.T) {
		f := newFake(t)
		f.shipitStatus = 503
		err := f.carrier().CancelShipment(context.Background(), f.settings(), carrier.ShipmentRef{ProviderShipmentID: "ZX000001", TrackingNumbers: []string{"93830000001"}})
		if !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("booking answers 503", func(t *testing.T) {
		f := newFake(t)
		if _, err := f.carrier().CreateShipment(context.Background(), f.settings(), request("DOWN-1")); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("booking hangs past the deadline", func(t *testing.T) {
		f := newFake(t)
		c := f.carrier()
		if err := c.ValidateCredentials(context.Background(), f.settings()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.CreateShipment(ctx, f.settings(), request("HANG-1"))
		if !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("got %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %v: the deadline was not honored", d)
		}
	})
	t.Run("token endpoint 500", func(t *testing.T) {
		f := newFake(t)
		f.tokenStatus = 500
		if err := f.carrier().ValidateCredentials(context.Background(), f.settings()); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("tracking 429", func(t *testing.T) {
		f := newFake(t)
		f.trackStatus = 429
		if _, err := f.carrier().Track(context.Background(), f.settings(), carrier.TrackingRequest{TrackingNumber: "QAS_0000001"}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("got %v", err)
		}
	})
}

func TestSandboxMode(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode any // nil: not set
		env  string
	}{{"default is sandbox", nil, "sandbox"}, {"sandbox", true, "sandbox"}, {"production", false, "prod"}} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			c := f.carrier()
			s := f.settings()
			if tt.mode != nil {
				s["sandboxMode"] = tt.mode
			}
			out, err := c.CreateShipment(context.Background(), s, request("order-11"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Track(context.Background(), s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[0]}); err != nil {
				t.Fatal(err)
			}
			calls := f.callLog()
			if len(calls) != 3 {
				t.Fatalf("calls %v", calls)
			}
			for _, call := range calls {
				if !strings.HasPrefix(call, tt.env+" ") {
					t.Errorf("call %q went to the wrong environment, want %s", call, tt.env)
				}
			}
			if !strings.HasSuffix(calls[0], "POST /oauth2/v2/token") || !strings.HasSuffix(calls[1], "POST /shipit-farm/v1/backend/rs/shipments") ||
				!strings.Contains(calls[2], "GET /track-and-trace-v1/tracking/simple/trackids/") {
				t.Errorf("calls %v", calls)
			}
		})
	}
}

func TestFieldOf(t *testing.T) {
	for text, want := range map[string]string{
		"Shipment.Consignee.Address.Zipcode: invalid":   "destination_address.postal_code",
		"Shipment.Shipper.Address.Zipcode: invalid":     "origin_address.postal_code",
		"Shipment.ShipmentUnit[2].Weight: too heavy":    "parcels.2.weight_amount",
		"Shipment.ShipmentUnit[0].Service.Cash.Amount":  "cash_on_delivery.amount",
		"Shipment.Consignee.Address.MobilePhoneNumber":  "recipient_contact.phone_number",
		"Shipment.Product: not allowed for destination": "product_type",
		"something else entirely":                       "",
	} {
		if got := fieldOf(text); got != want {
			t.Errorf("fieldOf(%q) = %q, want %q", text, got, want)
		}
	}
}

// The limit GET /v1/providers publishes is the one the adapter keeps (a
// choice: GLS documents none); GLS's answer names no price and none is made
// up.
func TestPublishedParcelLimitIsKept(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := carrier.Settings(f.settings())
	limit := c.Info().MaxParcels
	if limit != 50 {
		t.Fatalf("published limit %d, want the chosen 50", limit)
	}
	parcels := make([]carrier.Parcel, limit+1)
	for i := range parcels {
		parcels[i] = request("x").Parcels[0]
	}
	ctx := context.Background()
	_, err := c.CreateShipment(ctx, s, request("over", parcels...))
	var r *carrier.Rejection
	if !errors.As(err, &r) || r.Field != "parcels" || !strings.Contains(r.Message, "1 to 50 parcels per shipment, got 51") {
		t.Fatalf("51 parcels: %v", err)
	}
	if calls := f.callLog(); len(calls) != 0 {
		t.Errorf("a refused shipment still called GLS: %v", calls)
	}
	out, err := c.CreateShipment(ctx, s, request("at-limit", parcels[:limit]...))
	if err != nil {
		t.Fatalf("50 parcels: %v", err)
	}
	if len(out.TrackingNumbers) != limit || out.Price != nil {
		t.Errorf("%d tracking numbers, price %v; want %d and none", len(out.TrackingNumbers), out.Price, limit)
	}
}
