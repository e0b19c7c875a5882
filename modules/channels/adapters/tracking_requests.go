package adapters

import (
	"shipd/modules/channels/domain"
	"shipd/platform/messaging"

	tracking "shipd/modules/tracking/contract"
)

// StopTrackingChannel is the command a channel's deletion that asked for
// its parcels' tracking to stop (domain.Channel.Deleted) goes to the
// tracking module as, sent in the delete's transaction (a check that runs
// first finds the channel gone and stops too).
func StopTrackingChannel(accountID, channelID string) tracking.StopTrackingChannel {
	return tracking.StopTrackingChannel{AccountID: accountID, ChannelID: channelID}
}

// trackingRequests are the commands ch's change asked for.
func trackingRequests(ch *domain.Channel) []messaging.Command {
	if !ch.TakeTrackingStop() {
		return nil
	}
	return []messaging.Command{StopTrackingChannel(ch.AccountID(), ch.ID())}
}
