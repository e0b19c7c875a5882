package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/clock"
)

// Backoff is how failures in a row slow the next attempt: the first Free
// cost nothing, then each waits First, twice that, and so on up to Max.
type Backoff struct {
	Free  int
	First time.Duration
	Max   time.Duration
}

// Wait is how long to wait after failures in a row.
func (b Backoff) Wait(failures int) time.Duration {
	if failures <= b.Free {
		return 0
	}
	wait := b.First
	for range failures - b.Free - 1 {
		if wait >= b.Max {
			break
		}
		wait *= 2
	}
	return min(wait, b.Max)
}

// ForgetAfter is how long after its last failure a run of failures is
// forgotten: the next one counts as the first.
const ForgetAfter = time.Hour

// Failures counts failed attempts in a row per key (an e-mail and client
// address, a client address) in PostgreSQL's platform.failed_attempts, so
// every instance refuses the same attempts (ADR 0046).
type Failures struct {
	db    *sqlx.DB
	clock clock.Clock
}

// Wait is how long key must still wait before its next attempt (0: none).
func (f *Failures) Wait(ctx context.Context, key string) (time.Duration, error) {
	var until []time.Time
	if err := f.db.SelectContext(ctx, &until, `SELECT wait_until FROM platform.failed_attempts WHERE key = $1`, key); err != nil {
		return 0, fmt.Errorf("reading failed attempts: %w", err)
	}
	if len(until) == 0 {
		return 0, nil
	}
	return max(0, until[0].Sub(f.clock.Now())), nil
}

// Fail records one more failure of key and returns how long its next
// attempt must wait.
func (f *Failures) Fail(ctx context.Context, key string, b Backoff) (time.Duration, error) {
	now := f.clock.Now()
	var failures int
	err := f.db.GetContext(ctx, &failures, `
		INSERT INTO platform.failed_attempts (key, failures, last_failed_at, wait_until) VALUES ($1, 1, $2, $2)
		ON CONFLICT (key) DO UPDATE SET
			failures = CASE WHEN failed_attempts.last_failed_at < $3 THEN 1 ELSE failed_attempts.failures + 1 END,
			last_failed_at = $2
		RETURNING failures`, key, now, now.Add(-ForgetAfter))
	if err != nil {
		return 0, fmt.Errorf("counting a failed attempt: %w", err)
	}
	wait := b.Wait(failures)
	if _, err := f.db.ExecContext(ctx, `UPDATE platform.failed_attempts SET wait_until = GREATEST(wait_until, $2) WHERE key = $1`,
		key, now.Add(wait)); err != nil {
		return 0, fmt.Errorf("counting a failed attempt: %w", err)
	}
	return wait, nil
}

// Forget clears key's failures: it succeeded.
func (f *Failures) Forget(ctx context.Context, key string) error {
	if _, err := f.db.ExecContext(ctx, `DELETE FROM platform.failed_attempts WHERE key = $1`, key); err != nil {
		return fmt.Errorf("clearing failed attempts: %w", err)
	}
	return nil
}

// Purge deletes the runs of failures that are forgotten and waited out.
func (f *Failures) Purge(ctx context.Context) error {
	now := f.clock.Now()
	_, err := f.db.ExecContext(ctx, `DELETE FROM platform.failed_attempts WHERE last_failed_at < $1 AND wait_until < $2`,
		now.Add(-ForgetAfter), now)
	return err
}
