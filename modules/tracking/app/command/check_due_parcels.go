package command

import (
	"context"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// DueCheck is a parcel claimed for its scheduled check, as it was when
// claimed, with its channel as the channels facade answered then.
type DueCheck struct {
	Parcel domain.Stored
	// Channel is shared by the claim's parcels of one channel: read only.
	Channel    channels.ChannelAccess
	ChannelErr error
}

// CheckDueParcelsHandler makes the scheduled checks of parcels the worker
// claimed (query.ClaimDueChecks): it asks the carrier about each outside any
// transaction and records the answers of many checks in one short
// transaction (outcomeLog). A refresh is CheckTrackingParcelHandler, which
// records its one answer before it replies.
type CheckDueParcelsHandler struct {
	checker  checker
	outcomes *outcomeLog
}

// NewCheckDueParcelsHandler needs the carrier registry, the time one
// carrier call may take, and the queue whose leases the outcomes end.
func NewCheckDueParcelsHandler(repo domain.Repository, queue CheckQueue, providers *carrier.Registry, clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[DueCheck] {
	return usecase.Command(newCheckDueParcels(repo, queue, providers, clk, timeout), obs)
}

func newCheckDueParcels(repo domain.Repository, queue CheckQueue, providers *carrier.Registry, clk clock.Clock, timeout time.Duration) CheckDueParcelsHandler {
	if repo == nil || queue == nil {
		panic("tracking: scheduled checks need the repository and the check queue")
	}
	return CheckDueParcelsHandler{checker: newChecker(providers, clk, timeout), outcomes: &outcomeLog{repo: repo, queue: queue}}
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
