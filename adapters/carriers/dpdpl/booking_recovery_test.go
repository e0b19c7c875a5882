package dpdpl

import (
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
	"shipd/modules/shipments/domain"
)

// DPD Poland books once whatever fails after it booked a package (ADR
// 0041), held to it by the shipments module's booking use case against the
// demo fake. DropTrackingNumber is nil: the booking asks for ALL_OR_NOTHING,
// under which DPD answers a package OK only with every parcel OK and
// numbered, and a waybill missing could not be read back (the service has
// no operation that reads a package).
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	e := newEnv(t)
	req := request("", ProductClassic, "pdf")
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: e.c,
		Settings: e.settings,
		Shipment: func(r *domain.Request) {
			r.Origin, r.Destination = &req.Origin, &req.Destination
		},
		Bookings:   e.sandbox.bookingCount,
		FailLabels: e.sandbox.failLabels.Arm,
	})
}
