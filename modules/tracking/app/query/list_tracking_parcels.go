package query

import (
	"context"
	"encoding/json"
)

// ListTrackingParcels asks for one page of an account's tracking parcels,
// newest first.
type ListTrackingParcels struct {
	AccountID string
	Status    string // optional filter
	ChannelID string // optional filter
	Search    string // tracking number prefix
	Offset    int
	Limit     int
}

// TrackingParcelPage is one page of summaries and the number of all matches.
type TrackingParcelPage struct {
	Records []json.RawMessage
	Total   int
}

// TrackingParcelList is the read model of tracking parcels.
type TrackingParcelList interface {
	List(ctx context.Context, q ListTrackingParcels) (TrackingParcelPage, error)
}

// ListTrackingParcelsHandler reads the list read model.
type ListTrackingParcelsHandler struct {
	list TrackingParcelList
}

// NewListTrackingParcelsHandler returns the handler.
func NewListTrackingParcelsHandler(list TrackingParcelList) ListTrackingParcelsHandler {
	return ListTrackingParcelsHandler{list: list}
}

// Handle returns the page.
func (h ListTrackingParcelsHandler) Handle(ctx context.Context, q ListTrackingParcels) (TrackingParcelPage, error) {
	return h.list.List(ctx, q)
}
