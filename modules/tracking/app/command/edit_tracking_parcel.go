package command

import (
	"context"

	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
)

// UpdateTrackingParcel changes the client's fields; nil leaves one as it is.
type UpdateTrackingParcel struct {
	AccountID      string
	ID             string
	RecipientName  *string
	RecipientEmail *string
	RecipientPhone *string
	ExternalData   map[string]any
}

// UpdateTrackingParcelHandler edits tracking parcels.
type UpdateTrackingParcelHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewUpdateTrackingParcelHandler returns the handler.
func NewUpdateTrackingParcelHandler(repo domain.Repository, clk clock.Clock) UpdateTrackingParcelHandler {
	return UpdateTrackingParcelHandler{repo: repo, clock: clk}
}

// Handle applies the edit and publishes tracking_parcel.updated when
// something changed.
func (h UpdateTrackingParcelHandler) Handle(ctx context.Context, cmd UpdateTrackingParcel) (contract.Detail, error) {
	now := h.clock.Now()
	p, err := h.repo.Update(ctx, cmd.ID, func(p *domain.Parcel) ([]domain.Event, error) {
		if !p.BelongsTo(cmd.AccountID) {
			return nil, notYours()
		}
		if !p.Edit(cmd.RecipientName, cmd.RecipientEmail, cmd.RecipientPhone, cmd.ExternalData, now) {
			return nil, nil
		}
		return []domain.Event{contract.TrackingParcelUpdated{TrackingParcelEvent: parcelEvent(p, now)}}, nil
	})
	if err != nil {
		return contract.Detail{}, err
	}
	return Detail(p), nil
}

// DeleteTrackingParcel stops tracking a parcel the client created.
type DeleteTrackingParcel struct {
	AccountID string
	ID        string
}

// DeleteTrackingParcelHandler deletes tracking parcels.
type DeleteTrackingParcelHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewDeleteTrackingParcelHandler returns the handler.
func NewDeleteTrackingParcelHandler(repo domain.Repository, clk clock.Clock) DeleteTrackingParcelHandler {
	return DeleteTrackingParcelHandler{repo: repo, clock: clk}
}

// Handle deletes the parcel and its status updates; a shipment's parcel is refused.
func (h DeleteTrackingParcelHandler) Handle(ctx context.Context, cmd DeleteTrackingParcel) error {
	now := h.clock.Now()
	return h.repo.Delete(ctx, cmd.ID, func(p *domain.Parcel) ([]domain.Event, error) {
		if !p.BelongsTo(cmd.AccountID) {
			return nil, notYours()
		}
		if err := p.CheckDelete(); err != nil {
			return nil, err
		}
		p.Touch(now)
		return []domain.Event{contract.TrackingParcelDeleted{TrackingParcelEvent: parcelEvent(p, now)}}, nil
	})
}

func notYours() error {
	return fault.Forbidden("This tracking parcel belongs to another account.")
}
