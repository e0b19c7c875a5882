package command

import (
	"context"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

var errForeign = fault.Forbidden("This shipment belongs to another account.")

// UpdateShipment changes what may change after creation; nil is unchanged.
type UpdateShipment struct {
	AccountID       string
	ID              string
	ReferenceNumber *string
	Metadata        map[string]any
	EnableTracking  *bool
}

// UpdateShipmentHandler applies edits.
type UpdateShipmentHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewUpdateShipmentHandler builds the edit of a stored shipment.
func NewUpdateShipmentHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[UpdateShipment] {
	return usecase.Command(UpdateShipmentHandler{repo: repo, clock: clk}, obs)
}

// Handle saves the edit and publishes shipment.updated when anything
// changed. An edit with problems of its own is refused before the shipment
// is looked up, whoever's it is.
func (h UpdateShipmentHandler) Handle(ctx context.Context, cmd UpdateShipment) error {
	if err := domain.CheckEdit(cmd.ReferenceNumber, cmd.Metadata); err != nil {
		return err
	}
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, cmd.ID, func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.BelongsTo(cmd.AccountID) {
			return nil, errForeign
		}
		changed, err := sh.Edit(cmd.ReferenceNumber, cmd.Metadata, cmd.EnableTracking, now)
		if !changed || err != nil {
			return nil, err
		}
		return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}, nil
	})
	return err
}

// DeleteShipment asks to delete a shipment the carrier did not create.
type DeleteShipment struct {
	AccountID string
	ID        string
}

// DeleteShipmentHandler deletes shipments.
type DeleteShipmentHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewDeleteShipmentHandler builds the deletion of shipments no carrier holds.
func NewDeleteShipmentHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[DeleteShipment] {
	return usecase.Command(DeleteShipmentHandler{repo: repo, clock: clk}, obs)
}

// Handle deletes the shipment and publishes shipment.deleted. A booking in
// flight (leased by a worker) cannot be deleted: the repository refuses.
func (h DeleteShipmentHandler) Handle(ctx context.Context, cmd DeleteShipment) error {
	now := h.clock.Now()
	return h.repo.Delete(ctx, cmd.ID, func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.BelongsTo(cmd.AccountID) {
			return nil, errForeign
		}
		if err := sh.CheckDelete(); err != nil {
			return nil, err
		}
		sh.Touch(now)
		return []domain.Event{contract.ShipmentDeleted{ShipmentEvent: shipmentEvent(sh, now)}}, nil
	})
}
