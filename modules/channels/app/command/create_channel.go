package command

import (
	"context"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/ids"
)

// CreateChannel asks for a new channel of an account.
type CreateChannel struct {
	AccountID   string
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

// NewCreateChannelHandler returns the handler.
func NewCreateChannelHandler(repo domain.Repository, providers *carrier.Registry, clk clock.Clock) CreateChannelHandler {
	return CreateChannelHandler{repo: repo, providers: providers, clock: clk}
}

// Handle checks the request as a whole (every bad field reported at once),
// then stores the channel and publishes shipping_channel.created.
func (h CreateChannelHandler) Handle(ctx context.Context, cmd CreateChannel) (contract.ShippingChannel, error) {
	errs := fault.FieldErrors{}
	if p := domain.NameProblem(cmd.Name); p != "" {
		errs.Add("name", p)
	}
	var secretKeys map[string]bool
	if p, ok := provider(h.providers, cmd.Provider, errs); ok {
		checkSettings(p.Info(), cmd.Settings, errs)
		secretKeys = p.Info().SecretKeys()
	}
	if err := errs.Err(); err != nil {
		return contract.ShippingChannel{}, err
	}
	now := h.clock.Now()
	ch, err := domain.NewChannel(ids.NewAt(ids.ShippingChannel, now), cmd.AccountID, cmd.Name, cmd.Description, cmd.Provider, cmd.Settings, secretKeys, now)
	if err != nil {
		return contract.ShippingChannel{}, err
	}
	if err := h.repo.Add(ctx, ch, contract.ShippingChannelCreated{ChannelEvent: channelEvent(ch, now)}); err != nil {
		return contract.ShippingChannel{}, err
	}
	return Record(ch), nil
}
