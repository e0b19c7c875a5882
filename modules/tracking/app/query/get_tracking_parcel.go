// Package query holds the tracking module's read use cases.
package query

import (
	"context"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// GetTrackingParcel asks for one of the account's tracking parcels.
type GetTrackingParcel struct {
	AccountID string
	ID        string
}

// GetTrackingParcelHandler reads the write model, so a client reads its own
// writes at once.
type GetTrackingParcelHandler struct {
	repo domain.Repository
}

// NewGetTrackingParcelHandler reads tracking parcels from the repository.
func NewGetTrackingParcelHandler(repo domain.Repository, obs usecase.Observer) usecase.QueryHandler[GetTrackingParcel, contract.Detail] {
	return usecase.Query(GetTrackingParcelHandler{repo: repo}, obs)
}

// Handle returns the record with its status updates, newest first.
func (h GetTrackingParcelHandler) Handle(ctx context.Context, q GetTrackingParcel) (contract.Detail, error) {
	p, err := h.repo.Get(ctx, q.ID)
	if err != nil {
		return contract.Detail{}, err
	}
	if !p.BelongsTo(q.AccountID) {
		return contract.Detail{}, fault.Forbidden("This tracking parcel belongs to another account.")
	}
	return command.Detail(p), nil
}
