package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"shipd/modules/tracking/app/query"
	"shipd/platform/postgres"
)

// ParcelListReader answers list queries from tracking.parcel_list.
type ParcelListReader struct {
	db *sqlx.DB
}

// NewParcelListReader reads db's tracking.parcel_list; its answers lag the
// write model by as much as the projection does.
func NewParcelListReader(db *sqlx.DB) *ParcelListReader { return &ParcelListReader{db: db} }

var _ query.TrackingParcelList = (*ParcelListReader)(nil)

// List returns one page, newest first, and the number of all matches. Each
// filter has an index in list order; the page's ids are found from the index
// alone (a deferred join), then only the page's rows are read.
func (r *ParcelListReader) List(ctx context.Context, q query.ListTrackingParcels) (query.TrackingParcelPage, error) {
	page := query.TrackingParcelPage{Records: []json.RawMessage{}}
	where := []string{"account_id = $1", "NOT deleted"}
	args := []any{q.AccountID}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if q.Status != "" {
		add("status = ?", q.Status)
	}
	if q.ChannelID != "" {
		add("channel_id = ?", q.ChannelID)
	}
	if q.Search != "" {
		add(`tracking_number LIKE ?`, postgres.EscapeLike(q.Search)+"%")
	}
	cond := strings.Join(where, " AND ")
	if err := r.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM tracking.parcel_list WHERE `+cond, args...); err != nil {
		return page, fmt.Errorf("counting tracking parcels: %w", err)
	}
	if q.Offset >= page.Total {
		return page, nil
	}
	n := len(args)
	rows, err := r.db.QueryContext(ctx, `SELECT l.record FROM tracking.parcel_list l
		JOIN (SELECT id, created_at FROM tracking.parcel_list WHERE `+cond+`
		      ORDER BY created_at DESC, id DESC LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2)+`) p ON l.id = p.id
		ORDER BY p.created_at DESC, p.id DESC`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return page, fmt.Errorf("listing tracking parcels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rec []byte
		if err := rows.Scan(&rec); err != nil {
			return page, err
		}
		page.Records = append(page.Records, rec)
	}
	return page, rows.Err()
}
