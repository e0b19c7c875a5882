package dhlexpress

import "shipd/platform/carrier"

// statusTable maps DHL Express checkpoint codes (tracking events' typeCode)
// to standard statuses: every code of DHL's trackingEventCode reference data
// (the example of GET /reference-data in the OpenAPI file, 62 codes; their
// descriptions are DHL's, shortened). Codes in unmapped have deliberately
// no entry.
var statusTable = carrier.StatusTable{
	// Shipment data received, parcel not yet with DHL.
	"DUMMY_PU": carrier.StatusWaitingForShipment, // shipment information received

	// Moving through DHL's network.
	"PU": carrier.StatusInTransit, // shipment pick up
	"SA": carrier.StatusInTransit, // shipment acceptance
	"AF": carrier.StatusInTransit, // arrived facility
	"PL": carrier.StatusInTransit, // processed at location
	"DF": carrier.StatusInTransit, // depart facility
	"AR": carrier.StatusInTransit, // arrival in delivery facility
	"TR": carrier.StatusInTransit, // record of transfer
	"CI": carrier.StatusInTransit, // facility check-in
	"CU": carrier.StatusInTransit, // confirm uplift
	"LV": carrier.StatusInTransit, // load vehicle
	"UV": carrier.StatusInTransit, // unload vehicle
	"SM": carrier.StatusInTransit, // scheduled movement
	"RW": carrier.StatusInTransit, // weigh & dimension
	"HN": carrier.StatusInTransit, // handover
	"HO": carrier.StatusInTransit, // lodged out of held inventory control
	"FD": carrier.StatusInTransit, // forward destination (delivery details expected)
	"TP": carrier.StatusInTransit, // forwarded to a third party, no delivery details expected

	// Customs steps that do not stop the parcel.
	"IC": carrier.StatusInTransit, // in clearance processing
	"ES": carrier.StatusInTransit, // entry submitted
	"BN": carrier.StatusInTransit, // customer broker notified
	"RR": carrier.StatusInTransit, // response received (customs status updated)
	"CR": carrier.StatusInTransit, // clearance release
	"BR": carrier.StatusInTransit, // broker release

	"WC": carrier.StatusOutForDelivery, // with delivering courier
	"CC": carrier.StatusReadyForPickup, // awaiting consignee collection

	"OK": carrier.StatusDelivered,              // delivery
	"DD": carrier.StatusDeliveredWithException, // delivered damaged
	"DS": carrier.StatusDeliveredWithException, // destroyed / disposal: the journey's end, never delivered

	// A delivery attempt that did not succeed.
	"NH": carrier.StatusDeliveryFailed, // not home
	"ND": carrier.StatusDeliveryFailed, // not delivered
	"RD": carrier.StatusDeliveryFailed, // refused delivery
	"BA": carrier.StatusDeliveryFailed, // bad address
	"CA": carrier.StatusDeliveryFailed, // closed on arrival
	"CM": carrier.StatusDeliveryFailed, // customer moved

	"RT": carrier.StatusReturned, // returned to consignor

	// Held or delayed: the parcel waits for something.
	"AD": carrier.StatusOnHold, // agreed delivery (held for the date agreed with the consignee)
	"MD": carrier.StatusOnHold, // missed delivery cycle
	"OH": carrier.StatusOnHold, // on hold
	"HP": carrier.StatusOnHold, // held for payment
	"HI": carrier.StatusOnHold, // lodged into held inventory control
	"CD": carrier.StatusOnHold, // controllable clearance delay
	"UD": carrier.StatusOnHold, // uncontrollable clearance delay
	"BL": carrier.StatusOnHold, // bond location
	"SS": carrier.StatusOnHold, // shipment stopped
	"ST": carrier.StatusOnHold, // shipment intercept
	"SI": carrier.StatusOnHold, // shipment inspection
	"TD": carrier.StatusOnHold, // transport delay
	"DM": carrier.StatusOnHold, // damaged
	"DP": carrier.StatusOnHold, // denied parties
	"MC": carrier.StatusOnHold, // miscode
	"MS": carrier.StatusOnHold, // mis-sort
	"IR": carrier.StatusOnHold, // incorrect route
	"NA": carrier.StatusOnHold, // not arrived
	"TI": carrier.StatusOnHold, // trace initiated
}

// unmapped are codes that say nothing of where a piece is: notices,
// payments, a search's end, and a partial delivery of a multi-piece
// shipment (which names no piece: each delivered piece has its own OK).
// They have no status so the parcel keeps its last one.
var unmapped = map[string]string{
	"PD": "partial delivery (of the shipment, not of this piece)",
	"SC": "service changed (notice)",
	"IA": "image available (notice)",
	"DI": "duty invoice (notice)",
	"PY": "payment (duties and taxes)",
	"TT": "trace terminated (the search's end, found or not)",
	"CS": "closed shipment (administrative closure, outcome not said)",
}
