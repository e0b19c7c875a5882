package ppl

import (
	"strconv"

	"shipd/platform/carrier"
)

// eventStatuses maps the legacy numeric statusId of a trackAndTrace event
// (kept as the event's Code, e.g. "450") to a standard status. Meanings per
// pplmyapi (community, see "Unverified assumptions" in ppl.go): 900 data
// only; 150/151/170 picked up; 281/282/300/343/400/720/733/734 in the
// delivery chain; 450/451/452 delivered; 336 and 453–473 not delivered
// (reason codes); 500 back to sender; 605/606/613/614 COD paid (after a
// delivery, so delivered, with CODCollected). Anything else is unmapped.
var eventStatuses = func() carrier.StatusTable {
	t := carrier.StatusTable{
		"900": carrier.StatusWaitingForShipment, // electronic data only, not yet handed over

		"150": carrier.StatusInTransit, // picked up from the sender
		"151": carrier.StatusInTransit,
		"170": carrier.StatusInTransit,

		"281": carrier.StatusInTransit, // in the delivery chain (depots, hubs)
		"282": carrier.StatusInTransit,
		"300": carrier.StatusInTransit,
		"343": carrier.StatusInTransit,
		"400": carrier.StatusInTransit,
		"720": carrier.StatusInTransit,
		"733": carrier.StatusInTransit,
		"734": carrier.StatusInTransit,

		"450": carrier.StatusDelivered,
		"451": carrier.StatusDelivered,
		"452": carrier.StatusDelivered,

		"336": carrier.StatusDeliveryFailed, // not delivered (reason code)

		"500": carrier.StatusReturned, // back to sender

		"605": carrier.StatusDelivered, // COD paid
		"606": carrier.StatusDelivered,
		"613": carrier.StatusDelivered,
		"614": carrier.StatusDelivered,
	}
	for id := 453; id <= 473; id++ { // not delivered, one code per reason
		t[strconv.Itoa(id)] = carrier.StatusDeliveryFailed
	}
	return t
}()

// codPaid are the statusIds saying the cash on delivery was collected.
var codPaid = map[string]bool{"605": true, "606": true, "613": true, "614": true}

// stateStatuses maps the coarse shipmentState (kept as Code as it comes,
// e.g. "Delivered") to a standard status. "None" is deliberately unmapped:
// it says nothing.
var stateStatuses = carrier.StatusTable{
	"Active":                 carrier.StatusWaitingForShipment, // data received, not picked up
	"PickedUpFromSender":     carrier.StatusInTransit,
	"OutForDelivery":         carrier.StatusOutForDelivery,
	"DeliveredToPickupPoint": carrier.StatusReadyForPickup,
	"Delivered":              carrier.StatusDelivered,
	"NotDelivered":           carrier.StatusDeliveryFailed,
	"Rejected":               carrier.StatusDeliveryFailed, // refused by the recipient; BackToSender follows
	"BackToSender":           carrier.StatusReturned,
	"Canceled":               carrier.StatusCancelled,
}
