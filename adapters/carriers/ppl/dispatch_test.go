package ppl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/platform/carrier"
)

// pickupDate is a date days from today, in Prague (the fake refuses a
// past one).
func pickupDate(days int) string {
	return time.Now().In(prague()).AddDate(0, 0, days).Format(time.DateOnly)
}

func pickupRequest(key string) carrier.CourierPickupRequest {
	return carrier.CourierPickupRequest{
		Date: pickupDate(1), ReadyFrom: "09:00", ReadyUntil: "16:30",
		Address:     carrier.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "110 00", CountryCode: "CZ"},
		Contact:     carrier.Contact{CompanyName: "Acme s.r.o.", FirstName: "Petr", LastName: "Novák", Email: "sklad@acme.cz", Phone: "+420111222333"},
		ParcelCount: 7, TotalWeightKG: 21.5, Note: "Gate 2, ring twice",
		Booking: carrier.Booking{Key: key},
	}
}

// exactCalls counts the requests that are method and path exactly.
func (f *fakePPL) exactCalls(request string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r == request {
			n++
		}
	}
	return n
}

func TestDispatchInfo(t *testing.T) {
	c := New(Config{})
	want := carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: "channel_defaults",
		PickupShipments: "counts", Manifest: "shipd", CancelAfterManifest: "carrier"}
	got := c.Info().Dispatch
	if got.Note == "" {
		t.Error("no note")
	}
	got.Note = ""
	if got != want {
		t.Errorf("dispatch %+v, want %+v", got, want)
	}
	if _, ok := carrier.DispatcherOf(c); !ok {
		t.Error("PPL is no Dispatcher")
	}
	ctx := ctxT(t)
	if _, err := c.CourierPickupWindows(ctx, nil, carrier.PickupWindowsRequest{Date: pickupDate(1)}); !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("windows: %v", err)
	}
	if _, err := c.CreateManifest(ctx, nil, carrier.ManifestRequest{Key: "mf_1"}); !errors.Is(err, carrier.ErrNotOffered) {
		t.Errorf("manifest: %v", err)
	}
}

// A pickup is a collection order: the batch id is recorded before any
// poll, the order number read back once imported; it is cancelled by its
// reference, a repeated cancel is done, a picked-up order's cancel refused.
func TestOrderReadBackAndCancelPickup(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	e.sandbox.pollsToComplete = 2
	req := pickupRequest("pk_0001")
	var accepted string
	pollsAtAccept := -1
	req.Booking.Accepted = func(_ context.Context, handle string) error {
		accepted, pollsAtAccept = handle, e.sandbox.calls("GET /order/batch/")
		return nil
	}
	got, err := e.c.OrderCourierPickup(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("OrderCourierPickup: %v", err)
	}
	if accepted == "" || pollsAtAccept != 0 {
		t.Errorf("batch %q recorded after %d polls, want before any", accepted, pollsAtAccept)
	}
	if n := e.sandbox.calls("GET /order/batch/" + accepted); n != 3 {
		t.Errorf("batch polled %d times, want until imported (3)", n)
	}
	held, ok := e.sandbox.orderUnder("shipd-pk_0001")
	if !ok || got.ConfirmationNumber != held.number || got.Handle != "shipd-pk_0001" {
		t.Fatalf("pickup %+v, PPL holds %+v", got, held)
	}
	if got.Date != "" || got.ReadyFrom != "" || got.ReadyUntil != "" {
		t.Errorf("PPL confirms no window, answered %+v", got)
	}
	// Asked once before ordering (none held), once after for the number.
	if n := e.sandbox.exactCalls("GET /order"); n != 2 {
		t.Errorf("GET /order %d times, want 2", n)
	}

	// What PPL was sent.
	o := held.req
	if o.OrderType != "CollectionOrder" || o.ReferenceID != "shipd-pk_0001" || *o.ProductType != "BUSS" || o.ShipmentCount != 7 {
		t.Errorf("order %+v", o)
	}
	if *o.SendTimeFrom != "09:00:00" || *o.SendTimeTo != "16:30:00" {
		t.Errorf("window %s–%s", *o.SendTimeFrom, *o.SendTimeTo)
	}
	at, err := time.Parse(time.RFC3339, o.SendDate)
	if err != nil || at.In(prague()).Format(time.DateOnly) != req.Date || at.In(prague()).Hour() != 0 {
		t.Errorf("sendDate %q for %s", o.SendDate, req.Date)
	}
	wantSender := fakeOrderAddress{Name: "Acme s.r.o.", Name2: "Petr Novák", Street: "Skladová 1", City: "Praha", ZipCode: "11000",
		Country: "CZ", Contact: "Petr Novák", Phone: "+420111222333", Email: "sklad@acme.cz"}
	if o.Sender == nil || *o.Sender != wantSender {
		t.Errorf("sender %+v", o.Sender)
	}
	if *o.Email != "sklad@acme.cz" || *o.Note != "Gate 2, ring twice" {
		t.Errorf("email %q, note %q", *o.Email, *o.Note)
	}

	// Cancel, and cancel again.
	if err := e.c.CancelCourierPickup(ctx, e.settings, got); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if held, _ := e.sandbox.orderUnder("shipd-pk_0001"); held.state != "Canceled" {
		t.Errorf("order %s after cancel", held.state)
	}
	if !reflect.DeepEqual(e.sandbox.cancelNotes, []string{cancelNote}) {
		t.Errorf("cancel notes %q", e.sandbox.cancelNotes)
	}
	if err := e.c.CancelCourierPickup(ctx, e.settings, got); err != nil {
		t.Errorf("a repeated cancel: %v", err)
	}

	// PPL refuses once its courier collected the order.
	second, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest("pk_0002"))
	if err != nil {
		t.Fatal(err)
	}
	e.sandbox.pickUpOrder(second.Handle)
	var rej *carrier.Rejection
	err = e.c.CancelCourierPickup(ctx, e.settings, second)
	if !errors.As(err, &rej) || rej.Message != "Order "+second.ConfirmationNumber+" cannot be cancelled, it has already been picked up." {
		t.Errorf("cancel after collection: %v", err)
	}

	// A pickup without PPL's reference is not sent.
	calls := e.sandbox.calls("")
	if err := e.c.CancelCourierPickup(ctx, e.settings, carrier.CourierPickup{ConfirmationNumber: "1"}); !errors.As(err, &rej) {
		t.Errorf("cancel without a reference: %v", err)
	}
	if e.sandbox.calls("") != calls {
		t.Error("a cancel without a reference reached PPL")
	}
}

// An attempt killed between PPL's acceptance and the poll is finished by
// the next from the recorded batch: one order at PPL. A failed record ends
// the attempt before any poll.
func TestPickupResumesFromTheRecordedBatch(t *testing.T) {
	e := newEnv(t)
	req := pickupRequest("pk_0003")
	var recorded string
	ctx, kill := context.WithCancel(ctxT(t))
	req.Booking.Accepted = func(_ context.Context, handle string) error {
		recorded = handle
		kill()
		return nil
	}
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("killed attempt: %v", err)
	}
	if recorded == "" {
		t.Fatal("no batch recorded")
	}
	req.Booking = carrier.Booking{Key: "pk_0003", Handle: recorded, Accepted: func(context.Context, string) error {
		t.Error("a resumed order recorded again")
		return nil
	}}
	got, err := e.c.OrderCourierPickup(ctxT(t), e.settings, req)
	if err != nil {
		t.Fatalf("resumed: %v", err)
	}
	held, _ := e.sandbox.orderUnder("shipd-pk_0003")
	if got.ConfirmationNumber == "" || got.ConfirmationNumber != held.number {
		t.Errorf("resumed %+v, PPL holds %+v", got, held)
	}
	if n, orders := e.sandbox.calls("POST /order/batch"), e.sandbox.orderCount(); n != 1 || orders != 1 {
		t.Errorf("%d orders posted, PPL holds %d; want 1, 1", n, orders)
	}

	polls := e.sandbox.calls("GET /order/batch/")
	req.Booking = carrier.Booking{Key: "pk_0004", Accepted: func(context.Context, string) error { return errors.New("database gone") }}
	if _, err := e.c.OrderCourierPickup(ctxT(t), e.settings, req); !errors.Is(err, carrier.ErrUnavailable) || !strings.Contains(err.Error(), "database gone") {
		t.Errorf("failed record: %v", err)
	}
	if e.sandbox.calls("GET /order/batch/") != polls {
		t.Error("polled a batch shipd could not record")
	}
}

// PPL took an order whose batch shipd never recorded: the next attempt
// (same key, no handle) finds it and orders nothing; when PPL had not
// listed it yet, the second order's import fails on the reference, and the
// first order stands. PPL holds one order either way.
func TestPickupOrderedOnceAfterAnUnrecordedAcceptance(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	lost := func(context.Context, string) error { return errors.New("database gone") }
	noRecord := func(context.Context, string) error {
		t.Error("recorded a batch for an order PPL held")
		return nil
	}

	req := pickupRequest("pk_0005")
	req.Booking.Accepted = lost
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("unrecorded attempt: %v", err)
	}
	e.sandbox.processOrders() // PPL imports it meanwhile
	req.Booking.Accepted = noRecord
	got, err := e.c.OrderCourierPickup(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("next attempt: %v", err)
	}
	held, _ := e.sandbox.orderUnder("shipd-pk_0005")
	if got.ConfirmationNumber != held.number || got.Handle != "shipd-pk_0005" {
		t.Errorf("found %+v, PPL holds %+v", got, held)
	}
	if n := e.sandbox.calls("POST /order/batch"); n != 1 {
		t.Errorf("%d orders posted, want 1", n)
	}

	req = pickupRequest("pk_0006")
	req.Booking.Accepted = lost
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("unrecorded attempt: %v", err)
	}
	req.Booking.Accepted = nil // not imported yet: the next attempt orders again
	got, err = e.c.OrderCourierPickup(ctx, e.settings, req)
	if err != nil {
		t.Fatalf("second order: %v", err)
	}
	held, _ = e.sandbox.orderUnder("shipd-pk_0006")
	if got.ConfirmationNumber != held.number {
		t.Errorf("answered %+v, PPL holds %+v", got, held)
	}
	if n, orders := e.sandbox.calls("POST /order/batch"), e.sandbox.orderCount(); n != 3 || orders != 2 {
		t.Errorf("%d posted, PPL holds %d orders; want 3, 2", n, orders)
	}
}

// PPL's refusals blame the pickup request's fields; what PPL could not be
// sent is refused before any call; an import PPL refuses is its message.
func TestPickupRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	var one *carrier.Rejection
	for _, tc := range []struct {
		name   string
		change func(*carrier.CourierPickupRequest)
		field  string
		msg    string
	}{
		{"past date", func(r *carrier.CourierPickupRequest) { r.Date = pickupDate(-1) }, "date", "The send date must not be in the past."},
		{"postal code", func(r *carrier.CourierPickupRequest) { r.Address.PostalCode = "1100" }, "address.postal_code", "Zip code '1100' is not valid for country CZ."},
		{"window reversed", func(r *carrier.CourierPickupRequest) { r.ReadyFrom, r.ReadyUntil = "16:00", "09:00" }, "ready_until", "The send time to must be later than the send time from."},
		{"too many parcels", func(r *carrier.CourierPickupRequest) { r.ParcelCount = 60 }, "parcel_count", "The shipment count must be at most 50."},
	} {
		req := pickupRequest("pk_r_" + strings.ReplaceAll(tc.name, " ", "_"))
		tc.change(&req)
		_, err := e.c.OrderCourierPickup(ctx, e.settings, req)
		if !errors.As(err, &one) || one.Field != tc.field || one.Message != tc.msg {
			t.Errorf("%s: %v", tc.name, err)
		}
	}

	// Several at once.
	req := pickupRequest("pk_r_many")
	req.Address.PostalCode, req.Address.CityName = "1", ""
	_, err := e.c.OrderCourierPickup(ctx, e.settings, req)
	var many carrier.Rejections
	if !errors.As(err, &many) || len(many) != 2 || many[0].Field != "address.city_name" || many[1].Field != "address.postal_code" {
		t.Errorf("two refusals: %v", err)
	}

	// An order PPL refuses to import.
	e.sandbox.mu.Lock()
	e.sandbox.failNextImport = [2]string{"ORDER_REJECTED", "The collection order could not be accepted."}
	e.sandbox.mu.Unlock()
	_, err = e.c.OrderCourierPickup(ctx, e.settings, pickupRequest("pk_r_import"))
	if !errors.As(err, &one) || one.Field != "" || one.Message != "The collection order could not be accepted. (ORDER_REJECTED)" {
		t.Errorf("import refused: %v", err)
	}
	if e.sandbox.orderCount() != 0 {
		t.Error("PPL holds an order it refused")
	}

	// Not sent at all.
	calls := e.sandbox.calls("")
	for _, tc := range []struct {
		name   string
		change func(*carrier.CourierPickupRequest)
		field  string
	}{
		{"bad date", func(r *carrier.CourierPickupRequest) { r.Date = "2026-13-40" }, "date"},
		{"bad time", func(r *carrier.CourierPickupRequest) { r.ReadyFrom = "9am" }, "ready_from"},
		{"bad end", func(r *carrier.CourierPickupRequest) { r.ReadyUntil = "25:00" }, "ready_until"},
		{"no parcels", func(r *carrier.CourierPickupRequest) { r.ParcelCount = 0 }, "parcel_count"},
	} {
		req := pickupRequest("pk_n")
		tc.change(&req)
		if _, err := e.c.OrderCourierPickup(ctx, e.settings, req); !errors.As(err, &one) || one.Field != tc.field {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if e.sandbox.calls("") != calls {
		t.Error("a request refused before the call reached PPL")
	}

	// Without a count, the shipments' parcels are counted; no window, none sent.
	req = pickupRequest("pk_r_counted")
	req.ParcelCount, req.ReadyFrom, req.ReadyUntil = 0, "", ""
	req.Shipments = []carrier.DispatchShipment{{Parcels: []carrier.Parcel{parcel(1), parcel(2)}}, {Parcels: []carrier.Parcel{parcel(3)}}}
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, req); err != nil {
		t.Fatal(err)
	}
	if held, _ := e.sandbox.orderUnder("shipd-pk_r_counted"); held.req.ShipmentCount != 3 || held.req.SendTimeFrom != nil || held.req.SendTimeTo != nil {
		t.Errorf("counted order %+v", held.req)
	}
}

func TestPickupUnavailable(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)

	// PPL answers 503 to the order, or to the question before it: nothing ordered.
	e.sandbox.fail(http.StatusServiceUnavailable, 1, "POST /order/batch")
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest("pk_u1")); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("order 503: %v", err)
	}
	e.sandbox.fail(http.StatusServiceUnavailable, 1, "GET /order$")
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest("pk_u2")); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("question 503: %v", err)
	}
	if n := e.sandbox.calls("POST /order/batch"); n != 1 {
		t.Errorf("%d orders posted, want only the refused one", n)
	}

	// Polls PPL does not answer are waited out.
	e.sandbox.fail(http.StatusServiceUnavailable, 2, "GET /order/batch/")
	if got, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest("pk_u3")); err != nil || got.ConfirmationNumber == "" {
		t.Errorf("polls 503 twice: %+v, %v", got, err)
	}

	// A question refused before ordering is none; the read-back refused once
	// the order is placed is no refusal (shipd would forget an order PPL
	// holds) but unavailable, and the next attempt resumes.
	e.sandbox.fail(http.StatusBadRequest, -1, "GET /order$")
	req := pickupRequest("pk_u4")
	var recorded string
	req.Booking.Accepted = func(_ context.Context, h string) error { recorded = h; return nil }
	_, err := e.c.OrderCourierPickup(ctx, e.settings, req)
	if !errors.Is(err, carrier.ErrUnavailable) || recorded == "" {
		t.Errorf("read-back refused: %v (batch %q)", err, recorded)
	}
	e.sandbox.fail(0, 0, "")
	req.Booking = carrier.Booking{Key: "pk_u4", Handle: recorded}
	if got, err := e.c.OrderCourierPickup(ctx, e.settings, req); err != nil || got.ConfirmationNumber == "" {
		t.Errorf("resumed: %+v, %v", got, err)
	}

	// The batch is never imported: polling ends with the deadline, the batch recorded.
	e.sandbox.pollsToComplete = 1 << 30
	short, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	req = pickupRequest("pk_u5")
	recorded = ""
	req.Booking.Accepted = func(_ context.Context, h string) error { recorded = h; return nil }
	if _, err := e.c.OrderCourierPickup(short, e.settings, req); !errors.Is(err, carrier.ErrUnavailable) || recorded == "" {
		t.Errorf("never imported: %v (batch %q)", err, recorded)
	}
	if e.sandbox.calls("GET /order/batch/"+recorded) < 5 {
		t.Error("the batch was not polled repeatedly")
	}
	e.sandbox.pollsToComplete = 1

	// PPL never answers.
	e.sandbox.setHang(true)
	short, cancel = context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := e.c.OrderCourierPickup(short, e.settings, pickupRequest("pk_u6")); !errors.Is(err, carrier.ErrUnavailable) || time.Since(start) > 2*time.Second {
		t.Errorf("hanging PPL: %v after %v", err, time.Since(start))
	}
	e.sandbox.setHang(false)

	// A cancel PPL does not answer.
	e.sandbox.fail(http.StatusServiceUnavailable, -1, "POST /order/cancel")
	if err := e.c.CancelCourierPickup(ctx, e.settings, carrier.CourierPickup{ConfirmationNumber: "1", Handle: "shipd-pk_u3"}); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("cancel 503: %v", err)
	}
}

func TestPickupBadCredentials(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	bad := carrier.Settings{"clientId": "client-1", "clientSecret": "wrong"}
	var rej *carrier.Rejection
	if _, err := e.c.OrderCourierPickup(ctx, bad, pickupRequest("pk_c1")); !errors.As(err, &rej) || rej.Field != "clientSecret" {
		t.Errorf("order: %v", err)
	}
	if err := e.c.CancelCourierPickup(ctx, bad, carrier.CourierPickup{ConfirmationNumber: "1", Handle: "shipd-pk_c1"}); !errors.As(err, &rej) || rej.Field != "clientSecret" {
		t.Errorf("cancel: %v", err)
	}
	if e.sandbox.calls("POST /order") != 0 {
		t.Error("called PPL without a token")
	}
}

// PPL's document types GET /order's answer as one OrderModel: read as well
// as a list, none found included.
func TestOrderReadBackAsTheDocumentTypesIt(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	e.sandbox.orderAsObject = true
	got, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest("pk_o1"))
	if err != nil {
		t.Fatal(err)
	}
	if held, _ := e.sandbox.orderUnder("shipd-pk_o1"); got.ConfirmationNumber != held.number {
		t.Errorf("answered %+v, PPL holds %+v", got, held)
	}
	if err := e.c.CancelCourierPickup(ctx, e.settings, got); err != nil {
		t.Fatal(err)
	}
	if err := e.c.CancelCourierPickup(ctx, e.settings, got); err != nil {
		t.Errorf("a repeated cancel: %v", err)
	}
	// A cancelled order found under the reference is no pickup to answer.
	var rej *carrier.Rejection
	if _, err := e.c.OrderCourierPickup(ctx, e.settings, pickupRequest("pk_o1")); !errors.As(err, &rej) || !strings.Contains(rej.Message, "cancelled") {
		t.Errorf("order again under a cancelled reference: %v", err)
	}
}

// The fake holds collection orders to PPL's document: a misspelt optional
// field, an unknown sender field, a window that is no TimeSpan (the format
// vendorspec does not check), a note past 300 characters, a cancel body's
// unknown field and a read without Limit are refused; the adapter's shapes
// pass.
func TestFakeHoldsOrdersToTheDocument(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)
	tok, _, err := e.c.token(ctx, e.sandbox.base(), e.settings)
	if err != nil {
		t.Fatal(err)
	}
	e.sandbox.expectRefusals = true
	send := func(method, path, body string) int {
		var r *http.Request
		if body == "" {
			r, _ = http.NewRequestWithContext(ctx, method, e.sandbox.base()+path, nil)
		} else {
			r, _ = http.NewRequestWithContext(ctx, method, e.sandbox.base()+path, bytes.NewReader([]byte(body)))
			r.Header.Set("Content-Type", "application/json")
		}
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	date, _ := sendDate(pickupDate(2))
	order := func(orderType, sender, extra string) string {
		return fmt.Sprintf(`{"orders":[{"orderType":"%s","referenceId":"R1","sendDate":"%s","shipmentCount":2,`+
			`"sender":{"name":"Acme","street":"Skladová 1","city":"Praha","zipCode":"11000","country":"CZ"%s}%s}]}`,
			orderType, date, sender, extra)
	}
	for _, tc := range []struct {
		name, orderType, sender, extra string
		want                           int
	}{
		{"valid", "CollectionOrder", "", "", http.StatusCreated},
		{"documented window", "CollectionOrder", "", `,"sendTimeFrom":"09:00:00","sendTimeTo":"16:30"`, http.StatusCreated},
		{"misspelt optional field", "CollectionOrder", "", `,"sendTimeFrm":"09:00:00"`, http.StatusBadRequest},
		{"unknown sender field", "CollectionOrder", `,"phon":"+420111222333"`, "", http.StatusBadRequest},
		{"window not a TimeSpan", "CollectionOrder", "", `,"sendTimeFrom":"9:00 AM"`, http.StatusBadRequest},
		{"note past 300 characters", "CollectionOrder", "", `,"note":"` + strings.Repeat("x", 301) + `"`, http.StatusBadRequest},
		{"unknown order type", "PickupOrder", "", "", http.StatusBadRequest},
	} {
		if got := send(http.MethodPost, "/order/batch", order(tc.orderType, tc.sender, tc.extra)); got != tc.want {
			t.Errorf("%s: HTTP %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := send(http.MethodPost, "/order/cancel?orderReference=R1", `{"notes":"x"}`); got != http.StatusBadRequest {
		t.Errorf("cancel with an unknown field: HTTP %d", got)
	}
	if got := send(http.MethodGet, "/order?OrderReferences=R1&Offset=0", ""); got != http.StatusBadRequest {
		t.Errorf("read without Limit: HTTP %d", got)
	}
	e.sandbox.mu.Lock()
	refused := strings.Join(e.sandbox.refusals, "\n")
	e.sandbox.mu.Unlock()
	for _, word := range []string{"sendTimeFrm", "phon", "9:00 AM", "note", "PickupOrder", "notes", "Limit"} {
		if !strings.Contains(refused, word) {
			t.Errorf("no refusal names %s:\n%s", word, refused)
		}
	}
}

func TestOrderFieldMapping(t *testing.T) {
	for key, want := range map[string]string{
		"Orders[0].SendDate":            "date",
		"$.orders[0].sendTimeFrom":      "ready_from",
		"Orders[0].SendTimeTo":          "ready_until",
		"Orders[0].ShipmentCount":       "parcel_count",
		"Orders[0].Sender.ZipCode":      "address.postal_code",
		"Orders[0].Sender.Street":       "address.street_name",
		"Orders[0].Sender.Country":      "address.country_code",
		"Orders[0].Sender.Name":         "contact",
		"Orders[0].Sender.Phone":        "contact.phone_number",
		"Orders[0].Email":               "contact.email_address",
		"Orders[0].Note":                "note",
		"Orders[0].ReferenceId":         "",
		"Orders[0].Recipient.ZipCode":   "Orders[0].Recipient.ZipCode",
		"Orders[0].CustomerReference":   "Orders[0].CustomerReference",
		"$.orders[0].sendTimeTo.nested": "$.orders[0].sendTimeTo.nested",
	} {
		if got := orderFieldOf(key); got != want {
			t.Errorf("orderFieldOf(%q) = %q, want %q", key, got, want)
		}
	}
}

// Every attempt to order one pickup sends one referenceId, within PPL's 50
// characters.
func TestOrderReference(t *testing.T) {
	if a, b := orderReference("pk_01JD9"), orderReference("pk_01JD9"); a != b || a != "shipd-pk_01JD9" {
		t.Errorf("references %q, %q", a, b)
	}
	long := strings.Repeat("k", 60)
	for _, key := range []string{long, "pickup/ä 1"} {
		ref := orderReference(key)
		if ref != orderReference(key) || len(ref) > orderReferenceMax || !strings.HasPrefix(ref, "shipd-") || strings.Contains(ref, key) {
			t.Errorf("reference of %q: %q", key, ref)
		}
	}
	if a, b := orderReference(""), orderReference(""); a == b || len(a) > orderReferenceMax {
		t.Errorf("keyless references %q, %q", a, b)
	}
}
