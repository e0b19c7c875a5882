package postgres

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// SelectWithoutJIT runs a read-only query with PostgreSQL's JIT compiler off.
// The planner compiles a query to machine code when its estimated cost is
// high, and some of ours are estimated far above what they cost: the event
// lag query joins each group to the rows after its position with a row
// comparison the planner guesses a third of the stream matches, so on a
// stream of 40,000 messages it spent half a second compiling a query that
// ran in under a millisecond, at every scrape (seen under make bench's
// sweep with pg_stat_statements).
//
// It takes a transaction of its own, set before the query: the planner
// decides on JIT before the query runs, so a WITH item setting jit in the
// query itself (as Unflushed does synchronous_commit) comes too late. Not
// InTx: in a Scope's transaction the setting would outlive the query.
func SelectWithoutJIT(ctx context.Context, db *sqlx.DB, dest any, query string, args ...any) error {
	return inNewTx(ctx, db, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SET LOCAL jit = off`); err != nil {
			return err
		}
		return tx.SelectContext(ctx, dest, query, args...)
	})
}
