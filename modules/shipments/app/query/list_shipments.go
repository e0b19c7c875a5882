package query

import (
	"context"
	"encoding/json"
)

// ListShipments asks for one page of an account's shipments, newest first.
type ListShipments struct {
	AccountID string
	Status    string // optional filter
	ChannelID string // optional filter
	Search    string // reference number prefix or exact provider shipment id
	Offset    int
	Limit     int
}

// ShipmentPage is one page of summaries and the number of all matches.
type ShipmentPage struct {
	Records []json.RawMessage
	Total   int
}

// ShipmentList is the read model of shipments.
type ShipmentList interface {
	List(ctx context.Context, q ListShipments) (ShipmentPage, error)
}

// ListShipmentsHandler reads the list read model.
type ListShipmentsHandler struct {
	list ShipmentList
}

// NewListShipmentsHandler returns the handler.
func NewListShipmentsHandler(list ShipmentList) ListShipmentsHandler {
	return ListShipmentsHandler{list: list}
}

// Handle returns the page.
func (h ListShipmentsHandler) Handle(ctx context.Context, q ListShipments) (ShipmentPage, error) {
	return h.list.List(ctx, q)
}
