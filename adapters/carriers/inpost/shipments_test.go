package inpost

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

func courierRequest(parcels ...carrier.Parcel) carrier.ShipmentRequest {
	if len(parcels) == 0 {
		parcels = []carrier.Parcel{
			{Type: "package", Length: 30, Width: 20, Height: 10, DimensionUnit: "CM", Weight: 2.5, WeightUnit: "KG"},
			{Type: "package", Length: 500, Width: 400, Height: 300, DimensionUnit: "MM", Weight: 1200, WeightUnit: "G"},
			{Type: "package", Length: 10, Width: 10, Height: 10, DimensionUnit: "IN", Weight: 3, WeightUnit: "LB"},
		}
	}
	return carrier.ShipmentRequest{
		Reference:    "order-1",
		ProductType:  ServiceCourierStandard,
		LabelFormat:  "pdf",
		ShippingDate: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Sklep Sp. z o.o.", Email: "shop@example.pl", Phone: "+48 500 100 200"},
		Recipient:    carrier.Contact{FirstName: "Jan", LastName: "Kowalski", Email: "jan@example.pl", Phone: "600-700-800"},
		Origin:       carrier.Address{StreetName: "Magazynowa", HouseNumber: "1", CityName: "Warszawa", PostalCode: "00-001", CountryCode: "pl"},
		Destination:  carrier.Address{StreetName: "Długa", HouseNumber: "12", ApartmentNumber: "3", CityName: "Kraków", PostalCode: "31-001", CountryCode: "PL"},
		Parcels:      parcels,
	}
}

func TestCreateLabelsTrackCancel(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	ctx := context.Background()
	req := courierRequest()
	req.COD = &carrier.Money{Minor: 12050, Currency: "PLN"}

	out, err := c.CreateShipment(ctx, s, req)
	if err != nil {
		t.Fatalf("CreateShipment: %v", err)
	}
	want := []string{"620000000000000000000001", "620000000000000000000002", "620000000000000000000003"}
	if out.ProviderShipmentID != "101" || !slices.Equal(out.TrackingNumbers, want) {
		t.Errorf("created %+v, want id 101 and %v", out, want)
	}
	if out.Price == nil || *out.Price != (carrier.Money{Minor: 1399, Currency: "PLN"}) {
		t.Errorf("price = %v, want 13.99 PLN", out.Price)
	}
	// One POST, then GETs until confirmed (the fake takes two steps).
	if got := f.callLog(); !slices.Equal(got, []string{"POST /v1/organizations/1234/shipments", "GET /v1/shipments/101", "GET /v1/shipments/101"}) {
		t.Errorf("calls = %v", got)
	}

	body := f.creates[0]
	recv := body["receiver"].(map[string]any)
	addr := recv["address"].(map[string]any)
	sender := body["sender"].(map[string]any)
	if recv["phone"] != "600700800" || sender["phone"] != "500100200" || addr["building_number"] != "12/3" ||
		addr["post_code"] != "31-001" || sender["address"].(map[string]any)["country_code"] != "PL" {
		t.Errorf("parties sent: receiver %v, sender %v", recv, sender)
	}
	if body["service"] != ServiceCourierStandard || body["reference"] != "order-1" {
		t.Errorf("service/reference: %v %v", body["service"], body["reference"])
	}
	cod, ins := body["cod"].(map[string]any), body["insurance"].(map[string]any)
	if cod["amount"] != 120.5 || cod["currency"] != "PLN" || ins["amount"] != 120.5 || ins["currency"] != "PLN" {
		t.Errorf("cod %v insurance %v, want 120.5 PLN both", cod, ins)
	}
	if _, ok := body["custom_attributes"]; ok {
		t.Errorf("custom_attributes sent for a courier without settings: %v", body["custom_attributes"])
	}
	parcels := body["parcels"].([]any)
	wantDims := [][4]float64{{300, 200, 100, 2.5}, {500, 400, 300, 1.2}, {254, 254, 254, 1.361}}
	for i, raw := range parcels {
		p := raw.(map[string]any)
		d, w := p["dimensions"].(map[string]any), p["weight"].(map[string]any)
		got := [4]float64{d["length"].(float64), d["width"].(float64), d["height"].(float64), w["amount"].(float64)}
		if got != wantDims[i] {
			t.Errorf("parcel %d sent as %v, want %v", i, got, wantDims[i])
		}
	}

	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
	for _, format := range []string{"pdf", "zpl", "epl"} {
		ls, err := c.Labels(ctx, s, ref, format)
		if err != nil {
			t.Fatalf("Labels(%s): %v", format, err)
		}
		if len(ls) != 1 || ls[0].Format != format {
			t.Fatalf("Labels(%s) = %d files, format %q; want one file with all parcels", format, len(ls), ls[0].Format)
		}
		got := labelcheck.LabelBarcodes(t, format, ls)
		if !slices.Equal(got, want) {
			t.Errorf("%s label barcodes = %v, want %v", format, got, want)
		}
	}
	// No format: the channel's default.
	s["defaultLabelFormat"] = "zpl"
	if ls, err := c.Labels(ctx, s, ref, ""); err != nil || ls[0].Format != "zpl" {
		t.Errorf("default label format: %v %v", ls, err)
	}

	tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: want[1]})
	if err != nil || !tr.Recognized || len(tr.Events) != 1 || tr.Events[0].Code != "confirmed" || tr.Events[0].Status != carrier.StatusWaitingForShipment {
		t.Errorf("Track = %+v, %v", tr, err)
	}

	// ShipX refuses to cancel a confirmed (bought) shipment.
	rejection(t, c.CancelShipment(ctx, s, ref), "", "Action (cancel) can not be taken on shipment with status (confirmed).")
}

func TestCancelBeforeConfirmation(t *testing.T) {
	f := newFake(t)
	f.stepsToGo = -1
	c := newCarrier(f)
	s := settingsFor(f)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := c.CreateShipment(ctx, s, courierRequest()); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("unconfirmed booking: %v", err)
	}
	if err := c.CancelShipment(context.Background(), s, carrier.ShipmentRef{ProviderShipmentID: "101"}); err != nil {
		t.Fatalf("cancel of an unconfirmed shipment: %v", err)
	}
	if st := f.shipments["101"].status; st != "canceled" {
		t.Errorf("fake shipment status %q after cancel", st)
	}
	// Cancelled again (the first answer lost): ShipX's invalid_action for a
	// canceled shipment is no refusal.
	if err := c.CancelShipment(context.Background(), s, carrier.ShipmentRef{ProviderShipmentID: "101"}); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Errorf("second cancel: %v, want ErrAlreadyCancelled", err)
	}
	rejection(t, c.CancelShipment(context.Background(), s, carrier.ShipmentRef{ProviderShipmentID: "555"}), "", "Resource not found")
}

func TestLockerShipments(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	s["productType"] = ServiceLockerStandard
	one := courierRequest()
	one.ProductType = "" // the channel's productType applies
	one.Parcels = one.Parcels[:1]
	one.COD = &carrier.Money{Minor: 5000, Currency: "PLN"}

	rejection(t, func() error { _, err := c.CreateShipment(ctx, s, one); return err }(), carrier.PickupPointField, "defaultPickupPoint")
	two := one
	two.Parcels = courierRequest().Parcels[:2]
	_, err := c.CreateShipment(ctx, s, two)
	var rs carrier.Rejections
	if !errors.As(err, &rs) || len(rs) != 2 || rs[0].Field != carrier.PickupPointField || rs[1].Field != "parcels" {
		t.Fatalf("locker, two parcels, no target point: %v", err)
	}
	if n := len(f.callLog()); n != 0 {
		t.Errorf("refused shipments still called ShipX %d times", n)
	}

	s["targetPoint"] = "KRA010" // the setting's earlier name still works
	s["sendingMethod"] = "parcel_locker"
	rejection(t, func() error { _, err := c.CreateShipment(ctx, s, two); return err }(), "parcels", "exactly one parcel")
	out, err := c.CreateShipment(ctx, s, one)
	if err != nil {
		t.Fatalf("locker shipment: %v", err)
	}
	if len(out.TrackingNumbers) != 1 {
		t.Errorf("tracking numbers %v", out.TrackingNumbers)
	}
	body := f.creates[0]
	attrs := body["custom_attributes"].(map[string]any)
	if body["service"] != ServiceLockerStandard || attrs["target_point"] != "KRA010" || attrs["sending_method"] != "parcel_locker" {
		t.Errorf("locker body: service %v attrs %v", body["service"], attrs)
	}
	if _, ok := body["insurance"]; ok {
		t.Errorf("insurance sent for a locker COD shipment: %v", body["insurance"])
	}
}

// A shipment ShipX confirms without a selected offer has no price; none is
// made up.
func TestWithoutOfferNoPrice(t *testing.T) {
	f := newFake(t)
	f.set(func(f *fakeShipX) { f.noOffer = true })
	out, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), courierRequest())
	if err != nil {
		t.Fatalf("CreateShipment: %v", err)
	}
	if len(out.TrackingNumbers) != 3 || out.Price != nil {
		t.Errorf("tracking numbers %v, price %v; want 3 and none", out.TrackingNumbers, out.Price)
	}
}

// The limits GET /v1/providers publishes are the ones the adapter keeps and
// ShipX's fake enforces: 1000 parcels for courier services, one for lockers.
func TestPublishedParcelLimits(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	info := c.Info()
	if info.MaxParcels != 1000 || info.ParcelLimit(ServiceCourierStandard) != 1000 || info.ParcelLimit(ServiceLockerStandard) != 1 {
		t.Fatalf("published limits: provider %d, courier %d, locker %d", info.MaxParcels,
			info.ParcelLimit(ServiceCourierStandard), info.ParcelLimit(ServiceLockerStandard))
	}
	parcels := make([]carrier.Parcel, info.MaxParcels+1)
	for i := range parcels {
		parcels[i] = courierRequest().Parcels[0]
	}
	ctx := context.Background()
	_, err := c.CreateShipment(ctx, settingsFor(f), courierRequest(parcels...))
	rejection(t, err, "parcels", "InPost takes 1 to 1000 parcels per shipment, got 1001")
	out, err := c.CreateShipment(ctx, settingsFor(f), courierRequest(parcels[:info.MaxParcels]...))
	if err != nil {
		t.Fatalf("1000 parcels: %v", err)
	}
	if len(out.TrackingNumbers) != info.MaxParcels {
		t.Errorf("1000 parcels booked %d tracking numbers", len(out.TrackingNumbers))
	}
}

func TestUnknownProduct(t *testing.T) {
	f := newFake(t)
	req := courierRequest()
	req.ProductType = "inpost_letter_ecommerce"
	_, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), req)
	rejection(t, err, "product_type", "not an InPost ShipX service")
}

func TestValidationFailed(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	req := courierRequest()
	req.Recipient.Phone = "12345"
	req.Destination.PostalCode = "31001"
	req.Parcels[1].Weight = 80000 // 80 kg
	req.COD = &carrier.Money{Minor: 1000, Currency: "EUR"}
	_, err := c.CreateShipment(context.Background(), settingsFor(f), req)
	var rs carrier.Rejections
	if !errors.As(err, &rs) {
		t.Fatalf("error = %v (%T), want carrier.Rejections", err, err)
	}
	got := map[string]string{}
	for _, r := range rs {
		got[r.Field] = r.Message
	}
	want := map[string]string{
		"cash_on_delivery.currency":       "InPost: cod.currency invalid",
		"destination_address.postal_code": "InPost: receiver.address.post_code invalid",
		"parcels.1.weight_amount":         "InPost: parcels.1.weight too_heavy",
		"recipient_contact.phone_number":  "InPost: receiver.phone invalid",
	}
	if len(got) != len(want) {
		t.Errorf("rejections %v, want %v", got, want)
	}
	for field, msg := range want {
		if got[field] != msg {
			t.Errorf("rejection on %s = %q, want %q", field, got[field], msg)
		}
	}

	// One problem alone is a single Rejection.
	req = courierRequest()
	req.Sender.Email = "nope"
	_, err = c.CreateShipment(context.Background(), settingsFor(f), req)
	rejection(t, err, "sender_contact.email_address", "sender.email invalid")
}

// TestValidationDetailShapes: ShipX's details are read both nested and
// with dotted keys, and unknown fields keep the vendor's name.
func TestValidationDetailShapes(t *testing.T) {
	res := []byte(`{"status":400,"error":"validation_failed","message":"There are some validation errors.",
		"details":{"receiver.phone":["invalid"],"parcels.0.dimensions.width":["too_big"],"service":["invalid"],
		"additional_services":["unknown"],"custom_attributes":{"target_point":["does_not_exist"]}}}`)
	err := apiError(&carrierhttp.Response{Status: 400, Body: res}, "organizationId")
	var rs carrier.Rejections
	if !errors.As(err, &rs) {
		t.Fatalf("%v", err)
	}
	var fields []string
	for _, r := range rs {
		fields = append(fields, r.Field)
	}
	want := []string{"additional_services", carrier.PickupPointField, "parcels.0.width_dimension", "recipient_contact.phone_number", "product_type"}
	if !slices.Equal(fields, want) {
		t.Errorf("fields %v, want %v", fields, want)
	}
	// Not validation: one Rejection with the message and the code.
	err = apiError(&carrierhttp.Response{Status: 400, Body: []byte(`{"status":400,"error":"label_generation_failed","message":"Label could not be generated."}`)}, "")
	rejection(t, err, "", "Label could not be generated. (label_generation_failed)")
	if !strings.Contains(apiError(&carrierhttp.Response{Status: 422, Body: []byte("plain")}, "").Error(), "plain") {
		t.Error("a non-JSON error body is lost")
	}
}
