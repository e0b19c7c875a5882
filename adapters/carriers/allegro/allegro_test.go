package allegro

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

// ctxT keeps a broken test from hanging.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func parcel(kg float64) carrier.Parcel {
	return carrier.Parcel{Type: "package", Length: 300, Width: 200, Height: 100, DimensionUnit: "MM", Weight: kg, WeightUnit: "KG"}
}

func shipmentRequest(ref, product, format string, parcels ...carrier.Parcel) carrier.ShipmentRequest {
	return carrier.ShipmentRequest{
		Reference:    ref,
		ProductType:  product,
		LabelFormat:  format,
		ShippingDate: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Sklep Kowalski", FirstName: "Jan", LastName: "Kowalski", Email: "sklep@kowalski.pl", Phone: "500600700"},
		Recipient:    carrier.Contact{FirstName: "Anna", LastName: "Nowak", Email: "hamu7udk3p+17454c1b6@allegromail.pl", Phone: "600700800"},
		Origin:       carrier.Address{StreetName: "Główna", HouseNumber: "30", CityName: "Warszawa", PostalCode: "00-001", CountryCode: "pl"},
		Destination:  carrier.Address{StreetName: "Długa", HouseNumber: "12", ApartmentNumber: "3", CityName: "Kraków", PostalCode: "30-001", CountryCode: "PL"},
		Parcels:      parcels,
		Booking:      carrier.Booking{Key: "shp_" + ref},
	}
}

func field(err error) []string {
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

// The whole life of a shipment in both formats Allegro prints: booked with
// three packages and cash on delivery, its labels one file whose barcodes
// are the waybills in package order, tracked, cancelled.
func TestCreateLabelsTrackCancel(t *testing.T) {
	for _, format := range []string{"pdf", "zpl"} {
		t.Run(format, func(t *testing.T) {
			f := newFake(t)
			c := f.carrier()
			ctx := ctxT(t)
			s := testSettings()
			s["codIban"] = "PL48109024022441789739167589"
			req := shipmentRequest("ORD-"+format, ProductCourier, format, parcel(1.5), parcel(2), parcel(0.25))
			cod, _ := carrier.MoneyFromFloat(125.5, "PLN")
			req.COD = &cod
			var recorded []string
			req.Booking.Accepted = func(_ context.Context, h string) error { recorded = append(recorded, h); return nil }

			got, err := c.CreateShipment(ctx, s, req)
			if err != nil {
				t.Fatalf("CreateShipment: %v", err)
			}
			if len(got.TrackingNumbers) != 3 || got.ProviderShipmentID == "" || got.Price != nil {
				t.Fatalf("created %+v", got)
			}
			if want := []string{createCommandID(req.Booking.Key)}; !slices.Equal(recorded, want) {
				t.Errorf("recorded handles %v, want %v", recorded, want)
			}
			f.mu.Lock()
			in := f.shipments[got.ProviderShipmentID].input
			f.mu.Unlock()
			if in.CashOnDelivery == nil || in.CashOnDelivery.Amount != "125.50" || in.CashOnDelivery.Currency != "PLN" || in.CashOnDelivery.IBAN == "" {
				t.Errorf("cash on delivery sent as %+v", in.CashOnDelivery)
			}
			if p := in.Packages[0]; p.Length != (measure{30, unitCM}) || p.Weight != (measure{1.5, unitKG}) || p.Type != "PACKAGE" {
				t.Errorf("package 1 sent as %+v", p)
			}
			if in.Receiver.Street != "Długa 12/3" || in.Receiver.Point != "" || in.Sender.CountryCode != "PL" || in.LabelFormat != strings.ToUpper(format) {
				t.Errorf("sent %+v", in)
			}

			ls, err := c.Labels(ctx, s, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID, TrackingNumbers: got.TrackingNumbers}, format)
			if err != nil {
				t.Fatalf("Labels: %v", err)
			}
			if bc := labelcheck.LabelBarcodes(t, format, ls); !slices.Equal(bc, got.TrackingNumbers) {
				t.Errorf("label barcodes %v, want %v", bc, got.TrackingNumbers)
			}
			other := map[string]string{"pdf": "zpl", "zpl": "pdf"}[format]
			if _, err := c.Labels(ctx, s, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID}, other); !slices.Equal(field(err), []string{"label_format"}) {
				t.Errorf("labels in %s of a %s shipment: %v, want a label_format rejection", other, format, err)
			}
			if _, err := c.Labels(ctx, s, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID}, "epl"); !slices.Equal(field(err), []string{"label_format"}) {
				t.Errorf("epl labels: %v", err)
			}

			f.addTracking(got.TrackingNumbers[1], "PENDING", "IN_TRANSIT", "RELEASED_FOR_DELIVERY", "DELIVERED")
			tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: got.TrackingNumbers[1]})
			if err != nil || !tr.Recognized || len(tr.Events) != 4 {
				t.Fatalf("Track: %+v %v", tr, err)
			}
			if e := tr.Events[3]; e.Code != "DELIVERED" || e.Status != carrier.StatusDelivered || e.At.IsZero() {
				t.Errorf("last event %+v", e)
			}
			if tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: got.TrackingNumbers[0]}); err != nil || tr.Recognized {
				t.Errorf("a waybill without history: %+v %v", tr, err)
			}

			if err := c.CancelShipment(ctx, s, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID}); err != nil {
				t.Fatalf("CancelShipment: %v", err)
			}
			f.mu.Lock()
			cancelled := f.shipments[got.ProviderShipmentID].cancelled
			f.mu.Unlock()
			if !cancelled {
				t.Error("the fake's shipment is not cancelled")
			}
			// A retried cancel resumes its command: no second one.
			if err := c.CancelShipment(ctx, s, carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID}); err != nil {
				t.Errorf("cancel again: %v", err)
			}
			if n := f.commands("cancel"); n != 1 {
				t.Errorf("%d cancel commands, want 1", n)
			}
		})
	}
}

// A booking killed between Allegro's acceptance and the poll (its context
// ends right after the handle was recorded) is resumed from the handle by
// the retry: one shipment at Allegro, one create command.
func TestBookingResumesFromTheRecordedHandle(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	req := shipmentRequest("R1", ProductCourier, "pdf", parcel(1), parcel(2))
	ctx, kill := context.WithCancel(ctxT(t))
	var handle string
	req.Booking.Accepted = func(_ context.Context, h string) error { handle = h; kill(); return nil }
	if _, err := c.CreateShipment(ctx, s, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("killed attempt: %v, want ErrUnavailable", err)
	}
	if handle == "" || f.shipmentCount() != 0 {
		t.Fatalf("handle %q, %d shipments before the retry", handle, f.shipmentCount())
	}

	retry := shipmentRequest("R1", ProductCourier, "pdf", parcel(1), parcel(2))
	retry.Booking.Handle = handle
	retry.Booking.Accepted = func(context.Context, string) error { t.Error("a resumed booking recorded again"); return nil }
	got, err := c.CreateShipment(ctxT(t), s, retry)
	if err != nil {
		t.Fatalf("resumed attempt: %v", err)
	}
	if len(got.TrackingNumbers) != 2 {
		t.Errorf("resumed: %+v", got)
	}
	if n, posts := f.shipmentCount(), f.count("POST "+shipmentsBase+"/shipments/create-commands"); n != 1 || posts != 1 {
		t.Errorf("%d shipments, %d create commands POSTed; want 1 and 1", n, posts)
	}
}

// An attempt that crashed before recording the handle is retried with the
// Key only: it sends the same commandId, Allegro refuses the duplicate, and
// the adapter resumes the command it finds: still one shipment.
func TestBookingRetriedWithTheKeyOnlyMakesOneShipment(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	req := shipmentRequest("R2", ProductCourier, "zpl", parcel(1))
	req.Booking.Accepted = func(context.Context, string) error { return errors.New("database gone") }
	if _, err := c.CreateShipment(ctxT(t), s, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("attempt whose record failed: %v, want ErrUnavailable", err)
	}
	retry := shipmentRequest("R2", ProductCourier, "zpl", parcel(1))
	var recorded string
	retry.Booking.Accepted = func(_ context.Context, h string) error { recorded = h; return nil }
	got, err := c.CreateShipment(ctxT(t), s, retry)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if len(got.TrackingNumbers) != 1 || recorded != createCommandID("shp_R2") {
		t.Errorf("retry: %+v, recorded %q", got, recorded)
	}
	if n := f.shipmentCount(); n != 1 {
		t.Errorf("%d shipments at Allegro, want 1", n)
	}
	if n := f.commands("create"); n != 1 {
		t.Errorf("%d create commands, want 1", n)
	}
}

// Command ids are version 5 UUIDs of the booking key: the same for every
// attempt, different per shipment and per kind of command.
func TestCommandIDs(t *testing.T) {
	v5 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := createCommandID("shp_1"), createCommandID("shp_1")
	if a != b || !v5.MatchString(a) {
		t.Errorf("createCommandID: %q then %q", a, b)
	}
	if createCommandID("shp_2") == a || cancelCommandID("shp_1") == a {
		t.Error("different names share a command id")
	}
	if r := createCommandID(""); r == createCommandID("") || !regexp.MustCompile(`-4[0-9a-f]{3}-`).MatchString(r) {
		t.Errorf("a booking without key: %q", r)
	}
}

// Polls wait what Allegro's Retry-After says, unless the config sets a wait.
func TestPollWaitHonoursRetryAfter(t *testing.T) {
	c := New(Config{})
	for h, want := range map[string]time.Duration{"3": 3 * time.Second, "": DefaultPollInterval, "soon": DefaultPollInterval, "0": DefaultPollInterval} {
		if got := c.pollWait(map[string][]string{"Retry-After": {h}}); got != want {
			t.Errorf("Retry-After %q: wait %v, want %v", h, got, want)
		}
	}
	if got := New(Config{PollInterval: 5 * time.Millisecond}).pollWait(map[string][]string{"Retry-After": {"3"}}); got != 5*time.Millisecond {
		t.Errorf("with PollInterval: %v", got)
	}
}

func TestPickupPoint(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := ctxT(t)
	s := testSettings()

	req := shipmentRequest("P1", ProductPickupPoint, "pdf", parcel(1))
	req.PickupPoint = knownPoint
	got, err := c.CreateShipment(ctx, s, req)
	if err != nil {
		t.Fatalf("to a point: %v", err)
	}
	f.mu.Lock()
	in := f.shipments[got.ProviderShipmentID].input
	f.mu.Unlock()
	if in.Receiver.Point != knownPoint || in.DeliveryMethodID != lockerMethod {
		t.Errorf("sent point %q, method %q", in.Receiver.Point, in.DeliveryMethodID)
	}

	withDefault := testSettings()
	withDefault[carrier.DefaultPickupPointSetting] = knownPoint
	if _, err := c.CreateShipment(ctx, withDefault, shipmentRequest("P2", ProductPickupPoint, "pdf", parcel(1))); err != nil {
		t.Errorf("the channel's default point: %v", err)
	}

	req = shipmentRequest("P3", ProductPickupPoint, "pdf", parcel(1))
	req.PickupPoint = "NOPE99"
	_, err = c.CreateShipment(ctx, s, req)
	if !slices.Equal(field(err), []string{carrier.PickupPointField}) || !strings.Contains(err.Error(), "Punkt nie istnieje") {
		t.Errorf("an unknown point: %v", err)
	}

	before := f.count("")
	if _, err := c.CreateShipment(ctx, s, shipmentRequest("P4", ProductPickupPoint, "pdf", parcel(1))); !slices.Equal(field(err), []string{carrier.PickupPointField}) {
		t.Errorf("no point: %v", err)
	}
	req = shipmentRequest("P5", ProductCourier, "pdf", parcel(1))
	req.PickupPoint = knownPoint
	if _, err := c.CreateShipment(ctx, s, req); !slices.Equal(field(err), []string{carrier.PickupPointField}) {
		t.Errorf("a point for the courier: %v", err)
	}
	if n := f.count("") - before; n != 0 {
		t.Errorf("refusals known before booking made %d calls", n)
	}
}

// What Allegro is known to refuse is refused before any call.
func TestRefusedBeforeAnyCall(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	ctx := ctxT(t)
	many := make([]carrier.Parcel, MaxParcels+1)
	for i := range many {
		many[i] = parcel(1)
	}
	eur, _ := carrier.MoneyFromFloat(10, "EUR")
	withEUR := shipmentRequest("X", ProductCourier, "pdf", parcel(1))
	withEUR.COD = &eur
	noMethod := testSettings()
	delete(noMethod, "deliveryMethodId")
	for name, tc := range map[string]struct {
		s     carrier.Settings
		req   carrier.ShipmentRequest
		field string
	}{
		"too many parcels": {testSettings(), shipmentRequest("X", ProductCourier, "pdf", many...), "parcels"},
		"epl":              {testSettings(), shipmentRequest("X", ProductCourier, "epl", parcel(1)), "label_format"},
		"cod in EUR":       {testSettings(), withEUR, "cash_on_delivery.currency"},
		"no method":        {noMethod, shipmentRequest("X", ProductCourier, "pdf", parcel(1)), "deliveryMethodId"},
		"unknown product":  {testSettings(), shipmentRequest("X", "EXPRESS", "pdf", parcel(1)), "product_type"},
	} {
		_, err := c.CreateShipment(ctx, tc.s, tc.req)
		if !slices.Equal(field(err), []string{tc.field}) {
			t.Errorf("%s: %v, want a rejection of %s", name, err, tc.field)
		}
		if name == "too many parcels" && !strings.Contains(err.Error(), "10") {
			t.Errorf("the limit is not named: %v", err)
		}
	}
	if n := f.count(""); n != 0 {
		t.Errorf("%d calls made", n)
	}
}

// Allegro's validation errors become rejections of shipd's fields.
func TestVendorValidationErrors(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	req := shipmentRequest("V1", ProductCourier, "pdf", parcel(1), parcel(0))
	req.Recipient.Email = "anna@example.com"
	s := testSettings()
	s["deliveryMethodId"] = "00000000-0000-0000-0000-000000000000"
	_, err := c.CreateShipment(ctxT(t), s, req)
	want := []string{"deliveryMethodId", "recipient_contact.email_address", "parcels.1.weight_amount"}
	if !slices.Equal(field(err), want) {
		t.Errorf("rejections %v (%v), want %v", field(err), err, want)
	}
	if f.shipmentCount() != 0 {
		t.Error("a refused booking made a shipment")
	}
}

func TestFieldPaths(t *testing.T) {
	for path, want := range map[string]string{
		"receiver.postalCode":      "destination_address.postal_code",
		"input.sender.phone":       "sender_contact.phone_number",
		"packages[2].height.value": "parcels.2.height_dimension",
		"input.packages[0].weight": "parcels.0.weight_amount",
		"cashOnDelivery.amount":    "cash_on_delivery.amount",
		"cashOnDelivery.currency":  "cash_on_delivery.currency",
		"cashOnDelivery.iban":      "codIban",
		"receiver.point":           carrier.PickupPointField,
		"receiver.company":         "recipient_contact.company_name",
		"deliveryMethodId":         "pickupPointDeliveryMethodId",
		"additionalServices":       "additionalServices",
		"":                         "",
	} {
		if got := fieldOf(path, "pickupPointDeliveryMethodId"); got != want {
			t.Errorf("fieldOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestCancelRefused(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	got, err := c.CreateShipment(ctxT(t), testSettings(), shipmentRequest(handedOver, ProductCourier, "pdf", parcel(1)))
	if err != nil {
		t.Fatal(err)
	}
	err = c.CancelShipment(ctxT(t), testSettings(), carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID})
	var r *carrier.Rejection
	if !errors.As(err, &r) || !strings.Contains(r.Message, "nadana") {
		t.Errorf("cancel of a handed-over shipment: %v", err)
	}
	err = c.CancelShipment(ctxT(t), testSettings(), carrier.ShipmentRef{ProviderShipmentID: "unknown-shipment"})
	if !errors.As(err, &r) {
		t.Errorf("cancel of an unknown shipment: %v", err)
	}
}

// 5xx, 429 and a hang are ErrUnavailable; a 403 is Allegro's refusal.
func TestUnavailable(t *testing.T) {
	for _, status := range []int{500, 503, 504, 429} {
		f := newFake(t)
		f.failNext(status)
		_, err := f.carrier().CreateShipment(ctxT(t), testSettings(), shipmentRequest("U", ProductCourier, "pdf", parcel(1)))
		if !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("HTTP %d: %v, want ErrUnavailable", status, err)
		}
	}
	f := newFake(t)
	f.failNext(403)
	_, err := f.carrier().CreateShipment(ctxT(t), testSettings(), shipmentRequest("F", ProductCourier, "pdf", parcel(1)))
	var r *carrier.Rejection
	if !errors.As(err, &r) || errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("HTTP 403: %v, want a rejection", err)
	}

	f = newFake(t)
	c := f.carrier()
	if err := c.ValidateCredentials(ctxT(t), testSettings()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.hang = true
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Track(ctx, testSettings(), carrier.TrackingRequest{TrackingNumber: "A1"}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("hang: %v, want ErrUnavailable", err)
	}
}

// A poll Allegro does not answer is polled again: the command exists.
func TestPollSurvivesHiccups(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	req := shipmentRequest("H", ProductCourier, "pdf", parcel(1))
	req.Booking.Accepted = func(context.Context, string) error { f.failNext(503, 502); return nil }
	if _, err := c.CreateShipment(ctxT(t), testSettings(), req); err != nil {
		t.Fatalf("with failing polls: %v", err)
	}
	if f.shipmentCount() != 1 {
		t.Errorf("%d shipments", f.shipmentCount())
	}
}

// A waybill of the pickup-point method is asked of its carrier id too; a
// carrier id Allegro does not know is refused on the setting that named it.
func TestTrackAsksEachCarrierOfTheChannel(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	s["carrierId"] = "DPD"
	s["pickupPointCarrierId"] = "ALLEGRO"
	f.addTracking("A000009E5D201", "PENDING", "AVAILABLE_FOR_PICKUP")
	// DPD is unknown to the fake: the first carrier's 400 is the answer.
	if _, err := c.Track(ctxT(t), s, carrier.TrackingRequest{TrackingNumber: "A000009E5D201"}); !slices.Equal(field(err), []string{"carrierId"}) {
		t.Errorf("an unknown carrier id: %v", err)
	}
	s["carrierId"], s["pickupPointCarrierId"] = "ALLEGRO", "INPOST"
	tr, err := c.Track(ctxT(t), s, carrier.TrackingRequest{TrackingNumber: "A000009E5D201"})
	if err != nil || !tr.Recognized || tr.Events[1].Status != carrier.StatusReadyForPickup {
		t.Errorf("tracked %+v %v", tr, err)
	}
	if _, err := c.Track(ctxT(t), s, carrier.TrackingRequest{TrackingNumber: "UNKNOWN1"}); !slices.Equal(field(err), []string{"pickupPointCarrierId"}) {
		t.Errorf("a waybill unknown to ALLEGRO, then an unknown carrier id: %v", err)
	}
}

// The fake holds the adapter to Allegro's file strictly: an invented or
// misspelt property is refused at every depth, addresses included (fixSpec).
func TestFakeRefusesUndocumentedProperties(t *testing.T) {
	sp := loadSpec(t)
	good := `{"commandId":"x","input":{"deliveryMethodId":"m","sender":{"name":"a","street":"s","postalCode":"00-001","city":"c","countryCode":"PL","email":"e","phone":"1"},"receiver":{"name":"a","street":"s","postalCode":"00-001","city":"c","countryCode":"PL","email":"e","phone":"1","point":"P"},"packages":[{"type":"PACKAGE","length":{"value":1,"unit":"CENTIMETER"},"width":{"value":1,"unit":"CENTIMETER"},"height":{"value":1,"unit":"CENTIMETER"},"weight":{"value":1,"unit":"KILOGRAMS"}}],"labelFormat":"PDF"}}`
	for body, refused := range map[string]bool{
		good: false,
		strings.Replace(good, `"point":"P"`, `"pointId":"P"`, 1):                    true,
		strings.Replace(good, `"labelFormat":"PDF"`, `"labelFormat":"EPL"`, 1):      true,
		strings.Replace(good, `"type":"PACKAGE",`, `"type":"PACKAGE","kind":1,`, 1): true,
		strings.Replace(good, `"email":"e",`, ``, 1):                                true,
	} {
		r, _ := http.NewRequest(http.MethodPost, specBase+shipmentsBase+"/shipments/create-commands", strings.NewReader(body))
		r.Header.Set("Content-Type", mediaType)
		if _, err := sp.CheckRequest(r); (err != nil) != refused {
			t.Errorf("refused=%v, want %v: %v\n%s", err != nil, refused, err, body)
		}
	}
}

// A shipment cancelled before, where its cancel command cannot be resumed
// (in Allegro's own panel), is carrier.ErrAlreadyCancelled, read from its
// canceledDate, not a refusal.
func TestCancelOfACancelledShipment(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	got, err := c.CreateShipment(ctxT(t), testSettings(), shipmentRequest("ORDER-C", ProductCourier, "pdf", parcel(1)))
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.shipments[got.ProviderShipmentID].cancelled = true
	f.mu.Unlock()
	err = c.CancelShipment(ctxT(t), testSettings(), carrier.ShipmentRef{ProviderShipmentID: got.ProviderShipmentID})
	if !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Errorf("cancel of a cancelled shipment: %v, want ErrAlreadyCancelled", err)
	}
	if n := f.commands("cancel"); n != 1 {
		t.Errorf("%d cancel commands, want 1", n)
	}
}

// Allegro holds the shipment once the command succeeded: a package without
// its waybill yet still answers the shipment, its number empty, and the
// same booking resumed (its handle) reads it.
func TestAMissingWaybillIsReadAgainFromTheCommand(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	req := shipmentRequest("ORDER-W", ProductCourier, "pdf", parcel(1), parcel(2))
	var handle string
	req.Booking.Accepted = func(_ context.Context, h string) error { handle = h; return nil }
	f.mu.Lock()
	f.dropWaybill = true
	f.mu.Unlock()
	got, err := c.CreateShipment(ctxT(t), testSettings(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.ProviderShipmentID == "" || len(got.TrackingNumbers) != 2 || got.TrackingNumbers[0] == "" || got.TrackingNumbers[1] != "" {
		t.Fatalf("answer %+v, want the shipment with its second waybill empty", got)
	}
	req.Booking.Handle, req.Booking.Accepted = handle, nil
	again, err := c.CreateShipment(ctxT(t), testSettings(), req)
	if err != nil {
		t.Fatal(err)
	}
	if again.ProviderShipmentID != got.ProviderShipmentID || len(again.TrackingNumbers) != 2 || again.TrackingNumbers[1] == "" {
		t.Errorf("read again %+v", again)
	}
	if f.commands("create") != 1 || f.shipmentCount() != 1 {
		t.Errorf("%d commands, %d shipments; want 1 and 1", f.commands("create"), f.shipmentCount())
	}
}
