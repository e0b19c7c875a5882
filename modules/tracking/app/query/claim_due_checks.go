package query

import (
	"context"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/app/command"
	"shipd/platform/usecase"
)

// ClaimDueChecks asks for up to Limit parcels whose check is due, each
// leased to the caller for Lease: the one query that writes, as a queue's
// receive does, so that two instances never check one parcel at once.
type ClaimDueChecks struct {
	Limit int
	Lease time.Duration
}

// ClaimDueChecksHandler hands out due checks with their channels.
type ClaimDueChecksHandler struct {
	queue    command.CheckQueue
	channels channels.Channels
}

// NewClaimDueChecksHandler needs the check queue and the channels facade.
func NewClaimDueChecksHandler(queue command.CheckQueue, ch channels.Channels, obs usecase.Observer) usecase.QueryHandler[ClaimDueChecks, []command.DueCheck] {
	return usecase.Query(ClaimDueChecksHandler{queue: queue, channels: ch}, obs)
}

// Handle leases the due parcels and reads the channel of each once per
// claim, not once per parcel: the claim's parcels are checked within moments
// of each other, as a single check's read came moments before its call.
func (h ClaimDueChecksHandler) Handle(ctx context.Context, q ClaimDueChecks) ([]command.DueCheck, error) {
	states, err := h.queue.Claim(ctx, q.Limit, q.Lease)
	if err != nil {
		return nil, err
	}
	type channelKey struct{ account, channel string }
	read := map[channelKey]command.DueCheck{}
	due := make([]command.DueCheck, len(states))
	for i, st := range states {
		k := channelKey{st.AccountID, st.ChannelID}
		d, ok := read[k]
		if !ok {
			d.Channel, d.ChannelErr = h.channels.ChannelForUse(ctx, st.AccountID, st.ChannelID)
			read[k] = d
		}
		d.Parcel = st
		due[i] = d
	}
	return due, nil
}
