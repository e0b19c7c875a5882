package packeta

import "shipd/platform/carrier"

// Statuses maps every statusCode of the packet status table in Packeta's
// API reference (docs.packetery.com/03-creating-packets/06-packetery-api-reference.html,
// "Packet status codes"; testdata/packet_status_codes.tsv transcribes it)
// to a standard status. Deliberate choices:
//   - 1 received data: the packet exists and its label prints, Packeta has
//     not got it yet → waiting_for_shipment.
//   - 12 collected (picked up from the sender), 2 arrived, 3, 4, 6 (handed
//     to the carrier that delivers it), 15 (a reverse packet accepted at a
//     branch, on its way to the shop) → in_transit.
//   - 14 customs (the customs declaration process): held → on_hold.
//   - 16 delivery attempt, 17 rejected by recipient and 9 posted back (on
//     its way back to the sender, not yet returned) → delivery_failed, so
//     that tracking goes on until 10 returned.
//   - 999 unknown says nothing → no entry (Status "").
var Statuses = carrier.StatusTable{
	"1":  carrier.StatusWaitingForShipment, // received data
	"2":  carrier.StatusInTransit,          // arrived
	"3":  carrier.StatusInTransit,          // prepared for departure
	"4":  carrier.StatusInTransit,          // departed
	"5":  carrier.StatusReadyForPickup,     // ready for pickup
	"6":  carrier.StatusInTransit,          // handed to carrier
	"7":  carrier.StatusDelivered,          // delivered
	"9":  carrier.StatusDeliveryFailed,     // posted back
	"10": carrier.StatusReturned,           // returned
	"11": carrier.StatusCancelled,          // cancelled
	"12": carrier.StatusInTransit,          // collected
	"14": carrier.StatusOnHold,             // customs
	"15": carrier.StatusInTransit,          // reverse packet arrived
	"16": carrier.StatusDeliveryFailed,     // delivery attempt
	"17": carrier.StatusDeliveryFailed,     // rejected by recipient
}
