package inpost

import (
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
	"shipd/modules/shipments/domain"
)

// InPost books once whatever fails after ShipX created the shipment (ADR
// 0041), held to it by the shipments module's booking use case against the
// fake: a retried attempt polls the recorded shipment, never creates
// another.
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	f := newFake(t)
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: newCarrier(f),
		Settings: map[string]any{"apiToken": f.token, "organizationId": f.org, "sandboxMode": true},
		// Courier standard within Poland, numbers ShipX validates.
		Shipment: func(r *domain.Request) {
			r.Sender.PhoneNumber, r.Recipient.PhoneNumber = "+48 500 100 200", "600-700-800"
			r.Origin = &domain.Address{StreetName: "Magazynowa", HouseNumber: "1", CityName: "Warszawa", PostalCode: "00-001", CountryCode: "PL"}
			r.Destination = &domain.Address{StreetName: "Długa", HouseNumber: "12", CityName: "Kraków", PostalCode: "31-001", CountryCode: "PL"}
		},
		Bookings: func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.shipments)
		},
		FailLabels: f.failLabel.Arm,
		// ShipX numbers a shipment's parcels when it confirms it, and the
		// adapter polls until it is confirmed with a number per parcel: an
		// answer it returns cannot lack one.
		DropTrackingNumber: nil,
	})
}
