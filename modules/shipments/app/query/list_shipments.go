package query

import (
	"context"
	"encoding/json"

	"shipd/platform/usecase"
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
type ShipmentPage = usecase.Page[json.RawMessage]

// ShipmentList is the read model of shipments.
type ShipmentList interface {
	List(ctx context.Context, q ListShipments) (ShipmentPage, error)
}

// ListShipmentsHandler reads the list read model.
type ListShipmentsHandler struct {
	list ShipmentList
}

// NewListShipmentsHandler reads pages from the list read model.
func NewListShipmentsHandler(list ShipmentList, obs usecase.Observer) usecase.QueryHandler[ListShipments, ShipmentPage] {
	return usecase.Query(ListShipmentsHandler{list: list}, obs)
}

// Handle returns the page.
func (h ListShipmentsHandler) Handle(ctx context.Context, q ListShipments) (ShipmentPage, error) {
	return h.list.List(ctx, q)
}
