package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/app/query"
)

// ShipmentListReader answers list queries from shipments.shipment_list.
type ShipmentListReader struct {
	db *sqlx.DB
}

// NewShipmentListReader returns the reader.
func NewShipmentListReader(db *sqlx.DB) *ShipmentListReader { return &ShipmentListReader{db: db} }

var _ query.ShipmentList = (*ShipmentListReader)(nil)

const listWhere = `account_id = $1 AND NOT deleted AND ($2 = '' OR status = $2) AND ($3 = '' OR channel_id = $3)
	AND ($4 = '' OR reference_number LIKE $5 OR provider_shipment_id = $4)`

// List returns one page, newest first. The page's ids are found on the
// index alone and then joined to their records (a deferred join), and the
// total comes from the counters unless a search narrows it.
func (r *ShipmentListReader) List(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	prefix := escapeLike(q.Search) + "%"
	args := []any{q.AccountID, q.Status, q.ChannelID, q.Search, prefix}
	var page query.ShipmentPage
	var err error
	if q.Search == "" {
		err = r.db.GetContext(ctx, &page.Total, `SELECT coalesce(sum(n), 0) FROM shipments.shipment_counts
			WHERE account_id = $1 AND ($2 = '' OR status = $2) AND ($3 = '' OR channel_id = $3)`, q.AccountID, q.Status, q.ChannelID)
	} else {
		err = r.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM shipments.shipment_list WHERE `+listWhere, args...)
	}
	if err != nil {
		return page, fmt.Errorf("counting shipments: %w", err)
	}
	rows, err := r.db.QueryContext(ctx, `
		SELECT l.record FROM shipments.shipment_list l
		JOIN (SELECT id, created_at FROM shipments.shipment_list WHERE `+listWhere+`
		      ORDER BY created_at DESC, id DESC LIMIT $6 OFFSET $7) p ON p.id = l.id
		ORDER BY p.created_at DESC, p.id DESC`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return page, fmt.Errorf("listing shipments: %w", err)
	}
	defer rows.Close()
	page.Records = []json.RawMessage{}
	for rows.Next() {
		var rec []byte
		if err := rows.Scan(&rec); err != nil {
			return page, err
		}
		page.Records = append(page.Records, rec)
	}
	return page, rows.Err()
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
