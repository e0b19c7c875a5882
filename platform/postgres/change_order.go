package postgres

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// LockForChange takes a transaction-level lock on one aggregate (any
// string key: its id) before the transaction writes anything. It is what
// keeps one aggregate's events in order on its stream.
//
// Watermill hands a stream's messages out by the id of the transaction
// that wrote them, and PostgreSQL gives a transaction its id at its first
// write. A row lock alone does not order those ids: an UPDATE or SELECT ...
// FOR UPDATE takes its id first and then waits for the row, so a writer
// that took its id a moment before another but lost the race for the row
// changes the aggregate second with the smaller id, and its event is read
// first (TestEachAggregatesEventsArriveInOrder caught it). An advisory lock
// takes no id: a writer that waits here gets its id only after the earlier
// writer committed, so ids follow the order of changes.
//
// It must be the transaction's first statement that could write; two keys
// hashing alike only serialise two writers for a moment.
func LockForChange(ctx context.Context, tx *sqlx.Tx, key string) error {
	if err := Lock(ctx, tx, key); err != nil {
		return fmt.Errorf("locking %s for a change: %w", key, err)
	}
	return nil
}

// Lock takes a transaction-level advisory lock on any string key, held
// until the transaction ends. It takes no transaction id (see
// LockForChange); keys hashing alike only serialise two holders.
func Lock(ctx context.Context, tx sqlx.ExecerContext, key string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, key)
	return err
}

// LockForChanges is LockForChange for many aggregates of one transaction,
// in one statement. The locks are taken in the order of their hashes, so
// two transactions with keys in common cannot deadlock on them.
func LockForChanges(ctx context.Context, tx *sqlx.Tx, keys []string) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(h)
		FROM (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest($1::text[]) k ORDER BY h) locks`, pq.Array(keys)); err != nil {
		return fmt.Errorf("locking %d aggregates for a change: %w", len(keys), err)
	}
	return nil
}
