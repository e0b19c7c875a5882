package dhlparcelde

import (
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
	"shipd/modules/shipments/domain"
)

// DHL Parcel DE books once whatever fails after it created the shipments
// (ADR 0041), held to it by the shipments module's booking use case against
// the fake. DropTrackingNumber is nil: each parcel is a DHL shipment whose
// only name is its shipment number, so an item answered without one is no
// booking the adapter can keep (it deletes the others and reports the
// failure), and DHL has no lookup by anything else to read one back.
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	f := newFake(t)
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: f.carrier(),
		Settings: testSettings(),
		Shipment: func(r *domain.Request) {
			r.Origin = &domain.Address{StreetName: "Sträßchensweg", HouseNumber: "10", CityName: "Bonn", PostalCode: "53113", CountryCode: "DE"}
			r.Destination = &domain.Address{StreetName: "Kurt-Schumacher-Str.", HouseNumber: "20", CityName: "Bonn", PostalCode: "53113", CountryCode: "DE"}
		},
		Bookings:   f.bookings,
		FailLabels: f.failLabels.Arm,
	})
}
