package allegro

import "shipd/platform/carrier"

// statuses maps the code of a ParcelTrackingStatus (the file's enum, every
// value [V]; kept as the event's Code) to a standard status. A code the
// table lacks maps to nothing.
var statuses = carrier.StatusTable{
	// "prepared and awaiting to be sent": booked, not handed over.
	"PENDING": carrier.StatusWaitingForShipment,
	// "on its way": acceptance by the carrier, hubs, redirection.
	"IN_TRANSIT": carrier.StatusInTransit,
	// "released for delivery to its final destination".
	"RELEASED_FOR_DELIVERY": carrier.StatusOutForDelivery,
	// "awaiting pickup" at a locker or point.
	"AVAILABLE_FOR_PICKUP": carrier.StatusReadyForPickup,
	// "a notice was left because of an unsuccessful delivery attempt".
	"NOTICE_LEFT": carrier.StatusDeliveryFailed,
	// "delivered to the receiver / collected by the receiver".
	"DELIVERED": carrier.StatusDelivered,
	// "being or has been returned to the sender".
	"RETURNED": carrier.StatusReturned,
	// "problem with shipment": refused by the receiver, lost.
	"ISSUE": carrier.StatusOnHold,
}
