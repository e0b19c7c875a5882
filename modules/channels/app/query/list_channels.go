package query

import (
	"context"
	"encoding/json"
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
type ChannelPage struct {
	Records []json.RawMessage
	Total   int
}

// ChannelList is the read model of channels.
type ChannelList interface {
	List(ctx context.Context, q ListChannels) (ChannelPage, error)
}

// ListChannelsHandler reads the list read model.
type ListChannelsHandler struct {
	list ChannelList
}

// NewListChannelsHandler returns the handler.
func NewListChannelsHandler(list ChannelList) ListChannelsHandler {
	return ListChannelsHandler{list: list}
}

// Handle returns the page.
func (h ListChannelsHandler) Handle(ctx context.Context, q ListChannels) (ChannelPage, error) {
	return h.list.List(ctx, q)
}
