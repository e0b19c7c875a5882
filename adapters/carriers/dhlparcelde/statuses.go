package dhlparcelde

import "shipd/platform/carrier"

// statusTable maps DHL's codes to standard statuses: the Unified tracking
// API's statusCode values (what Track reads), every ICE event code and every
// TTpro standard event code of DHL's event table
// (parcel_de_ice_event_ric_combinations_July_2024.csv). ICE codes are five
// capitals, TTpro codes two, Unified codes lower-case words: they never clash.
// Codes in unmapped have deliberately no entry.
var statusTable = carrier.StatusTable{
	// Unified tracking statusCode.
	"pre-transit": carrier.StatusWaitingForShipment,
	"transit":     carrier.StatusInTransit,
	"delivered":   carrier.StatusDelivered,
	"failure":     carrier.StatusDeliveryFailed,

	// TTpro standard events.
	"VA": carrier.StatusWaitingForShipment, // electronic pre-advice
	"AE": carrier.StatusInTransit,          // pickup successful
	"AN": carrier.StatusOnHold,             // pickup not successful
	"ES": carrier.StatusInTransit,          // handed over to DHL
	"AA": carrier.StatusInTransit,          // departed from
	"EE": carrier.StatusInTransit,          // arrived at
	"NB": carrier.StatusInTransit,          // normal processing
	"LA": carrier.StatusOnHold,             // in storage (held at a facility, not only for collection)
	"ZO": carrier.StatusInTransit,          // customs clearance
	"PO": carrier.StatusOutForDelivery,     // in delivery process
	"ZF": carrier.StatusReadyForPickup,     // delivered to a postal outlet
	"ZU": carrier.StatusDelivered,          // delivery successful
	"ZN": carrier.StatusDeliveryFailed,     // delivery attempt not successful
	"BV": carrier.StatusOnHold,             // exception

	// ICE events.
	"PARCV": carrier.StatusWaitingForShipment,     // PAN received by carrier
	"PURCR": carrier.StatusWaitingForShipment,     // pick up request created
	"PCKDU": carrier.StatusInTransit,              // picked up
	"SHRCU": carrier.StatusInTransit,              // shipment received from customer
	"SRTED": carrier.StatusInTransit,              // sorted
	"ASMVT": carrier.StatusInTransit,              // assigned to movement / tour vehicle
	"LDTHU": carrier.StatusInTransit,              // loaded to handling unit
	"LDTMV": carrier.StatusInTransit,              // loaded to movement / tour vehicle
	"MVDPT": carrier.StatusInTransit,              // vehicle departed
	"MVARR": carrier.StatusInTransit,              // vehicle arrived
	"ULFMV": carrier.StatusInTransit,              // unloaded from vehicle
	"INFCL": carrier.StatusInTransit,              // in facility
	"FWDCF": carrier.StatusInTransit,              // forwarded to correct facility
	"OFWRD": carrier.StatusInTransit,              // onforwarded
	"ROUCR": carrier.StatusInTransit,              // re-routed on customer request
	"TRBCR": carrier.StatusInTransit,              // transferred between carriers
	"HNDDE": carrier.StatusInTransit,              // handover to 3rd party, delivery details expected
	"HNDND": carrier.StatusInTransit,              // handover to 3rd party (customs)
	"ICPRC": carrier.StatusInTransit,              // into clearance processing
	"ITBAR": carrier.StatusInTransit,              // in bonded area
	"RSDCP": carrier.StatusInTransit,              // released from clearance processing
	"SECHK": carrier.StatusInTransit,              // security checked
	"RELBL": carrier.StatusInTransit,              // relabeled
	"REPCK": carrier.StatusInTransit,              // repacked
	"CNRFC": carrier.StatusReadyForPickup,         // consignee notified, ready for collection
	"HLDCC": carrier.StatusReadyForPickup,         // held for consignee collection
	"DLVRD": carrier.StatusDelivered,              // delivered
	"DSPSD": carrier.StatusDeliveredWithException, // disposed of: DHL's final event (TTpro ZU), never reaches the consignee
	"DLVRF": carrier.StatusDeliveryFailed,         // delivery refused
	"NTDEL": carrier.StatusDeliveryFailed,         // not delivered
	"RCCLS": carrier.StatusDeliveryFailed,         // record closed (lost / ghost piece)
	"RETRN": carrier.StatusReturned,               // will be returned to origin
	"CANCL": carrier.StatusCancelled,              // order cancelled by the sender
	"NTPUP": carrier.StatusOnHold,                 // not picked up
	"NTADT": carrier.StatusOnHold,                 // not assigned to delivery tour
	"EXPHD": carrier.StatusOnHold,                 // exception hold
	"HLDCP": carrier.StatusOnHold,                 // held for clearance purposes
	"HLDCU": carrier.StatusOnHold,                 // held by customs
	"CNFSC": carrier.StatusOnHold,                 // confiscation
	"DMGDS": carrier.StatusOnHold,                 // damage discovered
	"DTNPC": carrier.StatusOnHold,                 // data, but no piece
	"PBNDT": carrier.StatusOnHold,                 // piece, but no data
	"LDEXC": carrier.StatusOnHold,                 // loading exception
	"MSRTD": carrier.StatusOnHold,                 // mis-routed
	"MVDEX": carrier.StatusOnHold,                 // vehicle departure exception
	"MVTEX": carrier.StatusOnHold,                 // vehicle exception
}

// unmapped are codes that tell nothing about where the parcel is: notices
// (advice, alerts, data service, a deleted scan, a service check), money
// transfers of cash on delivery (which set CODCollected instead) and the
// Unified "unknown". They have no status so the parcel keeps its last one.
var unmapped = map[string]string{
	"unknown": "Unified: status unknown",
	"DD":      "TTpro data service (notification)",
	"GT":      "TTpro money transfer (cash on delivery collected)",
	"ADVIS":   "advice / notification to the consignee",
	"ALERT":   "alert notice",
	"CHECK":   "product feature check, service changed",
	"STORN":   "the previous event was deleted by the driver",
	"PMTCR":   "payment received from courier (cash on delivery)",
	"PMTCS":   "payment received from customer (cash on delivery)",
}

// codCollected are the codes reporting the cash on delivery collected.
var codCollected = map[string]bool{"GT": true, "PMTCR": true, "PMTCS": true}
