package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
)

// CheckQueue hands out tracking parcels whose check is due. A claim is a
// lease: a worker that dies mid-call loses it when it expires, and the
// parcel is claimed again. Recording the check (the repository's Update or
// UpdateAll) clears the lease.
type CheckQueue struct {
	db    *sqlx.DB
	clock clock.Clock
}

// NewCheckQueue works on db's tracking.parcels; clk says when a check is due
// and when a lease ends, so every instance should share one clock.
func NewCheckQueue(db *sqlx.DB, clk clock.Clock) *CheckQueue {
	return &CheckQueue{db: db, clock: clk}
}

var _ command.CheckQueue = (*CheckQueue)(nil)

// Claim leases up to limit due parcels, the longest overdue first, skipping
// rows another instance is claiming at the same moment, and returns them as
// they are now, so a check needs no read of its own before the carrier call.
func (q *CheckQueue) Claim(ctx context.Context, limit int, lease time.Duration) ([]domain.Stored, error) {
	now := q.clock.Now()
	var rows []struct {
		ID    string `db:"id"`
		State []byte `db:"state"`
	}
	err := q.db.SelectContext(ctx, &rows, `
		UPDATE tracking.parcels p SET lease_until = $2
		FROM (SELECT id FROM tracking.parcels
		      WHERE next_check_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
		      ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
		WHERE p.id = due.id
		RETURNING p.id, p.state`, now, now.Add(lease), limit)
	if err != nil {
		return nil, fmt.Errorf("claiming tracking checks: %w", err)
	}
	states := make([]domain.Stored, 0, len(rows))
	for _, r := range rows {
		var st domain.Stored
		if err := json.Unmarshal(r.State, &st); err != nil {
			// Left leased: tried again when the lease runs out, not at every poll.
			slog.ErrorContext(ctx, "claimed tracking parcel has a state that does not decode", "tracking_parcel_id", r.ID, "err", err)
			continue
		}
		states = append(states, st)
	}
	return states, nil
}

// Release gives back the leases of parcels claimed and never checked. A
// parcel is leased for minutes and released seconds after its claim, so the
// lease is still this instance's; were it not, the cost is one extra check.
func (q *CheckQueue) Release(ctx context.Context, ids []string) error {
	_, err := q.db.ExecContext(ctx, `UPDATE tracking.parcels SET lease_until = NULL WHERE id = ANY($1)`, pq.Array(ids))
	if err != nil {
		return fmt.Errorf("releasing tracking checks: %w", err)
	}
	return nil
}

// Due counts the parcels whose check is due now.
func (q *CheckQueue) Due(ctx context.Context) (int, error) {
	var n int
	err := q.db.GetContext(ctx, &n, `SELECT count(*) FROM tracking.parcels WHERE next_check_at <= $1`, q.clock.Now())
	return n, err
}

// ScheduledBeyond lists the tracked parcels of provider whose next check is
// later than now plus their check delay divided by scale, but those a check
// holds (leased): that check schedules the next one.
func (q *CheckQueue) ScheduledBeyond(ctx context.Context, provider string, scale float64) ([]string, error) {
	var ids []string
	err := q.db.SelectContext(ctx, &ids, `SELECT id FROM tracking.parcels
		WHERE next_check_at IS NOT NULL AND state->>'provider' = $1 AND (lease_until IS NULL OR lease_until < $2)
		  AND next_check_at > $2 + make_interval(hours => (state->>'check_delay_hours')::int) / $3::float8
		ORDER BY id`, provider, q.clock.Now(), scale)
	if err != nil {
		return nil, fmt.Errorf("finding tracking checks scheduled beyond the time scale: %w", err)
	}
	return ids, nil
}
