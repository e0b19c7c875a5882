package adapters

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/channels/app/query"
)

// ChannelListReader answers list queries from channels.channel_list.
type ChannelListReader struct {
	db *sqlx.DB
}

// NewChannelListReader reads db's channels.channel_list; its answers lag the
// write model by as much as the projection does.
func NewChannelListReader(db *sqlx.DB) *ChannelListReader { return &ChannelListReader{db: db} }

var _ query.ChannelList = (*ChannelListReader)(nil)

// List returns one page, newest first, and the count of all matches.
func (r *ChannelListReader) List(ctx context.Context, q query.ListChannels) (query.ChannelPage, error) {
	const where = `account_id = $1 AND NOT deleted AND ($2 = '' OR provider = $2) AND ($3 = '' OR status = $3)`
	var page query.ChannelPage
	if err := r.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM channels.channel_list WHERE `+where,
		q.AccountID, q.Provider, q.Status); err != nil {
		return page, fmt.Errorf("counting channels: %w", err)
	}
	var records []json.RawMessage
	rows, err := r.db.QueryContext(ctx, `SELECT record FROM channels.channel_list WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, q.AccountID, q.Provider, q.Status, q.Limit, q.Offset)
	if err != nil {
		return page, fmt.Errorf("listing channels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rec []byte
		if err := rows.Scan(&rec); err != nil {
			return page, err
		}
		records = append(records, rec)
	}
	if records == nil {
		records = []json.RawMessage{}
	}
	page.Records = records
	return page, rows.Err()
}
