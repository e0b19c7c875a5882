package adapters

import (
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/messaging"

	tracking "shipd/modules/tracking/contract"
)

// trackingRequests are the commands that go to the tracking module with
// events: a deleted channel's parcels are no longer checked. Sent in the
// delete's transaction, so no check is left scheduled for a channel that is
// gone (a check that runs first finds the channel gone and stops too).
func trackingRequests(events []domain.Event) []messaging.Command {
	var out []messaging.Command
	for _, e := range events {
		if deleted, ok := e.(contract.ShippingChannelDeleted); ok {
			out = append(out, tracking.StopTrackingChannel{AccountID: deleted.AccountID, ChannelID: deleted.ShippingChannel.ID})
		}
	}
	return out
}
