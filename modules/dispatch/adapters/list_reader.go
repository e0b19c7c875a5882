package adapters

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/dispatch/app/query"
)

// ListReader answers list queries from dispatch.pickup_list and
// dispatch.manifest_list; its answers lag the write model by as much as the
// projections do.
type ListReader struct {
	db *sqlx.DB
}

// NewListReader reads db's dispatch lists.
func NewListReader(db *sqlx.DB) *ListReader { return &ListReader{db: db} }

var _ query.Lists = (*ListReader)(nil)

// Pickups returns one page, newest first, and the count of all matches.
func (r *ListReader) Pickups(ctx context.Context, q query.ListPickups) (query.Page, error) {
	const where = `account_id = $1 AND ($2 = '' OR shipping_channel_id = $2) AND ($3 = '' OR date = $3) AND ($4 = '' OR status = $4)`
	return r.page(ctx, "dispatch.pickup_list", where, q.Offset, q.Limit, q.AccountID, q.ChannelID, q.Date, q.Status)
}

// Manifests returns one page, newest first, and the count of all matches.
func (r *ListReader) Manifests(ctx context.Context, q query.ListManifests) (query.Page, error) {
	const where = `account_id = $1 AND ($2 = '' OR shipping_channel_id = $2) AND ($3 = '' OR date = $3)`
	return r.page(ctx, "dispatch.manifest_list", where, q.Offset, q.Limit, q.AccountID, q.ChannelID, q.Date)
}

func (r *ListReader) page(ctx context.Context, table, where string, offset, limit int, args ...any) (query.Page, error) {
	var page query.Page
	if err := r.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM `+table+` WHERE `+where, args...); err != nil {
		return page, fmt.Errorf("counting %s: %w", table, err)
	}
	n := len(args)
	var records [][]byte
	if err := r.db.SelectContext(ctx, &records, `SELECT record FROM `+table+` WHERE `+where+
		fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, n+1, n+2), append(args, limit, offset)...); err != nil {
		return page, fmt.Errorf("listing %s: %w", table, err)
	}
	page.Records = make([]json.RawMessage, len(records))
	for i, rec := range records {
		page.Records[i] = rec
	}
	return page, nil
}
