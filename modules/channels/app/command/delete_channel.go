package command

import (
	"context"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// DeleteChannel asks to delete a channel.
type DeleteChannel struct {
	AccountID string
	ID        string
}

// DeleteChannelHandler deletes channels. Shipments made through a deleted
// channel keep their own copy of what they need.
type DeleteChannelHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewDeleteChannelHandler builds the deletion of an account's channels.
func NewDeleteChannelHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[DeleteChannel] {
	return usecase.Command(DeleteChannelHandler{repo: repo, clock: clk}, obs)
}

// Handle deletes the channel and publishes shipping_channel.deleted with its
// last record (a version past the last, so readers drop it); the tracking
// of its parcels stops with it.
func (h DeleteChannelHandler) Handle(ctx context.Context, cmd DeleteChannel) error {
	now := h.clock.Now()
	return h.repo.Delete(ctx, cmd.ID, func(ch *domain.Channel) ([]domain.Event, error) {
		if err := owned(ch, cmd.AccountID); err != nil {
			return nil, err
		}
		ch.Deleted(now)
		return []domain.Event{contract.ShippingChannelDeleted{ChannelEvent: channelEvent(ch, now)}}, nil
	})
}
