package packeta

import (
	"net/http"
	"strings"
	"testing"

	"shipd/modules/shipments/adapters/bookingtest"
	"shipd/modules/shipments/domain"
)

// Packeta books once whatever fails after it made the packets (ADR 0041),
// held to it by the shipments module's booking use case against the fake:
// a retried attempt resumes after the packets the handle records, never
// makes one again.
func TestABookingIsMadeOnceWhateverFailsAfterIt(t *testing.T) {
	f := newFake(t)
	bookingtest.Run(t, bookingtest.Vendor{
		Provider: newCarrier(f),
		Settings: map[string]any{"apiPassword": f.password, "sandboxMode": false, "productType": ProductPickupPoint},
		// To pickup point 4307 (it takes 10 kg a packet).
		Shipment: func(r *domain.Request) { r.PickupPoint = "4307" },
		// Packeta's record is its packets, one per parcel, each with the
		// order number "<booking key>-<parcel>": a shipment is booked as
		// many times as its most-booked parcel has live packets.
		Bookings: func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			perNumber := map[string]int{}
			for _, p := range f.packets {
				if !p.cancelled {
					perNumber[p.attrs.value("number")]++
				}
			}
			perShipment := map[string]int{}
			for number, n := range perNumber {
				stem := number[:strings.LastIndex(number, "-")]
				perShipment[stem] = max(perShipment[stem], n)
			}
			total := 0
			for _, n := range perShipment {
				total += n
			}
			return total
		},
		// Packeta documents no 5xx of its own; its HTTP front answering 503
		// is what the adapter takes for an outage [U].
		FailLabels: func(n int) { f.fail("packetLabel", http.StatusServiceUnavailable, n) },
		// createPacket answers the packet's id and barcode together
		// (PacketIdDetail [V]), and the packet cannot be recorded without
		// them: an answer the adapter returns cannot lack a number.
		DropTrackingNumber: nil,
	})
}
