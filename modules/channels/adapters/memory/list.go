package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
)

// ChannelList answers list queries as the PostgreSQL list read model does
// once its projection has caught up: it is built from the events the
// repository published, not from the write model, so a change that
// publishes no event (or an event without the channel's state) is missing
// from the list here as it would be there.
type ChannelList struct {
	repo *Repository
}

// NewChannelList reads the events repo published.
func NewChannelList(repo *Repository) *ChannelList { return &ChannelList{repo: repo} }

var _ query.ChannelList = (*ChannelList)(nil)

// listRow is what the projection keeps of a channel: its newest event.
type listRow struct {
	event   contract.ChannelEvent
	deleted bool
}

// List returns one page, newest first (then by id, highest first), and
// the count of all matches.
func (l *ChannelList) List(_ context.Context, q query.ListChannels) (query.ChannelPage, error) {
	rows := map[string]listRow{}
	for _, e := range l.repo.Published() {
		ce, ok := e.(interface{ Channel() contract.ChannelEvent })
		if !ok {
			continue
		}
		ev := ce.Channel()
		id := ev.ShippingChannel.ID
		// The projection's version guard: an older event changes nothing.
		if cur, seen := rows[id]; seen && cur.event.Version >= ev.Version {
			continue
		}
		_, deleted := e.(contract.ShippingChannelDeleted)
		if cur, seen := rows[id]; seen {
			// created_at is written once, by the first event seen.
			ev.ShippingChannel.CreatedAt = cur.event.ShippingChannel.CreatedAt
		}
		rows[id] = listRow{event: ev, deleted: deleted}
	}
	var matches []contract.ChannelEvent
	for _, r := range rows {
		ch := r.event.ShippingChannel
		if r.deleted || r.event.AccountID != q.AccountID ||
			q.Provider != "" && ch.Provider != q.Provider || q.Status != "" && ch.Status != q.Status {
			continue
		}
		matches = append(matches, r.event)
	}
	slices.SortFunc(matches, func(a, b contract.ChannelEvent) int {
		if c := b.ShippingChannel.CreatedAt.Compare(a.ShippingChannel.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ShippingChannel.ID, a.ShippingChannel.ID)
	})
	page := query.ChannelPage{Total: len(matches), Records: []json.RawMessage{}}
	start := min(max(q.Offset, 0), len(matches))
	end := min(start+max(q.Limit, 0), len(matches))
	for _, ev := range matches[start:end] {
		rec, err := json.Marshal(ev.ShippingChannel.Record())
		if err != nil {
			return query.ChannelPage{}, err
		}
		page.Records = append(page.Records, rec)
	}
	return page, nil
}
