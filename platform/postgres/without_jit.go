package postgres

import (
	"context"
	"fmt"

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
func SelectWithoutJIT(ctx context.Context, db *sqlx.DB, dest any, query string, args ...any) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL jit = off`); err != nil {
		return err
	}
	if err := tx.SelectContext(ctx, dest, query, args...); err != nil {
		return err
	}
	return tx.Commit()
}
