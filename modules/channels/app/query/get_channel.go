// Package query holds the channel module's read use cases.
package query

import (
	"context"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// GetChannel asks for one channel of an account.
type GetChannel struct {
	AccountID string
	ID        string
}

// GetChannelHandler reads the write model, so a client sees its own write at
// once (the list trails it by the projection's lag).
type GetChannelHandler struct {
	repo domain.Repository
}

// NewGetChannelHandler reads channels from the repository.
func NewGetChannelHandler(repo domain.Repository, obs usecase.Observer) usecase.QueryHandler[GetChannel, contract.ShippingChannel] {
	return usecase.Query(GetChannelHandler{repo: repo}, obs)
}

// Handle returns the channel's record.
func (h GetChannelHandler) Handle(ctx context.Context, q GetChannel) (contract.ShippingChannel, error) {
	ch, err := h.repo.Get(ctx, q.ID)
	if err != nil {
		return contract.ShippingChannel{}, err
	}
	if !ch.BelongsTo(q.AccountID) {
		return contract.ShippingChannel{}, fault.Forbidden("This shipping channel belongs to another account.")
	}
	return contract.ShippingChannelSnapshot(ch.Snapshot()).Record(), nil
}
