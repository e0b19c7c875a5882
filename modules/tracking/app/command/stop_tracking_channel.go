package command

import (
	"context"

	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// StopTrackingChannel ends the checks of every parcel tracked through a
// channel that was deleted.
type StopTrackingChannel struct {
	AccountID string
	ChannelID string
}

// StopTrackingChannelHandler stops them.
type StopTrackingChannelHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewStopTrackingChannelHandler builds what stops a deleted channel's parcels.
func NewStopTrackingChannelHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[StopTrackingChannel] {
	return usecase.Command(StopTrackingChannelHandler{repo: repo, clock: clk}, obs)
}

// channelDeleted is the reason a stopped parcel shows; a check that finds
// the channel gone records the same.
const channelDeleted = "the shipping channel was deleted; tracking stopped"

// Handle stops each parcel in its own short transaction, with its
// tracking_parcel.updated event; one deleted meanwhile is passed over. Run
// twice, it changes nothing more.
func (h StopTrackingChannelHandler) Handle(ctx context.Context, cmd StopTrackingChannel) error {
	ids, err := h.repo.TrackedThrough(ctx, cmd.AccountID, cmd.ChannelID)
	if err != nil {
		return err
	}
	now := h.clock.Now()
	for _, id := range ids {
		_, err := h.repo.Update(ctx, id, func(p *domain.Parcel) ([]domain.Event, error) {
			version, status := p.Version(), p.Status()
			p.StopTracking(channelDeleted, now)
			return changeEvents(p, version, status, now), nil
		})
		if err != nil && !fault.Is(err, fault.KindNotFound) {
			return err
		}
	}
	return nil
}
