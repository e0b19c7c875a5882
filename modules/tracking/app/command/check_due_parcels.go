package command

import (
	"context"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
)

// DueCheck is a parcel claimed for its scheduled check, as it was when
// claimed, with its channel as the channels facade answered then.
type DueCheck struct {
	Parcel domain.State
	// Channel is shared by the claim's parcels of one channel: read only.
	Channel    channels.ChannelAccess
	ChannelErr error
}

// CheckDueParcelsHandler makes the scheduled checks: it claims due parcels
// (a short transaction that leases them), asks the carrier about each
// outside any transaction, and records the answers of many checks in one
// short transaction (outcomeLog). A refresh is CheckTrackingParcelHandler,
// which records its one answer before it replies.
type CheckDueParcelsHandler struct {
	queue    CheckQueue
	channels channels.Channels
	checker  checker
	outcomes *outcomeLog
}

// NewCheckDueParcelsHandler returns the handler.
func NewCheckDueParcelsHandler(repo domain.Repository, queue CheckQueue, ch channels.Channels, providers *carrier.Registry, clk clock.Clock, timeout time.Duration) CheckDueParcelsHandler {
	return CheckDueParcelsHandler{queue: queue, channels: ch, checker: checker{providers: providers, clock: clk, timeout: timeout},
		outcomes: &outcomeLog{repo: repo, queue: queue}}
}

// Claim leases up to limit due parcels and reads the channel of each once
// per claim, not once per parcel: the claim's parcels are checked within
// moments of each other, as a single check's read came moments before its
// call.
func (h CheckDueParcelsHandler) Claim(ctx context.Context, limit int, lease time.Duration) ([]DueCheck, error) {
	states, err := h.queue.Claim(ctx, limit, lease)
	if err != nil {
		return nil, err
	}
	type channelKey struct{ account, channel string }
	read := map[channelKey]DueCheck{}
	due := make([]DueCheck, len(states))
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

// Handle checks one claimed parcel and hands its outcome to the next group
// commit; it waits for that commit only when many outcomes are waiting (see
// outcomeLog). It returns an error wrapping ErrCheckFailed for a failed
// check (recorded like any other), and any other error when nothing is to
// be recorded (the channel could not be read, or ctx ended mid-call). A
// write that fails is the outcome log's to report.
func (h CheckDueParcelsHandler) Handle(ctx context.Context, d DueCheck) error {
	found, err := h.checker.check(ctx, d.Parcel, d.Channel, d.ChannelErr)
	if err != nil {
		return err
	}
	h.outcomes.record(ctx, found.change(d.Parcel.ID, h.checker.clock.Now()))
	return found.failed
}
