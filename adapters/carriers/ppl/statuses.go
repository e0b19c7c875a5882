package ppl

import (
	"strconv"

	"shipd/platform/carrier"
)

// eventStatuses maps the legacy numeric statusId of a trackAndTrace event
// (kept as the event's Code, e.g. "450") to a standard status. Meanings per
// pplmyapi (community, see "Unverified assumptions" in ppl.go): 900 data
// only; 150/151/170 picked up; 281/282/300/343/400/720/733/734 in the
// delivery chain; 450/451/452 delivered; 336, 454–473 and 993 not
// delivered (reason codes); 500 back to sender; 605/606/613/614 COD paid
// (after a delivery, so delivered, with CODCollected). The list is
// testdata/status-ids.tsv; anything else is unmapped. An event's phase, when
// it maps, is preferred (phaseStatuses: PPL's own enum).
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
		"993": carrier.StatusDeliveryFailed, // not delivered: the sender cannot be contacted

		"500": carrier.StatusReturned, // back to sender

		"605": carrier.StatusDelivered, // COD paid
		"606": carrier.StatusDelivered,
		"613": carrier.StatusDelivered,
		"614": carrier.StatusDelivered,
	}
	for id := 454; id <= 473; id++ { // not delivered, one code per reason
		t[strconv.Itoa(id)] = carrier.StatusDeliveryFailed
	}
	return t
}()

// codPaid are the statusIds saying the cash on delivery was collected.
var codPaid = map[string]bool{"605": true, "606": true, "613": true, "614": true}

// phaseStatuses maps the phase of a trackAndTrace event, one of PPL's
// ShipmentStates (its OpenAPI enum, the same values the GET /shipment filter
// takes), to a standard status. Every value is here; "None" says nothing and
// maps explicitly to no status.
var phaseStatuses = carrier.StatusTable{
	"None":                   "",
	"DataShipment":           carrier.StatusWaitingForShipment, // electronic data only
	"Active":                 carrier.StatusWaitingForShipment, // data received, not picked up
	"Dormant":                carrier.StatusWaitingForShipment, // a return label not yet used
	"PickedUpFromSender":     carrier.StatusInTransit,
	"Undelivered":            carrier.StatusInTransit, // on its way, not delivered yet [U]
	"OutForDelivery":         carrier.StatusOutForDelivery,
	"DeliveredToPickupPoint": carrier.StatusReadyForPickup,
	"Delivered":              carrier.StatusDelivered,
	"CodPaidDate":            carrier.StatusDelivered, // cash on delivery paid out, after delivery
	"NotDelivered":           carrier.StatusDeliveryFailed,
	"Rejected":               carrier.StatusDeliveryFailed, // refused by the recipient; BackToSender follows
	"BackToSender":           carrier.StatusReturned,
	"Canceled":               carrier.StatusCancelled,
}

// phaseCODPaid is the phase saying the cash on delivery was collected.
const phaseCODPaid = "CodPaidDate"
