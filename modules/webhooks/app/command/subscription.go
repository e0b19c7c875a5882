// Package command holds the webhooks module's write use cases.
package command

import (
	"slices"

	channels "shipd/modules/channels/contract"
	dispatch "shipd/modules/dispatch/contract"
	shipments "shipd/modules/shipments/contract"
	tracking "shipd/modules/tracking/contract"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/fault"
)

// EventTypes are the event types a subscription may choose: every public
// event of the other modules.
var EventTypes = slices.Concat(channels.EventTypes, shipments.PublicEventTypes, tracking.EventTypes, dispatch.EventTypes)

// Record is the subscription as the API shows it, secret masked.
func Record(s *domain.Subscription) contract.Subscription {
	return contract.Subscription{ID: s.ID(), Name: s.Name(), URL: s.URL(), Events: s.Events(), Secret: contract.MaskedSecret,
		Active: s.Active(), CreatedAt: s.CreatedAt(), UpdatedAt: s.UpdatedAt()}
}

// NotYours is the answer to touching another account's subscription.
func NotYours() error {
	return fault.Forbidden("This webhook subscription belongs to another account.")
}
