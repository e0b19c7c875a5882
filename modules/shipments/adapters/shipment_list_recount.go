package adapters

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// RecountShipmentList sets the accounts' counters and block counts from
// their list rows, as the projection would have kept them, for rows written
// without events (the benchmark's seed).
func RecountShipmentList(ctx context.Context, db *sqlx.DB, accounts []string) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM shipments.shipment_counts WHERE account_id = ANY($1)`, nil},
		{`DELETE FROM shipments.shipment_list_blocks WHERE account_id = ANY($1)`, nil},
		{`INSERT INTO shipments.shipment_counts (account_id, status, channel_id, n)
		SELECT account_id, status, channel_id, count(*) FROM shipments.shipment_list
		WHERE account_id = ANY($1) AND NOT deleted GROUP BY 1, 2, 3`, nil},
		{`INSERT INTO shipments.shipment_list_blocks (account_id, status, channel_id, block, n)
		SELECT l.account_id, k.status, k.channel_id, l.seq / $2, count(*)
		FROM shipments.shipment_list l,
		     LATERAL (VALUES (l.status, l.channel_id), (l.status, ''), ('', l.channel_id), ('', '')) AS k(status, channel_id)
		WHERE l.account_id = ANY($1) AND NOT l.deleted GROUP BY 1, 2, 3, 4`, []any{shipmentListBlock}},
	} {
		if _, err := tx.ExecContext(ctx, s.sql, append([]any{pq.Array(accounts)}, s.args...)...); err != nil {
			return fmt.Errorf("recounting the shipment list: %w", err)
		}
	}
	return tx.Commit()
}
