package query

import (
	"context"
	"encoding/json"

	"shipd/platform/usecase"
)

// ListPickups asks for one page of an account's pickups, newest first.
type ListPickups struct {
	AccountID string
	ChannelID string // optional filters
	Date      string
	Status    string
	Offset    int
	Limit     int
}

// ListManifests asks for one page of an account's manifests, newest first.
type ListManifests struct {
	AccountID string
	ChannelID string // optional filters
	Date      string
	Offset    int
	Limit     int
}

// Page is one page of records and the number of all matches.
type Page = usecase.Page[json.RawMessage]

// Lists are the module's list read models.
type Lists interface {
	Pickups(ctx context.Context, q ListPickups) (Page, error)
	Manifests(ctx context.Context, q ListManifests) (Page, error)
}

// ListPickupsHandler reads the pickup list.
type ListPickupsHandler struct{ lists Lists }

// NewListPickupsHandler reads pages from the list read model.
func NewListPickupsHandler(lists Lists, obs usecase.Observer) usecase.QueryHandler[ListPickups, Page] {
	return usecase.Query(ListPickupsHandler{lists: lists}, obs)
}

// Handle returns the page.
func (h ListPickupsHandler) Handle(ctx context.Context, q ListPickups) (Page, error) {
	return h.lists.Pickups(ctx, q)
}

// ListManifestsHandler reads the manifest list.
type ListManifestsHandler struct{ lists Lists }

// NewListManifestsHandler reads pages from the list read model.
func NewListManifestsHandler(lists Lists, obs usecase.Observer) usecase.QueryHandler[ListManifests, Page] {
	return usecase.Query(ListManifestsHandler{lists: lists}, obs)
}

// Handle returns the page.
func (h ListManifestsHandler) Handle(ctx context.Context, q ListManifests) (Page, error) {
	return h.lists.Manifests(ctx, q)
}
