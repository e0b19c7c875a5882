package query

import (
	"context"
	"encoding/json"

	"shipd/platform/usecase"
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
type TrackingParcelPage = usecase.Page[json.RawMessage]

// TrackingParcelList is the read model of tracking parcels.
type TrackingParcelList interface {
	List(ctx context.Context, q ListTrackingParcels) (TrackingParcelPage, error)
}

// ListTrackingParcelsHandler reads the list read model.
type ListTrackingParcelsHandler struct {
	list TrackingParcelList
}

// NewListTrackingParcelsHandler reads pages from the list read model.
func NewListTrackingParcelsHandler(list TrackingParcelList, obs usecase.Observer) usecase.QueryHandler[ListTrackingParcels, TrackingParcelPage] {
	return usecase.Query(ListTrackingParcelsHandler{list: list}, obs)
}

// Handle returns the page.
func (h ListTrackingParcelsHandler) Handle(ctx context.Context, q ListTrackingParcels) (TrackingParcelPage, error) {
	return h.list.List(ctx, q)
}
