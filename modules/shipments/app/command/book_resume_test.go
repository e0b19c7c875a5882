package command_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/shipments/app/command"
	"shipd/platform/carrier"
)

// A carrier that books asynchronously accepts the booking, and the attempt
// ends before its outcome (the carrier call timed out, the process died):
// the handle it recorded is kept, and the next attempt resumes that booking
// instead of making a second one at the carrier (ADR 0038).
func TestARetriedBookingResumesTheCarriersBooking(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 2))
	var vendorBookings []string // what the carrier holds
	f.carrier.onCreate = func(ctx context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
		if req.Booking.Handle == "" {
			vendorBookings = append(vendorBookings, req.Booking.Key)
			if err := req.Booking.Accept(ctx, fmt.Sprintf("BATCH-%d", len(vendorBookings))); err != nil {
				return carrier.CreatedShipment{}, err
			}
			return carrier.CreatedShipment{}, fmt.Errorf("%w: polling the batch: context deadline exceeded", carrier.ErrUnavailable)
		}
		return bookedAnswer(req, true), nil
	}
	err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"})
	if !errors.Is(err, command.ErrCarrierUnavailable) {
		t.Fatalf("the interrupted attempt: %v, want it tried again", err)
	}
	st := f.state(t, "sh_1")
	if st.BookingHandle != "BATCH-1" || st.Version != 1 || !st.UpdatedAt.Equal(t0) {
		t.Errorf("after the interrupted attempt: handle %q, version %d, updated %v; want the handle kept and nothing a client sees changed", st.BookingHandle, st.Version, st.UpdatedAt)
	}
	if got := f.events(t, 0); len(got) != 1 {
		t.Errorf("events %v: recording the handle published something", got)
	}

	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	if st := f.state(t, "sh_1"); st.ProviderShipmentID != "P-ORDER-sh_1" || len(vendorBookings) != 1 {
		t.Errorf("after the retry: carrier shipment %q, %d bookings at the carrier; want the first one resumed", st.ProviderShipmentID, len(vendorBookings))
	}
	for i, req := range f.carrier.requests {
		if req.Booking.Key != "sh_1" {
			t.Errorf("attempt %d: booking key %q, want the shipment's id", i+1, req.Booking.Key)
		}
	}
	if handles := []string{f.carrier.requests[0].Booking.Handle, f.carrier.requests[1].Booking.Handle}; !slices.Equal(handles, []string{"", "BATCH-1"}) {
		t.Errorf("handles given to the attempts %q, want none, then the recorded one", handles)
	}
}

// A shipment to a pickup point hands the point to the carrier.
func TestBookingToAPickupPoint(t *testing.T) {
	t.Parallel()
	f := newFixture()
	channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Settings["productType"] = "POINT" })(f.channels)
	cmd := request("sh_1", 1)
	cmd.Shipment.PickupPoint = " KRA010 "
	f.created(t, cmd)
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	if req := f.carrier.requests[0]; req.PickupPoint != "KRA010" || req.ProductType != "POINT" {
		t.Errorf("the carrier was asked for product %q to point %q", req.ProductType, req.PickupPoint)
	}
	if snap := f.lastSnapshot(t); snap.PickupPointID == nil || *snap.PickupPointID != "KRA010" {
		t.Errorf("the record shows pickup point %v", snap.PickupPointID)
	}
}
