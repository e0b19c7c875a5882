package server

import (
	"context"
	"log/slog"
	"time"

	"shipd/platform/auth"
	"shipd/platform/idempotency"
	"shipd/platform/ratelimit"
)

// Janitor purges expired rate-limit windows and runs of failures, idempotency keys and dashboard
// sessions. Deletes are idempotent, so every instance may run it.
type Janitor struct {
	limiter  *ratelimit.Limiter
	keys     *idempotency.Store
	sessions *auth.Store
	every    time.Duration
}

// NewJanitor returns the janitor, running once a minute.
func NewJanitor(limiter *ratelimit.Limiter, keys *idempotency.Store, sessions *auth.Store) *Janitor {
	return &Janitor{limiter: limiter, keys: keys, sessions: sessions, every: time.Minute}
}

// Name names the worker.
func (j *Janitor) Name() string { return "platform.janitor" }

// Run purges until ctx ends.
func (j *Janitor) Run(ctx context.Context) error {
	t := time.NewTicker(j.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := j.limiter.Purge(ctx); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "purging rate-limit windows", "err", err)
			}
			if err := j.keys.Purge(ctx); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "purging idempotency keys", "err", err)
			}
			if _, err := j.sessions.PurgeSessions(ctx); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "purging dashboard sessions", "err", err)
			}
		}
	}
}
