package gls

import "shipd/platform/carrier"

// statusTable maps GLS Track & Trace codes to standard statuses: the parcel
// status words (ParcelDTO.status, ecitrackandtrace.yaml) and the dotted event
// codes the vendor file documents (EventDTO.code examples and the
// /tracking/events/codes example). The two never collide: event codes have
// a dot. Codes absent here map to nothing, never to a guess.
var statusTable = carrier.StatusTable{
	// Parcel status words.
	"PLANNEDPICKUP": carrier.StatusWaitingForShipment, // pickup planned, not in GLS's hands
	"INPICKUP":      carrier.StatusWaitingForShipment, // a driver will pick it up
	"PREADVICE":     carrier.StatusWaitingForShipment, // GLS has the data, not the parcel
	"NOTPICKEDUP":   carrier.StatusOnHold,             // pickup failed: still at the sender
	"INTRANSIT":     carrier.StatusInTransit,
	"INWAREHOUSE":   carrier.StatusInTransit,
	"INDELIVERY":    carrier.StatusOutForDelivery,
	"DELIVEREDPS":   carrier.StatusReadyForPickup, // delivered to a ParcelShop for collection
	"DELIVERED":     carrier.StatusDelivered,
	"NOTDELIVERED":  carrier.StatusDeliveryFailed,
	"CANCELED":      carrier.StatusCancelled,
	// "FINAL" (history closed) is deliberately unmapped: the newest mapped
	// event says how the journey ended (delivered, returned, ...).

	// Event codes.
	"INTIAL.PREADVICE":  carrier.StatusWaitingForShipment, // data entered, parcel not handed over
	"INTIAL.E48_DATA":   carrier.StatusWaitingForShipment, // provided by the sender for collection
	"INTIAL.NORMAL":     carrier.StatusInTransit,          // handed over to GLS
	"DELIVD.PARCELSHOP": carrier.StatusReadyForPickup,     // delivered at the ParcelShop
	"CANCEL.NORMAL":     carrier.StatusCancelled,          // parcel data deleted
	// "CHANGD.MONEWADDR" and "CHANGD.PARCELBOX" (a delivery change completed:
	// new address, parcel locker) are deliberately unmapped: they say nothing
	// of where the parcel is, so the status stays as it was.
}

// unmappedCodes are documented codes left out of statusTable on purpose.
var unmappedCodes = []string{"FINAL", "CHANGD.MONEWADDR", "CHANGD.PARCELBOX"}
