// Package query holds the shipments module's read use cases.
package query

import (
	"context"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

var errForeign = fault.Forbidden("This shipment belongs to another account.")

// GetShipment asks for one shipment of an account.
type GetShipment struct {
	AccountID string
	ID        string
}

// GetShipmentHandler reads the write model, so a client sees its own write
// at once.
type GetShipmentHandler struct {
	repo domain.Repository
}

// NewGetShipmentHandler reads shipments from the repository.
func NewGetShipmentHandler(repo domain.Repository, obs usecase.Observer) usecase.QueryHandler[GetShipment, contract.Shipment] {
	return usecase.Query(GetShipmentHandler{repo: repo}, obs)
}

// Handle returns the shipment's record.
func (h GetShipmentHandler) Handle(ctx context.Context, q GetShipment) (contract.Shipment, error) {
	sh, err := h.repo.Get(ctx, q.ID)
	if err != nil {
		return contract.Shipment{}, err
	}
	if !sh.BelongsTo(q.AccountID) {
		return contract.Shipment{}, errForeign
	}
	return command.Record(sh.Stored()), nil
}

// GetLabel asks for the merged label of one shipment of an account.
type GetLabel struct {
	AccountID string
	ID        string
}

// ShipmentLabel is a shipment's merged label.
type ShipmentLabel struct {
	Shipment contract.Shipment
	Label    domain.Label
}

// GetLabelHandler returns the merged label of a shipment.
type GetLabelHandler struct {
	repo domain.Repository
}

// NewGetLabelHandler reads labels from the repository.
func NewGetLabelHandler(repo domain.Repository, obs usecase.Observer) usecase.QueryHandler[GetLabel, ShipmentLabel] {
	return usecase.Query(GetLabelHandler{repo: repo}, obs)
}

// Handle returns the label, or 404 label_not_available before it exists.
func (h GetLabelHandler) Handle(ctx context.Context, q GetLabel) (ShipmentLabel, error) {
	sh, err := h.repo.Get(ctx, q.ID)
	if err != nil {
		return ShipmentLabel{}, err
	}
	if !sh.BelongsTo(q.AccountID) {
		return ShipmentLabel{}, errForeign
	}
	label, err := h.repo.Label(ctx, q.ID)
	if err != nil {
		return ShipmentLabel{}, err
	}
	if label == nil {
		return ShipmentLabel{}, &fault.Error{Kind: fault.KindNotFound, Code: "label_not_available", Message: labelMissing(sh)}
	}
	return ShipmentLabel{Shipment: command.Record(sh.Stored()), Label: *label}, nil
}

// labelMissing says why a shipment has no label yet, and what comes next.
func labelMissing(sh *domain.Shipment) string {
	switch st := sh.Stored(); {
	case sh.AwaitsLabel():
		return "The label is not available yet: the carrier holds this shipment (" + st.ProviderShipmentID + ") and its label is being fetched; try again shortly."
	case sh.HeldByCarrier() && st.LabelGivenUp:
		return "The label is not available: the carrier holds this shipment (" + st.ProviderShipmentID + "), but its label could not be fetched (see the shipment's errors); POST /v1/shipments/" + st.ID + "/label/retry tries again."
	default:
		return "The label is not available: the carrier has not created this shipment (status " + string(sh.Status()) + ")."
	}
}
