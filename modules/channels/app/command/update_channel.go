package command

import (
	"context"
	"reflect"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// UpdateChannel changes the fields that are set; nil means unchanged.
type UpdateChannel struct {
	AccountID   string
	ID          string
	Name        *string
	Description *string
	// Settings replaces the settings (PUT) or, with MergeSettings, is merged
	// into them (PATCH; a null value removes a key). Nil leaves them alone.
	Settings      map[string]any
	MergeSettings bool
	Status        *string
}

// UpdateChannelHandler applies updates.
type UpdateChannelHandler struct {
	repo      domain.Repository
	providers *carrier.Registry
	clock     clock.Clock
}

// NewUpdateChannelHandler needs the registry for each provider's settings.
func NewUpdateChannelHandler(repo domain.Repository, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[UpdateChannel] {
	return usecase.Command(UpdateChannelHandler{repo: repo, providers: providers, clock: clk}, obs)
}

// Handle saves the change and publishes shipping_channel.updated (and
// status_changed when the status moved). An update that changes nothing
// publishes nothing. A description that is too long is refused before the
// channel is looked up, whoever's it is, as the API always has.
func (h UpdateChannelHandler) Handle(ctx context.Context, cmd UpdateChannel) error {
	if cmd.Description != nil {
		if err := domain.CheckDescription(*cmd.Description); err != nil {
			return err
		}
	}
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, cmd.ID, func(ch *domain.Channel) ([]domain.Event, error) {
		if err := owned(ch, cmd.AccountID); err != nil {
			return nil, err
		}
		before, settingsBefore := ch.Snapshot(), ch.Settings()
		err := ch.Edit(domain.Edit{Name: cmd.Name, Description: cmd.Description, Settings: cmd.Settings,
			MergeSettings: cmd.MergeSettings, Status: cmd.Status}, h.providers)
		if err != nil {
			return nil, err
		}
		if reflect.DeepEqual(before, ch.Snapshot()) && reflect.DeepEqual(settingsBefore, ch.Settings()) {
			return nil, nil
		}
		ch.Touch(now)
		events := []domain.Event{contract.ShippingChannelUpdated{ChannelEvent: channelEvent(ch, now)}}
		return withStatusChange(events, ch, domain.Status(before.Status), now), nil
	})
	return err
}
