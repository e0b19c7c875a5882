package adapters

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/shipments/app/command"
	"shipd/platform/clock"
)

// BookingQueue hands out shipments due for booking. A claim is a lease: a
// worker that dies mid-call loses it when it expires and another instance
// takes the shipment again.
type BookingQueue struct {
	db    *sqlx.DB
	clock clock.Clock
}

// NewBookingQueue works on db's shipments.shipments; clk says when a booking
// is due and when a lease ends, so every instance should share one clock.
func NewBookingQueue(db *sqlx.DB, clk clock.Clock) *BookingQueue {
	return &BookingQueue{db: db, clock: clk}
}

var _ command.BookingQueue = (*BookingQueue)(nil)

// Claim leases up to limit due shipments for lease, skipping rows another
// instance is claiming at the same moment.
func (q *BookingQueue) Claim(ctx context.Context, limit int, lease time.Duration) ([]command.BookingClaim, error) {
	now := q.clock.Now()
	var claims []command.BookingClaim
	err := q.db.SelectContext(ctx, &claims, `
		UPDATE shipments.shipments s SET lease_until = $2, attempts = s.attempts + 1
		FROM (SELECT id FROM shipments.shipments
		      WHERE booking_due AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
		      ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
		WHERE s.id = due.id
		RETURNING s.id, s.attempts`, now, now.Add(lease), limit)
	if err != nil {
		return nil, fmt.Errorf("claiming bookings: %w", err)
	}
	return claims, nil
}

// Release gives back claims never acted on, undoing their attempt count;
// a claim another instance has taken since (its lease ran out) has a higher
// count and is left alone.
func (q *BookingQueue) Release(ctx context.Context, claims []command.BookingClaim) error {
	ids, attempts := make([]string, len(claims)), make([]int64, len(claims))
	for i, c := range claims {
		ids[i], attempts[i] = c.ID, int64(c.Attempt)
	}
	_, err := q.db.ExecContext(ctx, `UPDATE shipments.shipments s SET lease_until = NULL, attempts = s.attempts - 1
		FROM unnest($1::text[], $2::int[]) AS c(id, attempts)
		WHERE s.id = c.id AND s.attempts = c.attempts AND s.booking_due`, pq.Array(ids), pq.Array(attempts))
	if err != nil {
		return fmt.Errorf("releasing bookings: %w", err)
	}
	return nil
}

// Due counts the shipments due for booking now.
func (q *BookingQueue) Due(ctx context.Context) (int, error) {
	var n int
	err := q.db.GetContext(ctx, &n, `SELECT count(*) FROM shipments.shipments WHERE booking_due AND next_attempt_at <= $1`, q.clock.Now())
	return n, err
}

// Retry gives the lease back and schedules the next attempt. A claim taken
// since by another instance (this one's lease ran out) has a higher attempt
// count and is left alone.
func (q *BookingQueue) Retry(ctx context.Context, claim command.BookingClaim, after time.Duration) error {
	_, err := q.db.ExecContext(ctx, `UPDATE shipments.shipments SET lease_until = NULL, next_attempt_at = $2
		WHERE id = $1 AND booking_due AND attempts = $3`, claim.ID, q.clock.Now().Add(after), claim.Attempt)
	return err
}
