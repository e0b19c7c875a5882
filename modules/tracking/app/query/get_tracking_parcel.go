// Package query holds the tracking module's read use cases.
package query

import (
	"context"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/fault"
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

// NewGetTrackingParcelHandler returns the handler.
func NewGetTrackingParcelHandler(repo domain.Repository) GetTrackingParcelHandler {
	return GetTrackingParcelHandler{repo: repo}
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
