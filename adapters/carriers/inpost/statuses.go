package inpost

import "shipd/platform/carrier"

// Statuses maps every ShipX status (the names GET /v1/statuses answers,
// transcribed in testdata/shipx-statuses.txt) to a standard status; the one
// left out is in unmappedStatuses with its reason. Deliberate choices:
//   - created, offers_prepared, offer_selected: the shipment exists at InPost
//     but is not yet bought → created; confirmed (bought, label printable,
//     parcel not yet handed over) → waiting_for_shipment.
//   - canceled_redirect_to_box is a cancelled redirection, not a cancelled
//     parcel (grouping it with canceled would end tracking of a parcel still
//     on its way) → in_transit.
//   - delay_in_delivery: the parcel is late but still moving → in_transit;
//     missing, claimed, oversized: held while InPost sorts it out → on_hold.
//   - courier_avizo_in_customer_service_point: a courier who found nobody
//     left the parcel at a customer service point for the recipient →
//     ready_for_pickup; the *_pickup_time_expired statuses: not collected in
//     time → delivery_failed.
//   - return_pickup_confirmation_to_sender: the sender took the return back
//     → returned.
var Statuses = carrier.StatusTable{
	"created":         carrier.StatusCreated,
	"offers_prepared": carrier.StatusCreated,
	"offer_selected":  carrier.StatusCreated,
	"confirmed":       carrier.StatusWaitingForShipment,

	"dispatched_by_sender":                         carrier.StatusInTransit,
	"dispatched_by_sender_to_pok":                  carrier.StatusInTransit,
	"collected_from_sender":                        carrier.StatusInTransit,
	"taken_by_courier":                             carrier.StatusInTransit,
	"taken_by_courier_from_pok":                    carrier.StatusInTransit,
	"taken_by_courier_from_customer_service_point": carrier.StatusInTransit,
	"adopted_at_source_branch":                     carrier.StatusInTransit,
	"sent_from_source_branch":                      carrier.StatusInTransit,
	"adopted_at_sorting_center":                    carrier.StatusInTransit,
	"sent_from_sorting_center":                     carrier.StatusInTransit,
	"adopted_at_target_branch":                     carrier.StatusInTransit,
	"readdressed":                                  carrier.StatusInTransit,
	"redirect_to_box":                              carrier.StatusInTransit,
	"unstack_from_box_machine":                     carrier.StatusInTransit,
	"unstack_from_customer_service_point":          carrier.StatusInTransit,
	"canceled_redirect_to_box":                     carrier.StatusInTransit,
	"delay_in_delivery":                            carrier.StatusInTransit,

	"out_for_delivery":            carrier.StatusOutForDelivery,
	"out_for_delivery_to_address": carrier.StatusOutForDelivery,

	"ready_to_pickup":                         carrier.StatusReadyForPickup,
	"ready_to_pickup_from_pok":                carrier.StatusReadyForPickup,
	"ready_to_pickup_from_pok_registered":     carrier.StatusReadyForPickup,
	"ready_to_pickup_from_branch":             carrier.StatusReadyForPickup,
	"stack_in_box_machine":                    carrier.StatusReadyForPickup,
	"stack_in_customer_service_point":         carrier.StatusReadyForPickup,
	"courier_avizo_in_customer_service_point": carrier.StatusReadyForPickup,
	"pickup_reminder_sent":                    carrier.StatusReadyForPickup,
	"pickup_reminder_sent_address":            carrier.StatusReadyForPickup,

	"delivered": carrier.StatusDelivered,

	"avizo":                            carrier.StatusDeliveryFailed,
	"pickup_time_expired":              carrier.StatusDeliveryFailed,
	"stack_parcel_pickup_time_expired": carrier.StatusDeliveryFailed,
	"stack_parcel_in_box_machine_pickup_time_expired": carrier.StatusDeliveryFailed,
	"rejected_by_receiver":                            carrier.StatusDeliveryFailed,
	"undelivered":                                     carrier.StatusDeliveryFailed,
	"undelivered_wrong_address":                       carrier.StatusDeliveryFailed,
	"undelivered_incomplete_address":                  carrier.StatusDeliveryFailed,
	"undelivered_unknown_receiver":                    carrier.StatusDeliveryFailed,
	"undelivered_cod_cash_receiver":                   carrier.StatusDeliveryFailed,
	"undelivered_no_mailbox":                          carrier.StatusDeliveryFailed,
	"undelivered_not_live_address":                    carrier.StatusDeliveryFailed,
	"undelivered_lack_of_access_letterbox":            carrier.StatusDeliveryFailed,

	"returned_to_sender":                   carrier.StatusReturned,
	"return_pickup_confirmation_to_sender": carrier.StatusReturned,

	"canceled": carrier.StatusCancelled,

	"missing":   carrier.StatusOnHold,
	"claimed":   carrier.StatusOnHold,
	"oversized": carrier.StatusOnHold,
}

// unmappedStatuses are ShipX statuses left out of Statuses on purpose, with
// the reason.
var unmappedStatuses = map[string]string{
	"other": "ShipX's catch-all: it says nothing of where the parcel is, so the status stays as it was",
}
