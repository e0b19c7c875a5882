// Package query holds the dispatch module's read use cases.
package query

import (
	"context"

	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/usecase"
)

// GetPickup asks for one pickup of an account.
type GetPickup struct {
	AccountID string
	ID        string
}

// GetPickupHandler reads the write model, so a client sees its own order
// at once.
type GetPickupHandler struct {
	pickups pickup.Repository
}

// NewGetPickupHandler reads pickups from the repository.
func NewGetPickupHandler(pickups pickup.Repository, obs usecase.Observer) usecase.QueryHandler[GetPickup, contract.Pickup] {
	return usecase.Query(GetPickupHandler{pickups: pickups}, obs)
}

// Handle returns the pickup's record.
func (h GetPickupHandler) Handle(ctx context.Context, q GetPickup) (contract.Pickup, error) {
	p, err := h.pickups.Get(ctx, q.ID)
	if err != nil {
		return contract.Pickup{}, err
	}
	if !p.BelongsTo(q.AccountID) {
		return contract.Pickup{}, command.NotYourPickup()
	}
	return command.PickupSnapshot(p.Stored()).Record(), nil
}
