package memory

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
)

// ShipmentList answers list queries from a Repository's shipments as the
// PostgreSQL list read model answers them once its projection has caught up:
// the account's shipments, filtered, newest first, each as its summary.
type ShipmentList struct {
	repo *Repository
}

// NewShipmentList reads repo.
func NewShipmentList(repo *Repository) *ShipmentList { return &ShipmentList{repo: repo} }

var _ query.ShipmentList = (*ShipmentList)(nil)

// List returns one page and the number of all matches. A search matches a
// reference number by prefix or a provider shipment id exactly.
func (l *ShipmentList) List(_ context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	page := query.ShipmentPage{Records: []json.RawMessage{}}
	states, err := l.repo.states()
	if err != nil {
		return page, err
	}
	var matches []json.RawMessage
	for _, st := range slices.Backward(states) {
		switch {
		case st.AccountID != q.AccountID,
			q.Status != "" && string(st.Status) != q.Status,
			q.ChannelID != "" && st.ChannelID != q.ChannelID,
			q.Search != "" && !strings.HasPrefix(st.ReferenceNumber, q.Search) && st.ProviderShipmentID != q.Search:
			continue
		}
		rec, err := json.Marshal(command.Record(st).Summary())
		if err != nil {
			return page, err
		}
		matches = append(matches, rec)
	}
	page.Total = len(matches)
	if q.Offset < len(matches) {
		page.Records = append(page.Records, matches[q.Offset:min(len(matches), q.Offset+q.Limit)]...)
	}
	return page, nil
}
