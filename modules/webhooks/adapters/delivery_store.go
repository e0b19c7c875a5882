package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/postgres"
)

// DeliveryStore keeps deliveries in webhooks.deliveries and every attempt
// in webhooks.delivery_log.
type DeliveryStore struct {
	db    *sqlx.DB
	clock clock.Clock
}

// NewDeliveryStore returns the store.
func NewDeliveryStore(db *sqlx.DB, clk clock.Clock) *DeliveryStore {
	return &DeliveryStore{db: db, clock: clk}
}

var _ command.Deliveries = (*DeliveryStore)(nil)

// FanOut inserts one delivery per matching subscription in one statement;
// the (subscription, event) key makes a redelivered event add nothing.
func (s *DeliveryStore) FanOut(ctx context.Context, e command.OutboundEvent, now time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `
		INSERT INTO webhooks.deliveries (subscription_id, account_id, event_id, event_type, body, next_attempt_at, created_at)
		SELECT id, account_id, $3, $2, $4, $5, $5 FROM webhooks.subscriptions
		WHERE account_id = $1 AND active AND deleted_at IS NULL AND $2 = ANY (events)
		ON CONFLICT (subscription_id, event_id) DO NOTHING`, e.AccountID, e.Type, e.ID, string(e.Body), now)
	if err != nil {
		return 0, fmt.Errorf("fanning out %s: %w", e.ID, err)
	}
	return res.RowsAffected()
}

type deliveryRow struct {
	ID             int64      `db:"id"`
	SubscriptionID string     `db:"subscription_id"`
	AccountID      string     `db:"account_id"`
	EventID        string     `db:"event_id"`
	EventType      string     `db:"event_type"`
	Body           string     `db:"body"`
	Attempts       int        `db:"attempts"`
	FirstFailedAt  *time.Time `db:"first_failed_at"`
	NextAttemptAt  *time.Time `db:"next_attempt_at"`
	Outcome        string     `db:"outcome"`
}

func (r deliveryRow) delivery() domain.Delivery {
	return domain.Delivery{ID: r.ID, SubscriptionID: r.SubscriptionID, AccountID: r.AccountID, EventID: r.EventID, EventType: r.EventType,
		Body: []byte(r.Body), Attempts: r.Attempts, FirstFailedAt: r.FirstFailedAt, NextAttemptAt: r.NextAttemptAt, Outcome: domain.Outcome(r.Outcome)}
}

// Claim leases due deliveries, the longest overdue first.
func (s *DeliveryStore) Claim(ctx context.Context, limit int, lease time.Duration) ([]domain.Delivery, error) {
	now := s.clock.Now()
	var rows []deliveryRow
	err := s.db.SelectContext(ctx, &rows, `
		UPDATE webhooks.deliveries d SET lease_until = $2
		FROM (SELECT id FROM webhooks.deliveries
		      WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
		      ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
		WHERE d.id = due.id
		RETURNING d.id, d.subscription_id, d.account_id, d.event_id, d.event_type, d.body, d.attempts,
		          d.first_failed_at, d.next_attempt_at, d.outcome`, now, now.Add(lease), limit)
	if err != nil {
		return nil, fmt.Errorf("claiming webhook deliveries: %w", err)
	}
	out := make([]domain.Delivery, len(rows))
	for i, r := range rows {
		out[i] = r.delivery()
	}
	return out, nil
}

// Record applies an attempt under the delivery's row lock and a share lock
// on its subscription, and clears the lease.
func (s *DeliveryStore) Record(ctx context.Context, id int64, fn func(d *domain.Delivery, subscriptionActive bool) (domain.LogEntry, bool)) error {
	return postgres.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var row deliveryRow
		err := tx.GetContext(ctx, &row, `SELECT id, subscription_id, account_id, event_id, event_type, '' AS body, attempts,
			first_failed_at, next_attempt_at, outcome FROM webhooks.deliveries WHERE id = $1 FOR UPDATE`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // purged meanwhile
		}
		if err != nil {
			return fmt.Errorf("loading webhook delivery: %w", err)
		}
		var active bool
		err = tx.GetContext(ctx, &active, `SELECT active AND deleted_at IS NULL FROM webhooks.subscriptions WHERE id = $1 FOR SHARE`, row.SubscriptionID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("loading webhook subscription state: %w", err)
		}
		d := row.delivery()
		entry, keep := fn(&d, active)
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks.deliveries SET attempts = $2, first_failed_at = $3, next_attempt_at = $4,
			outcome = $5, lease_until = NULL WHERE id = $1`, id, d.Attempts, d.FirstFailedAt, d.NextAttemptAt, d.Outcome); err != nil {
			return fmt.Errorf("updating webhook delivery: %w", err)
		}
		if !keep {
			return nil
		}
		return insertLog(ctx, tx, entry)
	})
}

func insertLog(ctx context.Context, tx *sqlx.Tx, e domain.LogEntry) error {
	headers, err := json.Marshal(e.RequestHeaders)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO webhooks.delivery_log (id, subscription_id, account_id, delivery_id, event_id, event_type,
		status, url, request_headers, request_body, response_status, response_body, duration_ms, error_message, attempt, next_retry_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
		e.ID, e.SubscriptionID, e.AccountID, e.DeliveryID, e.EventID, e.EventType, e.Status, e.URL, string(headers), e.RequestBody,
		e.ResponseStatus, storableText(e.ResponseBody), e.DurationMS, e.ErrorMessage, e.Attempt, e.NextRetryAt, e.CreatedAt)
	if err != nil {
		return fmt.Errorf("inserting webhook delivery log: %w", err)
	}
	return nil
}

// storableText makes any bytes a receiver sent fit a text column: valid
// UTF-8 without NUL.
func storableText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// purgeBatch bounds one delete, so a purge never holds many locks for long.
const purgeBatch = 5000

// Purge deletes, batch by batch, logs and finished deliveries created before
// before, and subscriptions deleted before it.
func (s *DeliveryStore) Purge(ctx context.Context, before time.Time) (int64, error) {
	statements := []string{
		`DELETE FROM webhooks.delivery_log WHERE id IN (SELECT id FROM webhooks.delivery_log WHERE created_at < $1 LIMIT $2)`,
		`DELETE FROM webhooks.deliveries WHERE id IN (SELECT id FROM webhooks.deliveries WHERE created_at < $1 AND next_attempt_at IS NULL LIMIT $2)`,
		`DELETE FROM webhooks.subscriptions WHERE id IN (SELECT id FROM webhooks.subscriptions WHERE deleted_at < $1 LIMIT $2)`,
	}
	var total int64
	for _, stmt := range statements {
		for {
			res, err := s.db.ExecContext(ctx, stmt, before, purgeBatch)
			if err != nil {
				return total, fmt.Errorf("purging webhook logs: %w", err)
			}
			n, _ := res.RowsAffected()
			total += n
			if n < purgeBatch {
				break
			}
		}
	}
	return total, nil
}
