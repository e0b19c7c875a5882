package ppl

import (
	"net/http"
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
)

// PPL books once whatever fails after it accepted a batch (ADR 0041), held
// to it by the shipments module's booking use case against the fake: a
// retried attempt polls the recorded batch, never posts another.
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	e := newEnv(t)
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: e.c,
		Settings: map[string]any{"clientId": "client-1", "clientSecret": "secret-1", "productType": "BUSS", "sandboxMode": true},
		// The default request (two parcels, Prague to Brno) is one PPL
		// books as BUSS, the channel's product.
		Bookings: func() int {
			e.sandbox.mu.Lock()
			defer e.sandbox.mu.Unlock()
			return len(e.sandbox.batches)
		},
		FailLabels: func(n int) { e.sandbox.fail(http.StatusServiceUnavailable, n, "GET /data/") },
		// PPL's batch names an item's shipmentNumber with its Complete
		// state, and the adapter waits until every item is Complete: an
		// answer it returns cannot lack a parcel's number.
		DropTrackingNumber: nil,
	})
}
