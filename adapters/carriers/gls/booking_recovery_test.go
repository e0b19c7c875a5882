package gls

import (
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
	"shipd/modules/shipments/domain"
)

// GLS books once whatever fails after it accepted a shipment (ADR 0041),
// held to it by the shipments module's booking use case against the fake.
// DropTrackingNumber is nil: GLS's schema requires the TrackID and the
// ParcelNumber of every ParcelData (the fake's answers are held to it), so
// an answer cannot lack a parcel's number while the booking is whole.
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	f := newFake(t)
	req := request("")
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: f.carrier(),
		Settings: f.settings(),
		Shipment: func(r *domain.Request) {
			r.Origin, r.Destination = &req.Origin, &req.Destination
		},
		Bookings:   f.bookingCount,
		FailLabels: f.failLabels.Arm,
	})
}
