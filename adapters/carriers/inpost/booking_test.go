package inpost

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"shipd/platform/carrier"
)

// An attempt that ends right after ShipX accepted the shipment (its id
// recorded) is resumed by the next one from that id: it polls the same
// shipment and never creates a second.
func TestBookingResumesFromTheRecordedShipment(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	req := courierRequest()

	ctx, cancel := context.WithCancel(context.Background())
	var recorded string
	req.Booking = carrier.Booking{Key: "shp_1", Accepted: func(_ context.Context, handle string) error {
		recorded = handle
		cancel() // the worker goes away once the handle is safe
		return nil
	}}
	_, err := c.CreateShipment(ctx, s, req)
	if !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("interrupted attempt: %v, want ErrUnavailable", err)
	}
	if recorded != "101" {
		t.Fatalf("recorded handle %q, want ShipX's shipment id 101", recorded)
	}

	req.Booking = carrier.Booking{Key: "shp_1", Handle: recorded, Accepted: func(context.Context, string) error {
		t.Error("a resumed booking recorded a handle again")
		return nil
	}}
	out, err := c.CreateShipment(context.Background(), s, req)
	if err != nil {
		t.Fatalf("resumed attempt: %v", err)
	}
	if out.ProviderShipmentID != "101" || len(out.TrackingNumbers) != 3 {
		t.Errorf("resumed booking %+v", out)
	}
	if len(f.shipments) != 1 || len(f.creates) != 1 {
		t.Errorf("ShipX holds %d shipments after %d creates, want one", len(f.shipments), len(f.creates))
	}
	for _, call := range f.callLog()[1:] {
		if call != "GET /v1/shipments/101" {
			t.Errorf("after the create: %s", call)
		}
	}
}

// The handle is recorded before the first poll: a failed record ends the
// attempt as unavailable (the next may book again) and ShipX is not polled.
func TestBookingRecordFailure(t *testing.T) {
	f := newFake(t)
	req := courierRequest()
	req.Booking.Accepted = func(context.Context, string) error { return errors.New("database gone") }
	_, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), req)
	if !errors.Is(err, carrier.ErrUnavailable) || !strings.Contains(err.Error(), "database gone") {
		t.Fatalf("error = %v, want ErrUnavailable with the cause", err)
	}
	if got := f.callLog(); !slices.Equal(got, []string{"POST /v1/organizations/1234/shipments"}) {
		t.Errorf("calls = %v", got)
	}
}

// A handle ShipX does not know is no shipment to resume: ShipX's 404 comes
// back as a Rejection and nothing is created.
func TestBookingUnknownHandle(t *testing.T) {
	f := newFake(t)
	req := courierRequest()
	req.Booking.Handle = "999"
	_, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), req)
	rejection(t, err, "", "Resource not found")
	if len(f.creates) != 0 {
		t.Errorf("%d creates", len(f.creates))
	}
}
