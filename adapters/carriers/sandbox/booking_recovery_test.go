package sandbox_test

import (
	"path/filepath"
	"testing"

	"shipd/adapters/carriers/sandbox"
	"shipd/modules/shipments/adapters/bookingtest"
)

// The sandbox books once whatever fails after it accepted a booking
// (ADR 0041), held to it by the shipments module's booking use case; its
// journal counts the bookings.
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "bookings.jsonl")
	c := sandbox.NewWithConfig(sandbox.Config{Journal: journal})
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: c,
		Settings: map[string]any{"clientId": "client", "clientSecret": "secret"},
		Bookings: func() int {
			counts, err := sandbox.Bookings(journal)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, k := range counts {
				n += k
			}
			return n
		},
		FailLabels:         c.FailNextLabels,
		DropTrackingNumber: c.DropNextTrackingNumber,
	})
}
