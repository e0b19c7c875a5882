package query

import (
	"context"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/fault"
)

// ChannelForUseHandler serves the contract facade: a channel with its
// decrypted settings, for modules that call its carrier.
type ChannelForUseHandler struct {
	repo domain.Repository
}

// NewChannelForUseHandler returns the handler.
func NewChannelForUseHandler(repo domain.Repository) ChannelForUseHandler {
	return ChannelForUseHandler{repo: repo}
}

// Handle loads the channel and checks its owner.
func (h ChannelForUseHandler) Handle(ctx context.Context, accountID, channelID string) (contract.ChannelAccess, error) {
	ch, err := h.repo.Get(ctx, channelID)
	if err != nil {
		return contract.ChannelAccess{}, err
	}
	if !ch.BelongsTo(accountID) {
		return contract.ChannelAccess{}, fault.Forbidden("This shipping channel belongs to another account.")
	}
	return contract.ChannelAccess{ID: ch.ID(), AccountID: ch.AccountID(), Name: ch.Name(), Provider: ch.Provider(),
		Status: string(ch.Status()), Settings: ch.Settings()}, nil
}
