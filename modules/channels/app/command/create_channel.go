package command

import (
	"context"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// CreateChannel asks for a new channel of an account, under the id the
// caller chose (it reads the channel back by it).
type CreateChannel struct {
	AccountID   string
	ChannelID   string
	Name        string
	Description string
	Provider    string
	Settings    map[string]any
}

// CreateChannelHandler creates channels in draft.
type CreateChannelHandler struct {
	repo      domain.Repository
	providers *carrier.Registry
	clock     clock.Clock
}

// NewCreateChannelHandler needs the registry for each provider's settings.
func NewCreateChannelHandler(repo domain.Repository, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[CreateChannel] {
	return usecase.Command(CreateChannelHandler{repo: repo, providers: providers, clock: clk}, obs)
}

// Handle stores the channel, if the domain takes it (every bad field
// reported at once), and publishes shipping_channel.created.
func (h CreateChannelHandler) Handle(ctx context.Context, cmd CreateChannel) error {
	now := h.clock.Now()
	ch, err := domain.NewChannel(cmd.ChannelID, cmd.AccountID, cmd.Name, cmd.Description, cmd.Provider, cmd.Settings, h.providers, now)
	if err != nil {
		return err
	}
	return h.repo.Add(ctx, ch, contract.ShippingChannelCreated{ChannelEvent: channelEvent(ch, now)})
}
