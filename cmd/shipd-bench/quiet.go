package main

import (
	"context"
	"time"
)

// awaitQuietDatabase waits, up to limit, until no autovacuum worker runs:
// the parts before leave tables that autovacuum then works through, on the
// same two cores, and a part measured meanwhile would be charged for it.
// It returns how long it waited; past the limit it goes on regardless.
func awaitQuietDatabase(ctx context.Context, env *service, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for time.Since(start) < limit {
		var workers int
		if err := env.db.GetContext(ctx, &workers, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`); err != nil {
			return 0, err
		}
		if workers == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return time.Since(start), nil
}
