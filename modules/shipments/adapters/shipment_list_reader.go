package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/app/query"
	"shipd/platform/postgres"
)

// ShipmentListReader answers list queries from shipments.shipment_list.
type ShipmentListReader struct {
	db *sqlx.DB
}

// NewShipmentListReader returns the reader.
func NewShipmentListReader(db *sqlx.DB) *ShipmentListReader { return &ShipmentListReader{db: db} }

var _ query.ShipmentList = (*ShipmentListReader)(nil)

// List returns one page, newest first (highest seq first), and the number of
// all matches. Three shapes, each with a plan of its own:
//   - no filter: the page's first seq is computed from the account's last seq
//     and the tombstones above it, so page 5,000 costs what page 1 costs;
//   - status or channel filter: the filter's (…, seq DESC) index with OFFSET;
//   - search: the matches are found first (reference prefix index, provider
//     id index), then sorted; they are few by nature.
func (r *ShipmentListReader) List(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	switch {
	case q.Search != "":
		return r.search(ctx, q)
	case q.Status == "" && q.ChannelID == "":
		return r.unfiltered(ctx, q)
	default:
		return r.filtered(ctx, q)
	}
}

func (r *ShipmentListReader) unfiltered(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	page := query.ShipmentPage{Records: []json.RawMessage{}}
	total, err := r.total(ctx, q)
	if err != nil || q.Offset >= total {
		page.Total = total
		return page, err
	}
	page.Total = total
	var last int64
	if err := r.db.GetContext(ctx, &last, `SELECT coalesce(max(last_seq), 0) FROM shipments.shipment_list_seq WHERE account_id = $1`, q.AccountID); err != nil {
		return page, err
	}
	// The live row q.Offset places below the newest has the highest seq s
	// with exactly q.Offset live rows above it: s = last - offset - (tombstones above s).
	start := last - int64(q.Offset)
	for range 64 {
		var gaps int64
		if err := r.db.GetContext(ctx, &gaps, `SELECT count(*) FROM shipments.shipment_list WHERE account_id = $1 AND deleted AND seq > $2`,
			q.AccountID, start); err != nil {
			return page, err
		}
		next := last - int64(q.Offset) - gaps
		if next == start {
			break
		}
		start = next
	}
	return page, r.records(ctx, &page, `SELECT record FROM shipments.shipment_list
		WHERE account_id = $1 AND NOT deleted AND seq <= $2 ORDER BY seq DESC LIMIT $3`, q.AccountID, start, q.Limit)
}

func (r *ShipmentListReader) filtered(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	page := query.ShipmentPage{Records: []json.RawMessage{}}
	var err error
	if page.Total, err = r.total(ctx, q); err != nil {
		return page, err
	}
	where, args := filters(q)
	// A deferred join: the page's seqs come from the filter's index alone
	// (an index-only scan), then only the page's rows are read.
	return page, r.records(ctx, &page, `SELECT l.record FROM shipments.shipment_list l
		JOIN (SELECT seq FROM shipments.shipment_list WHERE `+where+` ORDER BY seq DESC LIMIT $`+itoa(len(args)+1)+` OFFSET $`+itoa(len(args)+2)+`) p
		ON l.account_id = $1 AND l.seq = p.seq ORDER BY p.seq DESC`, append(args, q.Limit, q.Offset)...)
}

func (r *ShipmentListReader) search(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	page := query.ShipmentPage{Records: []json.RawMessage{}}
	where, args := filters(q)
	args = append(args, postgres.EscapeLike(q.Search)+"%", q.Search)
	n := len(args)
	matches := `WITH m AS MATERIALIZED (SELECT id, seq FROM shipments.shipment_list WHERE ` + where +
		` AND (reference_number LIKE $` + itoa(n-1) + ` OR provider_shipment_id = $` + itoa(n) + `)) `
	if err := r.db.GetContext(ctx, &page.Total, matches+`SELECT count(*) FROM m`, args...); err != nil {
		return page, fmt.Errorf("counting shipments: %w", err)
	}
	return page, r.records(ctx, &page, matches+`SELECT l.record FROM m JOIN shipments.shipment_list l ON l.id = m.id
		ORDER BY m.seq DESC LIMIT $`+itoa(n+1)+` OFFSET $`+itoa(n+2), append(args, q.Limit, q.Offset)...)
}

// filters builds the WHERE clause of the account and its optional filters.
func filters(q query.ListShipments) (string, []any) {
	where := []string{"account_id = $1", "NOT deleted"}
	args := []any{q.AccountID}
	if q.Status != "" {
		args = append(args, q.Status)
		where = append(where, "status = $"+itoa(len(args)))
	}
	if q.ChannelID != "" {
		args = append(args, q.ChannelID)
		where = append(where, "channel_id = $"+itoa(len(args)))
	}
	return strings.Join(where, " AND "), args
}

// total comes from the counters the projection keeps.
func (r *ShipmentListReader) total(ctx context.Context, q query.ListShipments) (int, error) {
	where, args := filters(q)
	where = strings.Replace(where, " AND NOT deleted", "", 1)
	var n int
	err := r.db.GetContext(ctx, &n, `SELECT coalesce(sum(n), 0) FROM shipments.shipment_counts WHERE `+where, args...)
	if err != nil {
		return 0, fmt.Errorf("counting shipments: %w", err)
	}
	return n, nil
}

func (r *ShipmentListReader) records(ctx context.Context, page *query.ShipmentPage, sql string, args ...any) error {
	rows, err := r.db.QueryContext(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("listing shipments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rec []byte
		if err := rows.Scan(&rec); err != nil {
			return err
		}
		page.Records = append(page.Records, rec)
	}
	return rows.Err()
}

func itoa(n int) string { return fmt.Sprint(n) }
