package query

import (
	"context"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// ChannelForUse asks for a channel of an account with its settings open.
type ChannelForUse struct {
	AccountID string
	ChannelID string
}

// ChannelForUseHandler serves the contract facade: a channel with its
// decrypted settings, for modules that call its carrier.
type ChannelForUseHandler struct {
	repo domain.Repository
}

// NewChannelForUseHandler reads channels from the repository, which opens
// their sealed settings.
func NewChannelForUseHandler(repo domain.Repository, obs usecase.Observer) usecase.QueryHandler[ChannelForUse, contract.ChannelAccess] {
	return usecase.Query(ChannelForUseHandler{repo: repo}, obs)
}

// Handle loads the channel and checks its owner.
func (h ChannelForUseHandler) Handle(ctx context.Context, q ChannelForUse) (contract.ChannelAccess, error) {
	ch, err := h.repo.Get(ctx, q.ChannelID)
	if err != nil {
		return contract.ChannelAccess{}, err
	}
	if !ch.BelongsTo(q.AccountID) {
		return contract.ChannelAccess{}, fault.Forbidden("This shipping channel belongs to another account.")
	}
	return contract.ChannelAccess{ID: ch.ID(), AccountID: ch.AccountID(), Name: ch.Name(), Provider: ch.Provider(),
		Status: string(ch.Status()), Settings: ch.Settings()}, nil
}
