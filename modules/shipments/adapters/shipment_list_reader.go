package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/app/query"
)

// ShipmentListReader answers list queries from shipments.shipment_list.
type ShipmentListReader struct {
	db    *sqlx.DB
	block int64 // the projection's shipmentListBlock
	probe int   // searchProbe; both smaller in tests
}

// NewShipmentListReader reads the list tables of db with the production block
// size and search probe; its answers lag the write model by as much as the
// projection does.
func NewShipmentListReader(db *sqlx.DB) *ShipmentListReader {
	return &ShipmentListReader{db: db, block: shipmentListBlock, probe: searchProbe}
}

var _ query.ShipmentList = (*ShipmentListReader)(nil)

// List returns one page, newest first (highest seq first), and the number of
// all matches, each from one statement, so the page and the total are of
// the same moment.
func (r *ShipmentListReader) List(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	if q.Search != "" {
		return r.search(ctx, q)
	}
	return r.browse(ctx, q)
}

// browse answers the list with no search, filtered by status, channel, both
// or neither. The total is the counters' sum. The page's first row is found
// from the shape's block counts: the newest block whose running total from
// the top passes the offset holds it, and the rest of the offset is skipped
// within that block on the shape's index (an index-only scan of fewer
// entries than a block has seqs), so page 5,000 costs about what page 1
// does. The page runs on into older blocks as far as it needs (seq has no
// lower bound). The planner reads all of the shape's block counts (at most
// last_seq / 4096 rows) and sorts them; a recursive walk of one index probe
// per block, which stops at the page's block, was slower past a few dozen.
func (r *ShipmentListReader) browse(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	where, args := filters(q)
	counted := strings.Replace(where, " AND NOT deleted", "", 1)
	args = append(args, q.Status, q.ChannelID, q.Offset, q.Limit, r.block)
	n := len(args)
	status, channel, offset := "$"+strconv.Itoa(n-4), "$"+strconv.Itoa(n-3), "$"+strconv.Itoa(n-2)
	limit, block := "$"+strconv.Itoa(n-1), "$"+strconv.Itoa(n)
	return r.page(ctx, `
		WITH total AS (
			SELECT coalesce(sum(n), 0)::bigint AS n FROM shipments.shipment_counts WHERE `+counted+`
		), start AS (
			SELECT (block + 1) * `+block+` AS below, `+offset+` - (through - n) AS skip
			FROM (SELECT block, n, sum(n) OVER (ORDER BY block DESC ROWS UNBOUNDED PRECEDING)::bigint AS through
			      FROM shipments.shipment_list_blocks WHERE account_id = $1 AND status = `+status+` AND channel_id = `+channel+`
			      ORDER BY block DESC) b
			WHERE through > `+offset+`
			ORDER BY block DESC LIMIT 1
		), page AS (
			SELECT seq FROM shipments.shipment_list
			WHERE `+where+` AND seq < (SELECT below FROM start)
			ORDER BY seq DESC OFFSET (SELECT skip FROM start) LIMIT `+limit+`
		)
		SELECT total.n, l.record FROM total
		LEFT JOIN (page JOIN shipments.shipment_list l ON l.account_id = $1 AND l.seq = page.seq) ON true
		ORDER BY page.seq DESC`, args...)
}

// filters builds the WHERE clause of the account's live rows and the
// optional filters.
func filters(q query.ListShipments) (string, []any) {
	where := []string{"account_id = $1", "NOT deleted"}
	args := []any{q.AccountID}
	if q.Status != "" {
		args = append(args, q.Status)
		where = append(where, "status = $"+strconv.Itoa(len(args)))
	}
	if q.ChannelID != "" {
		args = append(args, q.ChannelID)
		where = append(where, "channel_id = $"+strconv.Itoa(len(args)))
	}
	return strings.Join(where, " AND "), args
}

// page runs a list statement whose rows are the total and one record each;
// an empty page is one row with the total and no record. A total of null
// (not counted) reads as -1.
func (r *ShipmentListReader) page(ctx context.Context, stmt string, args ...any) (query.ShipmentPage, error) {
	page := query.ShipmentPage{Records: []json.RawMessage{}}
	rows, err := r.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return page, fmt.Errorf("listing shipments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var total sql.NullInt64
		var rec []byte
		if err := rows.Scan(&total, &rec); err != nil {
			return page, fmt.Errorf("listing shipments: %w", err)
		}
		page.Total = -1
		if total.Valid {
			page.Total = int(total.Int64)
		}
		if rec != nil {
			page.Records = append(page.Records, rec)
		}
	}
	return page, rows.Err()
}
