package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/postgres"
	"shipd/platform/secrets"
)

// DeliveryStore keeps deliveries in webhooks.deliveries and every attempt
// in webhooks.delivery_log.
type DeliveryStore struct {
	db    *sqlx.DB
	box   *secrets.Box
	clock clock.Clock

	mu      sync.Mutex   // guards queue and writing
	queue   []*recording // attempts waiting for the next group commit
	writing bool         // a caller is writing batches
}

// NewDeliveryStore returns the store.
func NewDeliveryStore(db *sqlx.DB, box *secrets.Box, clk clock.Clock) *DeliveryStore {
	return &DeliveryStore{db: db, box: box, clock: clk}
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

// Claim leases due deliveries, the longest overdue first, with their
// subscription's URL, secret and state.
func (s *DeliveryStore) Claim(ctx context.Context, limit int, lease time.Duration) ([]command.DueDelivery, error) {
	now := s.clock.Now()
	var rows []struct {
		deliveryRow
		URL    string `db:"url"`
		Secret string `db:"secret"`
		Active bool   `db:"active"`
	}
	err := s.db.SelectContext(ctx, &rows, `
		WITH claimed AS (
			UPDATE webhooks.deliveries d SET lease_until = $2
			FROM (SELECT id FROM webhooks.deliveries
			      WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
			      ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
			WHERE d.id = due.id
			RETURNING d.*)
		SELECT c.id, c.subscription_id, c.account_id, c.event_id, c.event_type, c.body, c.attempts, c.first_failed_at,
		       c.next_attempt_at, c.outcome, s.url, s.secret, s.active AND s.deleted_at IS NULL AS active
		FROM claimed c JOIN webhooks.subscriptions s ON s.id = c.subscription_id`, now, now.Add(lease), limit)
	if err != nil {
		return nil, fmt.Errorf("claiming webhook deliveries: %w", err)
	}
	out := make([]command.DueDelivery, len(rows))
	for i, r := range rows {
		secret, err := s.box.Open(r.Secret)
		if err != nil {
			return nil, fmt.Errorf("webhook subscription %s: %w", r.SubscriptionID, err)
		}
		out[i] = command.DueDelivery{Delivery: r.delivery(), URL: r.URL, Secret: string(secret), SubscriptionActive: r.Active}
	}
	return out, nil
}

// Record applies an attempt under the delivery's row lock and clears the
// lease. Attempts finishing together are recorded in one transaction
// (group commit): the first caller writes every queued attempt while the
// others wait for that commit.
//
// The subscription is read without a lock: pausing or deleting it cancels
// its pending deliveries in the same transaction, which waits for this row
// lock or makes this one see the delivery cancelled, so a retry is never
// left scheduled for a paused subscription.
func (s *DeliveryStore) Record(ctx context.Context, id int64, fn func(d *domain.Delivery, subscriptionActive bool) (domain.LogEntry, bool)) error {
	r := &recording{id: id, fn: fn, done: make(chan error, 1)}
	s.mu.Lock()
	s.queue = append(s.queue, r)
	if s.writing {
		s.mu.Unlock()
		return <-r.done
	}
	s.writing = true
	for {
		batch := s.queue[:min(len(s.queue), maxRecordBatch)]
		s.queue = s.queue[len(batch):]
		s.mu.Unlock()
		err := s.recordBatch(context.WithoutCancel(ctx), batch)
		for _, b := range batch {
			b.done <- err
		}
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.writing = false
			s.mu.Unlock()
			return <-r.done
		}
	}
}

// recording is one attempt waiting to be written.
type recording struct {
	id   int64
	fn   func(d *domain.Delivery, subscriptionActive bool) (domain.LogEntry, bool)
	done chan error
}

// maxRecordBatch bounds one group commit.
const maxRecordBatch = 64

func (s *DeliveryStore) recordBatch(ctx context.Context, batch []*recording) error {
	ids := make([]int64, len(batch))
	for i, r := range batch {
		ids[i] = r.id
	}
	return postgres.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		// Locked in id order, so two instances' batches cannot deadlock.
		var rows []deliveryRow
		if err := tx.SelectContext(ctx, &rows, `SELECT id, subscription_id, account_id, event_id, event_type, '' AS body, attempts,
			first_failed_at, next_attempt_at, outcome FROM webhooks.deliveries WHERE id = ANY($1) ORDER BY id FOR UPDATE`, pq.Array(ids)); err != nil {
			return fmt.Errorf("loading webhook deliveries: %w", err)
		}
		current := make(map[int64]*domain.Delivery, len(rows))
		subs := make([]string, 0, len(rows))
		for _, row := range rows {
			d := row.delivery()
			current[d.ID] = &d
			subs = append(subs, d.SubscriptionID)
		}
		var states []struct {
			ID     string `db:"id"`
			Active bool   `db:"active"`
		}
		if err := tx.SelectContext(ctx, &states, `SELECT id, active AND deleted_at IS NULL AS active FROM webhooks.subscriptions WHERE id = ANY($1)`, pq.Array(subs)); err != nil {
			return fmt.Errorf("loading webhook subscription states: %w", err)
		}
		active := make(map[string]bool, len(states))
		for _, st := range states {
			active[st.ID] = st.Active
		}
		var changed []*domain.Delivery
		var entries []domain.LogEntry
		for _, r := range batch {
			d, ok := current[r.id]
			if !ok {
				continue // purged meanwhile
			}
			entry, keep := r.fn(d, active[d.SubscriptionID])
			changed = append(changed, d)
			if keep {
				entries = append(entries, entry)
			}
		}
		if err := updateDeliveries(ctx, tx, changed); err != nil {
			return err
		}
		return insertLogs(ctx, tx, entries)
	})
}

func updateDeliveries(ctx context.Context, tx *sqlx.Tx, ds []*domain.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	var values strings.Builder
	args := make([]any, 0, 5*len(ds))
	for i, d := range ds {
		if i > 0 {
			values.WriteString(", ")
		}
		n := len(args)
		fmt.Fprintf(&values, "($%d::bigint, $%d::integer, $%d::timestamptz, $%d::timestamptz, $%d::text)", n+1, n+2, n+3, n+4, n+5)
		args = append(args, d.ID, d.Attempts, d.FirstFailedAt, d.NextAttemptAt, string(d.Outcome))
	}
	_, err := tx.ExecContext(ctx, `UPDATE webhooks.deliveries d SET attempts = u.attempts, first_failed_at = u.first_failed_at,
		next_attempt_at = u.next_attempt_at, outcome = u.outcome, lease_until = NULL
		FROM (VALUES `+values.String()+`) AS u(id, attempts, first_failed_at, next_attempt_at, outcome) WHERE d.id = u.id`, args...)
	if err != nil {
		return fmt.Errorf("updating webhook deliveries: %w", err)
	}
	return nil
}

func insertLogs(ctx context.Context, tx *sqlx.Tx, entries []domain.LogEntry) error {
	if len(entries) == 0 {
		return nil
	}
	const columns = 17
	var values strings.Builder
	args := make([]any, 0, columns*len(entries))
	for i, e := range entries {
		headers, err := json.Marshal(e.RequestHeaders)
		if err != nil {
			return err
		}
		if i > 0 {
			values.WriteString(", ")
		}
		values.WriteString("(")
		for c := range columns {
			if c > 0 {
				values.WriteString(", ")
			}
			fmt.Fprintf(&values, "$%d", len(args)+c+1)
		}
		values.WriteString(")")
		args = append(args, e.ID, e.SubscriptionID, e.AccountID, e.DeliveryID, e.EventID, e.EventType, e.Status, e.URL, string(headers),
			e.RequestBody, e.ResponseStatus, storableText(e.ResponseBody), e.DurationMS, e.ErrorMessage, e.Attempt, e.NextRetryAt, e.CreatedAt)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO webhooks.delivery_log (id, subscription_id, account_id, delivery_id, event_id, event_type,
		status, url, request_headers, request_body, response_status, response_body, duration_ms, error_message, attempt, next_retry_at, created_at)
		VALUES `+values.String(), args...)
	if err != nil {
		return fmt.Errorf("inserting webhook delivery logs: %w", err)
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
