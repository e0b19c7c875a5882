package command

import (
	"context"

	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
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

// NewUpdateTrackingParcelHandler builds the edit of the client's fields.
func NewUpdateTrackingParcelHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[UpdateTrackingParcel] {
	return usecase.Command(UpdateTrackingParcelHandler{repo: repo, clock: clk}, obs)
}

// Handle applies the edit and publishes tracking_parcel.updated when
// something changed. An edit with problems of its own is refused before the
// parcel is looked up, whoever's it is.
func (h UpdateTrackingParcelHandler) Handle(ctx context.Context, cmd UpdateTrackingParcel) error {
	if err := domain.CheckEdit(cmd.RecipientName, cmd.RecipientEmail, cmd.RecipientPhone, cmd.ExternalData); err != nil {
		return err
	}
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, cmd.ID, func(p *domain.Parcel) ([]domain.Event, error) {
		if !p.BelongsTo(cmd.AccountID) {
			return nil, notYours()
		}
		changed, err := p.Edit(cmd.RecipientName, cmd.RecipientEmail, cmd.RecipientPhone, cmd.ExternalData, now)
		if !changed || err != nil {
			return nil, err
		}
		return []domain.Event{contract.TrackingParcelUpdated{TrackingParcelEvent: parcelEvent(p, now)}}, nil
	})
	return err
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

// NewDeleteTrackingParcelHandler builds the deletion of client-made parcels.
func NewDeleteTrackingParcelHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[DeleteTrackingParcel] {
	return usecase.Command(DeleteTrackingParcelHandler{repo: repo, clock: clk}, obs)
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
