package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"

	"shipd/modules/dispatch/app/query"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
)

// Lists answers list queries as the PostgreSQL list read models answer
// them once their projections have read every event: from the events the
// repositories published, each pickup and manifest as its newest event
// shows it (one still being ordered or created has none, and is not
// listed), the account's, filtered, newest first.
type Lists struct {
	pickups   *Pickups
	manifests *Manifests
}

// NewLists reads the events of pickups and manifests.
func NewLists(pickups *Pickups, manifests *Manifests) *Lists {
	return &Lists{pickups: pickups, manifests: manifests}
}

var _ query.Lists = (*Lists)(nil)

// listed is one row of a list: what it is filtered and ordered by, and its
// record.
type listed struct {
	id, accountID, channelID, date, status string
	version                                int
	createdAt                              time.Time
	record                                 any
}

// Pickups returns one page, newest first, and the count of all matches.
func (l *Lists) Pickups(_ context.Context, q query.ListPickups) (query.Page, error) {
	rows := newest(l.pickups.Published(), func(e domain.Event) (listed, bool) {
		var pe contract.PickupEvent
		switch e := e.(type) {
		case contract.PickupCreated:
			pe = e.PickupEvent
		case contract.PickupUnconfirmed:
			pe = e.PickupEvent
		case contract.PickupCancelled:
			pe = e.PickupEvent
		default:
			return listed{}, false
		}
		p := pe.Pickup
		return listed{p.ID, pe.AccountID, p.ShippingChannelID, p.Date, p.Status, pe.Version, p.CreatedAt, p.Record()}, true
	})
	return page(rows, func(r listed) bool {
		return r.accountID == q.AccountID && (q.ChannelID == "" || r.channelID == q.ChannelID) &&
			(q.Date == "" || r.date == q.Date) && (q.Status == "" || r.status == q.Status)
	}, q.Offset, q.Limit)
}

// Manifests returns one page, newest first, and the count of all matches.
func (l *Lists) Manifests(_ context.Context, q query.ListManifests) (query.Page, error) {
	rows := newest(l.manifests.Published(), func(e domain.Event) (listed, bool) {
		mc, ok := e.(contract.ManifestCreated)
		if !ok {
			return listed{}, false
		}
		m := mc.Manifest
		return listed{m.ID, mc.AccountID, m.ShippingChannelID, m.Date, m.Status, mc.Version, m.CreatedAt, m.Record()}, true
	})
	return page(rows, func(r listed) bool {
		return r.accountID == q.AccountID && (q.ChannelID == "" || r.channelID == q.ChannelID) && (q.Date == "" || r.date == q.Date)
	}, q.Offset, q.Limit)
}

// newest is each item's row as its event of the highest version shows it.
func newest(events []domain.Event, row func(domain.Event) (listed, bool)) []listed {
	byID := map[string]listed{}
	for _, e := range events {
		r, ok := row(e)
		if !ok {
			continue
		}
		if kept, seen := byID[r.id]; !seen || kept.version < r.version {
			byID[r.id] = r
		}
	}
	out := make([]listed, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	return out
}

// page is the rows match keeps, newest first (by creation, then id), from
// offset, at most limit, as records.
func page(rows []listed, match func(listed) bool, offset, limit int) (query.Page, error) {
	rows = slices.DeleteFunc(rows, func(r listed) bool { return !match(r) })
	slices.SortFunc(rows, func(a, b listed) int {
		return cmp.Or(b.createdAt.Compare(a.createdAt), cmp.Compare(b.id, a.id))
	})
	out := query.Page{Records: []json.RawMessage{}, Total: len(rows)}
	if offset >= len(rows) {
		return out, nil
	}
	for _, r := range rows[offset:min(len(rows), offset+max(limit, 0))] {
		rec, err := json.Marshal(r.record)
		if err != nil {
			return out, err
		}
		out.Records = append(out.Records, rec)
	}
	return out, nil
}
