package dpdpl

import "shipd/platform/carrier"

// eventStatuses maps the businessCode of a DPD Poland event (kept as the
// event's Code) to a standard status. Every code is [U]: no vendor or
// community list was found, see testdata/event-codes.tsv (its test holds
// this table to that file). A code the table lacks maps to nothing.
var eventStatuses = carrier.StatusTable{
	"030103": carrier.StatusWaitingForShipment, // data registered, not handed over
	"040101": carrier.StatusInTransit,          // picked up from the sender
	"170102": carrier.StatusInTransit,          // received at a DPD depot
	"190101": carrier.StatusDelivered,          // delivered
}
