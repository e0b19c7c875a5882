package dhlexpress

import (
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
	"shipd/modules/shipments/domain"
)

// DHL Express books once whatever fails after it booked a waybill (ADR
// 0041), held to it by the shipments module's booking use case against the
// fake, from Prague to Vienna (inside the EU customs union: no customs
// lines). DHL prints labels only in the booking's answer, so a booking
// whose answer's labels were lost ends created without a label
// (LabelsOnlyWithBooking), and there is no label service to fail
// (FailLabels nil). DropTrackingNumber is nil: DHL's schema requires every
// answered piece's trackingNumber (the fake's answers are held to it).
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	f := newFake(t, sandboxBase)
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: f.carrier(),
		Settings: testSettings(),
		Shipment: func(r *domain.Request) {
			r.Destination = &domain.Address{StreetName: "Mariahilfer Straße", HouseNumber: "12", CityName: "Wien", PostalCode: "1070", CountryCode: "AT"}
		},
		Bookings:              f.bookings,
		LabelsOnlyWithBooking: true,
	})
}
