package packeta

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

// pointRequest is a shipment of n parcels (1, 2, 3… kg) to pickup point 4307.
func pointRequest(n int) carrier.ShipmentRequest {
	req := carrier.ShipmentRequest{
		Reference:    "ORDER-2026-0042",
		ProductType:  ProductPickupPoint,
		PickupPoint:  "4307",
		ShippingDate: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Shop s.r.o.", Email: "shop@example.cz"},
		Recipient:    carrier.Contact{FirstName: "Jana", LastName: "Nováková", Email: "jana@example.cz", Phone: "+420777123456"},
		Origin:       carrier.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "19000", CountryCode: "CZ"},
		Destination:  carrier.Address{StreetName: "Dlouhá", HouseNumber: "12", ApartmentNumber: "3", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"},
		Booking:      carrier.Booking{Key: "3f2b8c1e-7d4a-4e9b-9c1d-2a6f5e8b7c90"},
	}
	for i := range n {
		req.Parcels = append(req.Parcels, carrier.Parcel{Type: "package", Length: 30, Width: 20, Height: 10.5, DimensionUnit: "CM",
			Weight: float64(i + 1), WeightUnit: "KG"})
	}
	return req
}

// handles records what a booking accepts, like the shipments module would.
type handles struct {
	mu   sync.Mutex
	list []string
	fail map[int]error // the n-th Accept (1-based) fails with this
}

func (h *handles) accept(ctx context.Context, handle string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.fail[len(h.list)+1]; err != nil {
		delete(h.fail, len(h.list)+1)
		return err
	}
	h.list = append(h.list, handle)
	return nil
}

func (h *handles) last() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.list) == 0 {
		return ""
	}
	return h.list[len(h.list)-1]
}

func barcodes(ps []*fakePacket) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.barcode)
	}
	return out
}

// TestCreateLabelsTrackCancel: a three-parcel shipment with COD to a pickup
// point is three packets, tracking numbers in parcel order; each is
// recorded as soon as it exists; labels in both formats scan back to the
// tracking numbers in order; tracking maps the packet's status codes;
// cancel cancels every packet.
func TestCreateLabelsTrackCancel(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	s["eshop"] = "shop-1"
	req := pointRequest(3)
	req.COD = &carrier.Money{Minor: 125050, Currency: "CZK"}
	h := &handles{}
	req.Booking.Accepted = h.accept

	out, err := c.CreateShipment(ctx, s, req)
	if err != nil {
		t.Fatal(err)
	}
	live := f.live()
	if len(live) != 3 || !slices.Equal(out.TrackingNumbers, barcodes(live)) {
		t.Fatalf("tracking numbers %v, packets %v", out.TrackingNumbers, barcodes(live))
	}
	if out.Price != nil {
		t.Errorf("Packeta names no price, got %v", out.Price)
	}
	if len(h.list) != 3 || h.last() != out.ProviderShipmentID || strings.Count(h.list[0], ",") != 0 || strings.Count(h.list[2], ",") != 2 {
		t.Errorf("accepted handles %v, shipment id %q", h.list, out.ProviderShipmentID)
	}
	numbers := map[string]bool{}
	for i, p := range live {
		a := p.attrs
		want := map[string]string{"addressId": "4307", "cod": "1250.5", "currency": "CZK", "value": "1250.5",
			"name": "Jana", "surname": "Nováková", "email": "jana@example.cz", "phone": "+420777123456", "eshop": "shop-1",
			"weight": []string{"1", "2", "3"}[i]}
		for k, v := range want {
			if got := a.value(k); got != v {
				t.Errorf("packet %d %s = %q, want %q", i, k, got, v)
			}
		}
		for _, k := range []string{"street", "city", "zip"} {
			if a.kid(k) != nil {
				t.Errorf("a pickup point packet carries %s", k)
			}
		}
		if sz := a.kid("size"); sz == nil || sz.value("length") != "300" || sz.value("height") != "105" {
			t.Errorf("packet %d size %+v, want millimetres", i, sz)
		}
		n := a.value("number")
		if len(n) > 24 || numbers[n] || !strings.HasSuffix(n, "-"+string(rune('1'+i))) {
			t.Errorf("order number %q", n)
		}
		numbers[n] = true
	}

	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
	for _, format := range []string{"pdf", "zpl"} {
		ls, err := c.Labels(ctx, s, ref, format)
		if err != nil {
			t.Fatalf("%s labels: %v", format, err)
		}
		if len(ls) != 3 {
			t.Fatalf("%d %s labels, want one per parcel", len(ls), format)
		}
		if got := labelcheck.LabelBarcodes(t, format, ls); !slices.Equal(got, out.TrackingNumbers) {
			t.Errorf("%s barcodes %v, want %v", format, got, out.TrackingNumbers)
		}
	}
	// The channel's default format, and the page format it names.
	s["defaultLabelFormat"] = "zpl"
	if ls, err := c.Labels(ctx, s, ref, ""); err != nil || ls[0].Format != "zpl" {
		t.Errorf("default format: %v %v", ls, err)
	}
	s["pdfLabelFormat"] = "A6 on A4"
	if _, err := c.Labels(ctx, s, ref, "pdf"); err != nil {
		t.Error(err)
	}
	f.mu.Lock()
	last := f.bodies[len(f.bodies)-1]
	f.mu.Unlock()
	if last.value("format") != "A6 on A4" || last.value("offset") != "0" {
		t.Errorf("label request %+v", last)
	}
	_, err = c.Labels(ctx, s, ref, "epl")
	isRejection(t, err, "label_format", "pdf or zpl")

	tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[1]})
	if err != nil || !tr.Recognized || len(tr.Events) != 1 || tr.Events[0].Code != "1" || tr.Events[0].Status != carrier.StatusWaitingForShipment {
		t.Fatalf("tracking %+v %v", tr, err)
	}
	if tr.Events[0].At.IsZero() || tr.Events[0].Description == "" {
		t.Errorf("event %+v", tr.Events[0])
	}

	if err := c.CancelShipment(ctx, s, ref); err != nil {
		t.Fatal(err)
	}
	if len(f.live()) != 0 {
		t.Errorf("%d packets left after cancel", len(f.live()))
	}
	tr, _ = c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[0]})
	if e := tr.Events[len(tr.Events)-1]; e.Code != "11" || e.Status != carrier.StatusCancelled {
		t.Errorf("after cancel: %+v", e)
	}
}

// TestCancelNotAllowed: a packet on its way is not cancelled; Packeta's
// reason comes back, and the other packets are cancelled all the same.
func TestCancelNotAllowed(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	out, err := c.CreateShipment(ctx, s, pointRequest(2))
	if err != nil {
		t.Fatal(err)
	}
	f.move(out.TrackingNumbers[0], 2, "arrived", "Packet has been accepted at our branch.")
	err = c.CancelShipment(ctx, s, carrier.ShipmentRef{TrackingNumbers: out.TrackingNumbers})
	isRejection(t, err, "", "no longer allows cancelling packet "+out.TrackingNumbers[0]+": Packet is already on its way")
	if live := f.live(); len(live) != 1 || live[0].barcode != out.TrackingNumbers[0] {
		t.Errorf("live packets %v", barcodes(live))
	}
}

func TestHomeDelivery(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	s["productType"] = ProductHomeDelivery
	s["homeDeliveryCarrierId"] = "106"
	req := pointRequest(1)
	req.ProductType, req.PickupPoint = "", ""
	out, err := c.CreateShipment(ctx, s, req)
	if err != nil {
		t.Fatal(err)
	}
	a := f.packet(out.TrackingNumbers[0]).attrs
	want := map[string]string{"addressId": "106", "street": "Dlouhá", "houseNumber": "12/3", "city": "Brno", "zip": "60200", "value": "1"}
	for k, v := range want {
		if got := a.value(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}

	// A point named for home delivery, or no carrier id: refused before
	// any call.
	before := len(f.callLog())
	req.PickupPoint = "4307"
	_, err = c.CreateShipment(ctx, s, req)
	isRejection(t, err, carrier.PickupPointField, "takes no pickup point")
	req.PickupPoint = ""
	delete(s, "homeDeliveryCarrierId")
	_, err = c.CreateShipment(ctx, s, req)
	isRejection(t, err, "homeDeliveryCarrierId", "home-delivery carrier")
	if len(f.callLog()) != before {
		t.Error("refused shipments still called Packeta")
	}

	// A carrier Packeta does not know blames the setting.
	s["homeDeliveryCarrierId"] = "999"
	_, err = c.CreateShipment(ctx, s, req)
	isRejection(t, err, "homeDeliveryCarrierId", "carrier with id 999 does not exist")
}

func TestDefaultPickupPoint(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	s[carrier.DefaultPickupPointSetting] = "1234"
	req := pointRequest(1)
	req.PickupPoint = ""
	out, err := c.CreateShipment(context.Background(), s, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.packet(out.TrackingNumbers[0]).attrs.value("addressId"); got != "1234" {
		t.Errorf("addressId %q, want the channel's default point", got)
	}
}

// TestRefusedBeforeAnyCall: what Packeta refuses for sure never reaches it.
func TestRefusedBeforeAnyCall(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	cases := []struct {
		name, field, msg string
		edit             func(*carrier.ShipmentRequest)
	}{
		{"too many parcels", "parcels", "1 to 20 parcels", func(r *carrier.ShipmentRequest) { *r = pointRequest(21) }},
		{"epl", "label_format", "pdf or zpl", func(r *carrier.ShipmentRequest) { r.LabelFormat = "epl" }},
		{"no point", carrier.PickupPointField, "name the Packeta pickup point", func(r *carrier.ShipmentRequest) { r.PickupPoint = "" }},
		{"point not a number", carrier.PickupPointField, "is a number", func(r *carrier.ShipmentRequest) { r.PickupPoint = "KRA010" }},
		{"too heavy for a point", "parcels.0.weight_amount", "at most 10 kg", func(r *carrier.ShipmentRequest) { r.Parcels[0].Weight = 10.5 }},
		{"no weight", "parcels.0.weight_amount", "positive", func(r *carrier.ShipmentRequest) { r.Parcels[0].Weight = 0 }},
		{"no surname", "recipient_contact.last_name", "surname", func(r *carrier.ShipmentRequest) { r.Recipient.LastName = "" }},
		{"surname too long", "recipient_contact.last_name", "at most 32", func(r *carrier.ShipmentRequest) { r.Recipient.LastName = strings.Repeat("x", 33) }},
		{"no way to notify", "recipient_contact.email_address", "e-mail or phone", func(r *carrier.ShipmentRequest) { r.Recipient.Email, r.Recipient.Phone = "", "" }},
		{"unknown product", "product_type", "not \"express\"", func(r *carrier.ShipmentRequest) { r.ProductType = "express" }},
	}
	for _, tc := range cases {
		req := pointRequest(1)
		tc.edit(&req)
		_, err := c.CreateShipment(context.Background(), s, req)
		t.Run(tc.name, func(t *testing.T) { isRejection(t, err, tc.field, tc.msg) })
	}
	_, err := c.CreateShipment(context.Background(), carrier.Settings{"sandboxMode": false}, pointRequest(1))
	isRejection(t, err, "apiPassword", "required")
	if calls := f.callLog(); len(calls) != 0 {
		t.Errorf("calls %v", calls)
	}
}

// TestVendorRefusals: Packeta's attribute faults become Rejections on
// shipd's fields, with Packeta's messages.
func TestVendorRefusals(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	ctx := context.Background()

	req := pointRequest(1)
	req.PickupPoint = "999"
	_, err := c.CreateShipment(ctx, s, req)
	isRejection(t, err, carrier.PickupPointField, "Pickup point or carrier with id 999 does not exist.")

	req = pointRequest(1)
	req.Recipient.Phone = "777-12"
	_, err = c.CreateShipment(ctx, s, req)
	isRejection(t, err, "recipient_contact.phone_number", "Invalid phone number format.")

	req = pointRequest(1)
	req.PickupPoint, req.Recipient.Phone = "999", "12"
	_, err = c.CreateShipment(ctx, s, req)
	var rs carrier.Rejections
	if !errors.As(err, &rs) || len(rs) != 2 || rs[0].Field != carrier.PickupPointField || rs[1].Field != "recipient_contact.phone_number" {
		t.Errorf("two refused attributes: %v", err)
	}

	s["apiPassword"] = "wrong"
	_, err = c.CreateShipment(ctx, s, pointRequest(1))
	isRejection(t, err, "apiPassword", "Incorrect API password.")
	if len(f.live()) != 0 {
		t.Errorf("refused bookings left packets %v", barcodes(f.live()))
	}
}

// TestRefusedMidwayCancelsTheCreated: parcel 2 of 3 is too heavy for its
// point; packet 1 is cancelled, parcel 3 never sent, and the Rejection
// names parcel 2's weight with Packeta's message.
func TestRefusedMidwayCancelsTheCreated(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	req := pointRequest(3)
	req.PickupPoint = "1234" // takes at most 5 kg
	req.Parcels[1].Weight = 8
	_, err := c.CreateShipment(context.Background(), settingsFor(f), req)
	isRejection(t, err, "parcels.1.weight_amount", "exceeds the limit of the pickup point (5 kg)")
	if got := f.callLog(); !slices.Equal(got, []string{"createPacket", "createPacket", "cancelPacket"}) {
		t.Errorf("calls %v", got)
	}
	if len(f.live()) != 0 {
		t.Errorf("packets left: %v", barcodes(f.live()))
	}

	// When the cancel fails too, the Rejection says which packet is left.
	f2 := newFake(t)
	c2 := newCarrier(f2)
	req.Booking.Accepted = func(ctx context.Context, h string) error {
		f2.fail("cancelPacket", 503, -1)
		return nil
	}
	_, err = c2.CreateShipment(context.Background(), settingsFor(f2), req)
	var r *carrier.Rejection
	if !errors.As(err, &r) || r.Field != "parcels.1.weight_amount" || !strings.Contains(r.Message, "could not be cancelled") ||
		!strings.Contains(r.Message, f2.live()[0].barcode) {
		t.Errorf("error %v", err)
	}
}

// TestRetryAfterAnInterruptionResumes: the third createPacket gets no
// answer; the attempt fails as unavailable with two packets recorded; the
// retry, given the recorded handle, books only parcel 3. One packet per
// parcel, tracking numbers in parcel order.
func TestRetryAfterAnInterruptionResumes(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	h := &handles{}
	req := pointRequest(3)
	req.Booking.Accepted = h.accept

	// Once the second packet is recorded, the next createPacket gets a
	// gateway timeout.
	accepted := 0
	req.Booking.Accepted = func(ctx context.Context, handle string) error {
		accepted++
		if accepted == 2 {
			f.fail("createPacket", 504, 1)
		}
		return h.accept(ctx, handle)
	}
	_, err := c.CreateShipment(ctx, s, req)
	unavailable(t, err)
	if len(f.live()) != 2 || strings.Count(h.last(), ",") != 1 {
		t.Fatalf("after the interruption: packets %v, handle %q", barcodes(f.live()), h.last())
	}

	retry := pointRequest(3)
	retry.Booking.Handle = h.last()
	retry.Booking.Accepted = h.accept
	out, err := c.CreateShipment(ctx, s, retry)
	if err != nil {
		t.Fatal(err)
	}
	live := f.live()
	if len(live) != 3 || !slices.Equal(out.TrackingNumbers, barcodes(live)) {
		t.Fatalf("after the retry: tracking numbers %v, packets %v", out.TrackingNumbers, barcodes(live))
	}
	if live[2].attrs.value("weight") != "3" || live[2].attrs.value("number") == live[1].attrs.value("number") {
		t.Errorf("the retry booked %s/%s", live[2].attrs.value("number"), live[2].attrs.value("weight"))
	}
	if got := f.callLog(); !slices.Equal(got, []string{"createPacket", "createPacket", "createPacket", "createPacket"}) {
		t.Errorf("calls %v: the retry should send one createPacket", got)
	}

	// A complete handle books nothing more.
	again := pointRequest(3)
	again.Booking.Handle = out.ProviderShipmentID
	out2, err := c.CreateShipment(ctx, s, again)
	if err != nil || !slices.Equal(out2.TrackingNumbers, out.TrackingNumbers) || len(f.callLog()) != 4 {
		t.Errorf("resuming a finished booking: %v %v, calls %v", out2, err, f.callLog())
	}

	bad := pointRequest(1)
	bad.Booking.Handle = "batch-17"
	if _, err := c.CreateShipment(ctx, s, bad); err == nil {
		t.Error("a foreign handle was accepted")
	}
}

// TestRecordingFailsCancelsTheUnrecorded: when the booking cannot record
// the second packet, that packet is cancelled (the next attempt would make
// it again) and the first, recorded, stays for that attempt.
func TestRecordingFailsCancelsTheUnrecorded(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	h := &handles{fail: map[int]error{2: errors.New("database is gone")}}
	req := pointRequest(3)
	req.Booking.Accepted = h.accept
	_, err := c.CreateShipment(context.Background(), settingsFor(f), req)
	unavailable(t, err)
	if live := f.live(); len(live) != 1 || h.last() != live[0].id+":"+live[0].barcode {
		t.Errorf("live %v, handle %q", barcodes(live), h.last())
	}
	if got := f.callLog(); !slices.Equal(got, []string{"createPacket", "createPacket", "cancelPacket"}) {
		t.Errorf("calls %v", got)
	}
}

func TestOrderNumber(t *testing.T) {
	long := pointRequest(1)
	short := pointRequest(1)
	short.Booking.Key = "shp_42"
	none := pointRequest(1)
	none.Booking.Key = ""
	for _, tc := range []struct {
		req  carrier.ShipmentRequest
		want string
	}{
		{short, "shp42-3"},
		{none, "ORDER20260042-3"},
	} {
		if got := orderNumber(tc.req, 2); got != tc.want {
			t.Errorf("orderNumber = %q, want %q", got, tc.want)
		}
	}
	a, b := orderNumber(long, 0), orderNumber(long, 0)
	if a != b || len(a) > 24 || a == orderNumber(long, 1) {
		t.Errorf("hashed numbers %q %q %q", a, b, orderNumber(long, 1))
	}
}

// A cancel retried after an earlier one worked (its answer or its record
// lost) is carrier.ErrAlreadyCancelled; one that cancelled only some
// packets before cancels the rest and answers success.
func TestCancelOfACancelledShipment(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	out, err := c.CreateShipment(ctx, s, pointRequest(2))
	if err != nil {
		t.Fatal(err)
	}
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
	if err := c.CancelShipment(ctx, s, ref); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelShipment(ctx, s, ref); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Errorf("second cancel: %v, want ErrAlreadyCancelled", err)
	}

	req := pointRequest(2)
	req.Booking.Key = "another-shipment"
	out, err = c.CreateShipment(ctx, s, req)
	if err != nil {
		t.Fatal(err)
	}
	ref = carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}
	if err := c.CancelShipment(ctx, s, carrier.ShipmentRef{TrackingNumbers: out.TrackingNumbers[:1]}); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelShipment(ctx, s, ref); err != nil {
		t.Errorf("cancel of a half-cancelled shipment: %v", err)
	}
	if len(f.live()) != 0 {
		t.Errorf("%d packets left", len(f.live()))
	}
	// A packet Packeta does not know stays a refusal.
	isRejection(t, c.CancelShipment(ctx, s, carrier.ShipmentRef{TrackingNumbers: []string{"Z4299999999"}}), "", "not found")
}
