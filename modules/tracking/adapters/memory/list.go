package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/domain"
)

// ParcelList answers list queries from a Repository's parcels as the
// PostgreSQL list read model answers them once its projection has caught
// up: the account's parcels, filtered, newest first, each as its summary.
type ParcelList struct {
	repo *Repository
}

// NewParcelList reads repo.
func NewParcelList(repo *Repository) *ParcelList { return &ParcelList{repo: repo} }

var _ query.TrackingParcelList = (*ParcelList)(nil)

// List returns one page and the number of all matches. A search matches a
// tracking number by prefix.
func (l *ParcelList) List(_ context.Context, q query.ListTrackingParcels) (query.TrackingParcelPage, error) {
	page := query.TrackingParcelPage{Records: []json.RawMessage{}}
	states, err := l.repo.states()
	if err != nil {
		return page, err
	}
	states = slices.DeleteFunc(states, func(st domain.Stored) bool {
		return st.AccountID != q.AccountID ||
			q.Status != "" && string(st.Status) != q.Status ||
			q.ChannelID != "" && st.ChannelID != q.ChannelID ||
			!strings.HasPrefix(st.TrackingNumber, q.Search)
	})
	slices.SortFunc(states, func(a, b domain.Stored) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	page.Total = len(states)
	if q.Offset >= len(states) {
		return page, nil
	}
	for _, st := range states[q.Offset:min(len(states), q.Offset+q.Limit)] {
		rec, err := json.Marshal(command.Record(st).Summary())
		if err != nil {
			return page, err
		}
		page.Records = append(page.Records, rec)
	}
	return page, nil
}
