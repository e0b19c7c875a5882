package query

import (
	"context"
	"encoding/json"

	"shipd/platform/usecase"
)

// ListChannels asks for one page of an account's channels, newest first.
type ListChannels struct {
	AccountID string
	Provider  string // optional filter
	Status    string // optional filter
	Offset    int
	Limit     int
}

// ChannelPage is one page of records and the number of all matches.
type ChannelPage = usecase.Page[json.RawMessage]

// ChannelList is the read model of channels.
type ChannelList interface {
	List(ctx context.Context, q ListChannels) (ChannelPage, error)
}

// ListChannelsHandler reads the list read model.
type ListChannelsHandler struct {
	list ChannelList
}

// NewListChannelsHandler reads pages from the list read model.
func NewListChannelsHandler(list ChannelList, obs usecase.Observer) usecase.QueryHandler[ListChannels, ChannelPage] {
	return usecase.Query(ListChannelsHandler{list: list}, obs)
}

// Handle returns the page.
func (h ListChannelsHandler) Handle(ctx context.Context, q ListChannels) (ChannelPage, error) {
	return h.list.List(ctx, q)
}
