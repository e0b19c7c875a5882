package allegro

import (
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
	"shipd/modules/shipments/domain"
)

// Allegro books once whatever fails after it took the create command (ADR
// 0041), held to it by the shipments module's booking use case against the
// fake: a retried attempt resumes the recorded command, never sends
// another; a waybill missing from the shipment is read again the same way.
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	f := newFake(t)
	settings := map[string]any{}
	for k, v := range testSettings() {
		settings[k] = v
	}
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: f.carrier(),
		Settings: settings,
		// By courier within Poland, to the buyer's Allegro address.
		Shipment: func(r *domain.Request) {
			r.Recipient.EmailAddress = "hamu7udk3p+17454c1b6@allegromail.pl"
			r.Origin = &domain.Address{StreetName: "Główna", HouseNumber: "30", CityName: "Warszawa", PostalCode: "00-001", CountryCode: "PL"}
			r.Destination = &domain.Address{StreetName: "Długa", HouseNumber: "12", CityName: "Kraków", PostalCode: "30-001", CountryCode: "PL"}
		},
		Bookings:           f.shipmentCount,
		FailLabels:         f.failLabels.Arm,
		DropTrackingNumber: func() { f.mu.Lock(); f.dropWaybill = true; f.mu.Unlock() },
	})
}
