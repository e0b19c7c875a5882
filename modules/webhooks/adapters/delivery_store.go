package adapters

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
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

	firstAttempts chan struct{} // see FirstAttemptsRecorded

	claim, record prepared
}

// NewDeliveryStore needs the webhooks module's database, the box that opens
// subscription secrets for signing, and the clock that says which
// deliveries are due. Its statements are prepared on first use.
func NewDeliveryStore(db *sqlx.DB, box *secrets.Box, clk clock.Clock) *DeliveryStore {
	return &DeliveryStore{db: db, box: box, clock: clk, firstAttempts: make(chan struct{}, 1),
		claim: prepared{query: claimStatement}, record: prepared{query: recordStatement}}
}

// FirstAttemptsRecorded signals after a group commit that wrote a first
// attempt of a delivery with a resource.
func (s *DeliveryStore) FirstAttemptsRecorded() <-chan struct{} { return s.firstAttempts }

var _ command.Deliveries = (*DeliveryStore)(nil)

type deliveryRow struct {
	ID             int64      `db:"id"`
	SubscriptionID string     `db:"subscription_id"`
	AccountID      string     `db:"account_id"`
	EventID        string     `db:"event_id"`
	EventType      string     `db:"event_type"`
	ResourceID     string     `db:"resource_id"`
	Body           string     `db:"body"`
	Attempts       int        `db:"attempts"`
	FirstFailedAt  *time.Time `db:"first_failed_at"`
	NextAttemptAt  *time.Time `db:"next_attempt_at"`
	Outcome        string     `db:"outcome"`
}

func (r deliveryRow) delivery() domain.Delivery {
	return domain.Delivery{ID: r.ID, SubscriptionID: r.SubscriptionID, AccountID: r.AccountID, EventID: r.EventID, EventType: r.EventType,
		ResourceID: r.ResourceID, Body: []byte(r.Body), Attempts: r.Attempts, FirstFailedAt: r.FirstFailedAt, NextAttemptAt: r.NextAttemptAt, Outcome: domain.Outcome(r.Outcome)}
}

// Claim leases due deliveries, the longest overdue first, with their
// subscription's URL, secret and state. A first attempt waits while an
// earlier delivery (a lower id) of the same subscription and resource has
// no attempt recorded and is not finished: it is due, or in flight under
// another claim. The check reads attempts, not leases, so an attempt made
// but not yet recorded still goes first; a first attempt that failed frees
// the next one, whose own retries then keep their schedule.
//
// The claim commits without waiting for its flush to disk (unflushed): a
// lease lost in a crash of PostgreSQL is a delivery claimable again at
// once, the same at-least-once as a lease that ran out, and the attempt's
// record, which does wait, flushes the claim before it.
func (s *DeliveryStore) Claim(ctx context.Context, limit int, lease time.Duration) ([]command.DueDelivery, error) {
	now := s.clock.Now()
	until := now.Add(lease)
	var rows []struct {
		deliveryRow
		URL    string `db:"url"`
		Secret string `db:"secret"`
		Active bool   `db:"active"`
	}
	stmt, err := s.claim.on(ctx, s.db)
	if err == nil {
		err = stmt.SelectContext(ctx, &rows, now, until, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("claiming webhook deliveries: %w", err)
	}
	out := make([]command.DueDelivery, len(rows))
	secrets := make(map[string]string) // sealed → opened: a claim's deliveries are mostly a few subscriptions'
	for i, r := range rows {
		secret, ok := secrets[r.Secret]
		if !ok {
			opened, err := s.box.Open(r.Secret)
			if err != nil {
				return nil, fmt.Errorf("webhook subscription %s: %w", r.SubscriptionID, err)
			}
			secret = string(opened)
			secrets[r.Secret] = secret
		}
		out[i] = command.DueDelivery{Delivery: r.delivery(), URL: r.URL, Secret: secret, SubscriptionActive: r.Active, LeaseUntil: until}
	}
	return out, nil
}

// claimStatement leases due deliveries ($3 at most, until $2) and returns
// them with their body and subscription; see Claim.
const claimStatement = `
		WITH ` + postgres.Unflushed + `,
		claimed AS (
			UPDATE webhooks.deliveries d SET lease_until = $2
			FROM (SELECT id FROM webhooks.deliveries c
			      WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
			        AND (attempts > 0 OR resource_id IS NULL OR NOT EXISTS (
			            SELECT FROM webhooks.deliveries e
			            WHERE e.subscription_id = c.subscription_id AND e.resource_id = c.resource_id AND e.id < c.id
			              AND e.attempts = 0 AND e.next_attempt_at IS NOT NULL))
			      ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
			WHERE d.id = due.id
			RETURNING d.id, d.subscription_id, d.account_id, d.event_id, d.event_type, d.resource_id, d.attempts,
				d.first_failed_at, d.next_attempt_at, d.outcome)
		SELECT c.id, c.subscription_id, c.account_id, c.event_id, c.event_type, coalesce(c.resource_id, '') AS resource_id, b.body, c.attempts, c.first_failed_at,
		       c.next_attempt_at, c.outcome, s.url, s.secret, s.active AND s.deleted_at IS NULL AS active
		FROM claimed c JOIN webhooks.subscriptions s ON s.id = c.subscription_id
		JOIN webhooks.event_bodies b ON b.event_id = c.event_id CROSS JOIN unflushed`

// Release gives back the leases of claims never attempted.
func (s *DeliveryStore) Release(ctx context.Context, claims []command.DueDelivery) error {
	ids, leases := make([]int64, len(claims)), make([]time.Time, len(claims))
	for i, c := range claims {
		ids[i], leases[i] = c.ID, c.LeaseUntil
	}
	_, err := s.db.ExecContext(ctx, `UPDATE webhooks.deliveries d SET lease_until = NULL
		FROM unnest($1::bigint[], $2::timestamptz[]) AS c(id, lease_until)
		WHERE d.id = c.id AND d.lease_until = c.lease_until`, pq.Array(ids), pq.GenericArray{A: leases})
	if err != nil {
		return fmt.Errorf("releasing webhook deliveries: %w", err)
	}
	return nil
}

// Due counts the deliveries whose attempt is due now.
func (s *DeliveryStore) Due(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM webhooks.deliveries WHERE next_attempt_at <= $1`, s.clock.Now())
	return n, err
}

// Record saves attempts in group commits. The first caller writes every
// queued attempt, batch after batch, until none is left; the others queue
// theirs and return at once, so their worker slot takes the next delivery
// instead of waiting for a commit. Only when more than maxQueuedRecordings
// wait does a caller wait for its commit, which bounds what a crash can
// lose: an attempt not yet written keeps its lease, and when that runs out
// the attempt is made again, as after any crash mid-attempt. A failed write
// is logged here, for the same reason.
//
// Each attempt is applied to its delivery as claimed and written by one
// statement that updates the delivery only if it is still pending with the
// claimed attempts, and logs the attempts whose delivery it updated. Those
// it did not update (a pause or delete cancelled them, another worker
// recorded them after a lease ran out) are applied again to the stored
// delivery under its row lock, with the subscription read unlocked: pausing
// or deleting cancels its pending deliveries in the same transaction, which
// waits for this row lock or makes this one see the delivery cancelled, so
// a retry is never left scheduled for a paused subscription.
func (s *DeliveryStore) Record(ctx context.Context, claimed domain.Delivery, fn func(d *domain.Delivery, subscriptionActive bool) (domain.LogEntry, bool)) error {
	r := &recording{claimed: claimed, fn: fn, done: make(chan error, 1)}
	s.mu.Lock()
	s.queue = append(s.queue, r)
	if s.writing {
		full := len(s.queue) > maxQueuedRecordings
		s.mu.Unlock()
		if full {
			return <-r.done
		}
		return nil
	}
	s.writing = true
	for {
		batch := s.queue[:min(len(s.queue), maxRecordBatch)]
		s.queue = s.queue[len(batch):]
		s.mu.Unlock()
		err := s.recordBatch(context.WithoutCancel(ctx), batch)
		if err != nil {
			slog.ErrorContext(ctx, "recording webhook attempts; they will be made again when their leases run out", "attempts", len(batch), "err", err)
		}
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
	claimed domain.Delivery
	fn      func(d *domain.Delivery, subscriptionActive bool) (domain.LogEntry, bool)
	done    chan error
}

// maxRecordBatch bounds one group commit; maxQueuedRecordings bounds the
// attempts made but not yet written.
const (
	maxRecordBatch      = 256
	maxQueuedRecordings = 1024
)

func (s *DeliveryStore) recordBatch(ctx context.Context, batch []*recording) error {
	stmt, err := s.record.on(ctx, s.db)
	if err != nil {
		return fmt.Errorf("preparing the webhook record: %w", err)
	}
	stale, err := recordAsClaimed(ctx, stmt, batch)
	if err == nil && len(stale) > 0 {
		err = recordLocked(ctx, s.db, stale)
	}
	if err == nil && slices.ContainsFunc(batch, func(r *recording) bool { return r.claimed.Attempts == 0 && r.claimed.ResourceID != "" }) {
		select {
		case s.firstAttempts <- struct{}{}:
		default: // a signal is already waiting
		}
	}
	return err
}

// recordAsClaimed writes the batch's attempts as applied to the claimed
// deliveries, in one statement, and returns those whose delivery changed
// since its claim.
func recordAsClaimed(ctx context.Context, record *sqlx.Stmt, batch []*recording) ([]*recording, error) {
	var stale, fresh []*recording
	seen := make(map[int64]bool, len(batch))
	var ds deliveryStates
	var logs attemptLogs
	for _, r := range batch {
		if seen[r.claimed.ID] { // claimed twice (a lease ran out): the second waits for the first
			stale = append(stale, r)
			continue
		}
		seen[r.claimed.ID] = true
		fresh = append(fresh, r)
		d := r.claimed
		entry, keep := r.fn(&d, true)
		ds.add(r.claimed.Attempts, &d, attemptAt(entry, keep))
		if keep {
			logs.add(entry)
		}
	}
	var updated []int64
	err := record.SelectContext(ctx, &updated, append(append(ds.args(), logs.args()...), false)...)
	if err != nil {
		return nil, fmt.Errorf("recording webhook deliveries: %w", err)
	}
	done := make(map[int64]bool, len(updated))
	for _, id := range updated {
		done[id] = true
	}
	for _, r := range fresh {
		if !done[r.claimed.ID] {
			stale = append(stale, r)
		}
	}
	return stale, nil
}

// recordStatement writes deliveries' new states, each only if the stored
// delivery is still pending with the attempts it had when claimed, and the
// attempts' logs: those whose delivery it recorded, or every one when $24
// is true (the deliveries are locked and the attempts applied to them as
// stored, so a log is kept even when its delivery had already finished).
//
// A delivery that succeeded is deleted rather than updated: it is done,
// its log says everything about it, and a delete writes no new row
// version and no index entry, where an update that takes the row out of
// the due index writes a whole new version indexed three times (a
// delivery worker's record is mostly successes). Failed and cancelled
// deliveries stay, finished, until the purge, so the logs can say a retry
// was cancelled.
//
// A log's request body is left NULL: it is its event's body, the bytes
// every attempt sends, read from there and kept while any delivery or log
// of the event is (Purge).
const recordStatement = `
	WITH claims AS (
		SELECT * FROM unnest($1::bigint[], $2::integer[], $3::integer[], $4::timestamptz[], $5::timestamptz[], $6::text[], $7::timestamptz[])
			AS u(id, claimed_attempts, attempts, first_failed_at, next_attempt_at, outcome, last_attempt_at)),
	succeeded AS (
		DELETE FROM webhooks.deliveries d USING claims u
		WHERE d.id = u.id AND u.outcome = 'success' AND d.attempts = u.claimed_attempts AND d.outcome = 'pending'
		RETURNING d.id),
	updated AS (
		UPDATE webhooks.deliveries d SET attempts = u.attempts, first_failed_at = u.first_failed_at,
			next_attempt_at = u.next_attempt_at, outcome = u.outcome, lease_until = NULL,
			last_attempt_at = GREATEST(d.last_attempt_at, u.last_attempt_at)
		FROM claims u
		WHERE d.id = u.id AND u.outcome <> 'success' AND d.attempts = u.claimed_attempts AND d.outcome = 'pending'
		RETURNING d.id),
	recorded AS (SELECT id FROM succeeded UNION ALL SELECT id FROM updated),
	logged AS (
		INSERT INTO webhooks.delivery_log (id, subscription_id, account_id, delivery_id, event_id, event_type, status, url,
			request_headers, response_status, response_body, duration_ms, error_message, attempt, next_retry_at, created_at)
		SELECT l.* FROM unnest($8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[], $13::text[], $14::text[], $15::text[],
			$16::json[], $17::integer[], $18::text[], $19::integer[], $20::text[], $21::integer[], $22::timestamptz[], $23::timestamptz[])
			AS l(id, subscription_id, account_id, delivery_id, event_id, event_type, status, url, request_headers,
			     response_status, response_body, duration_ms, error_message, attempt, next_retry_at, created_at)
		WHERE $24 OR l.delivery_id IN (SELECT id FROM recorded))
	SELECT id FROM recorded`

// deliveryStates are deliveries' new states, a slice per column, with the
// attempts each had when claimed.
type deliveryStates struct {
	id, claimedAttempts, attempts               []int64
	firstFailedAt, nextAttemptAt, lastAttemptAt []*time.Time
	outcome                                     []string
}

// add notes d's new state; attemptAt is when the attempt logged with it was
// made, nil when none was.
func (c *deliveryStates) add(claimedAttempts int, d *domain.Delivery, attemptAt *time.Time) {
	c.id = append(c.id, d.ID)
	c.claimedAttempts = append(c.claimedAttempts, int64(claimedAttempts))
	c.attempts = append(c.attempts, int64(d.Attempts))
	c.firstFailedAt = append(c.firstFailedAt, d.FirstFailedAt)
	c.nextAttemptAt = append(c.nextAttemptAt, d.NextAttemptAt)
	c.outcome = append(c.outcome, string(d.Outcome))
	c.lastAttemptAt = append(c.lastAttemptAt, attemptAt)
}

func (c *deliveryStates) args() []any {
	return []any{pq.Array(c.id), pq.Array(c.claimedAttempts), pq.Array(c.attempts), pq.GenericArray{A: c.firstFailedAt},
		pq.GenericArray{A: c.nextAttemptAt}, pq.Array(c.outcome), pq.GenericArray{A: c.lastAttemptAt}}
}

// attemptAt is when the logged attempt was made, nil when nothing is logged.
func attemptAt(e domain.LogEntry, keep bool) *time.Time {
	if !keep {
		return nil
	}
	return &e.CreatedAt
}

// attemptLogs are log entries, a slice per column of webhooks.delivery_log.
type attemptLogs struct {
	id, subscriptionID, accountID            []string
	deliveryID                               []int64
	eventID, eventType, status, url, headers []string
	responseStatus                           []int64
	responseBody                             []string
	durationMS                               []int64
	errorMessage                             []*string
	attempt                                  []int64
	nextRetryAt                              []*time.Time
	createdAt                                []time.Time
}

func (c *attemptLogs) add(e domain.LogEntry) {
	c.id = append(c.id, e.ID)
	c.subscriptionID = append(c.subscriptionID, e.SubscriptionID)
	c.accountID = append(c.accountID, e.AccountID)
	c.deliveryID = append(c.deliveryID, e.DeliveryID)
	c.eventID = append(c.eventID, e.EventID)
	c.eventType = append(c.eventType, e.EventType)
	c.status = append(c.status, e.Status)
	c.url = append(c.url, e.URL)
	c.headers = append(c.headers, headersJSON(e.RequestHeaders))
	c.responseStatus = append(c.responseStatus, int64(e.ResponseStatus))
	c.responseBody = append(c.responseBody, storableText(e.ResponseBody))
	c.durationMS = append(c.durationMS, e.DurationMS)
	c.errorMessage = append(c.errorMessage, e.ErrorMessage)
	c.attempt = append(c.attempt, int64(e.Attempt))
	c.nextRetryAt = append(c.nextRetryAt, e.NextRetryAt)
	c.createdAt = append(c.createdAt, e.CreatedAt)
}

func (c *attemptLogs) args() []any {
	return []any{pq.Array(c.id), pq.Array(c.subscriptionID), pq.Array(c.accountID), pq.Array(c.deliveryID), pq.Array(c.eventID),
		pq.Array(c.eventType), pq.Array(c.status), pq.Array(c.url), pq.Array(c.headers), pq.Array(c.responseStatus),
		pq.Array(c.responseBody), pq.Array(c.durationMS), pq.GenericArray{A: c.errorMessage}, pq.Array(c.attempt),
		pq.GenericArray{A: c.nextRetryAt}, pq.GenericArray{A: c.createdAt}}
}

// recordLocked applies the attempts to their stored deliveries, locked.
func recordLocked(ctx context.Context, db *sqlx.DB, batch []*recording) error {
	ids := make([]int64, len(batch))
	for i, r := range batch {
		ids[i] = r.claimed.ID
	}
	return postgres.InTx(ctx, db, func(tx *sqlx.Tx) error {
		// Locked in id order, so two instances' batches cannot deadlock.
		var rows []deliveryRow
		if err := tx.SelectContext(ctx, &rows, `SELECT id, subscription_id, account_id, event_id, event_type, coalesce(resource_id, '') AS resource_id, '' AS body, attempts,
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
		var ds deliveryStates
		var logs attemptLogs
		for _, r := range batch {
			d, ok := current[r.claimed.ID]
			if !ok {
				// Gone: it succeeded (another worker's attempt, after this
				// claim's lease ran out) or was purged. The attempt was
				// made all the same and is logged, scheduling nothing.
				gone := r.claimed
				gone.NextAttemptAt = nil
				if entry, keep := r.fn(&gone, false); keep {
					logs.add(entry)
				}
				continue
			}
			stored := d.Attempts
			entry, keep := r.fn(d, active[d.SubscriptionID])
			ds.add(stored, d, attemptAt(entry, keep))
			if keep {
				logs.add(entry)
			}
		}
		if _, err := tx.ExecContext(ctx, recordStatement, append(append(ds.args(), logs.args()...), true)...); err != nil {
			return fmt.Errorf("recording webhook deliveries: %w", err)
		}
		return nil
	})
}

// storableText makes any bytes a receiver sent fit a text column: valid
// UTF-8 without NUL.
func storableText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// purgeBatch bounds one delete, so a purge never holds many locks for long.
const purgeBatch = 5000

// Purge deletes, batch by batch, logs made before before, finished
// deliveries whose last attempt (or creation, without one) came before it,
// the bodies of events older than it that no delivery and no log is left
// of, and subscriptions deleted before it. Logs go first, then deliveries,
// then bodies: the body a log shows is never purged before the log.
func (s *DeliveryStore) Purge(ctx context.Context, before time.Time) (int64, error) {
	statements := []string{
		`DELETE FROM webhooks.delivery_log WHERE id IN (SELECT id FROM webhooks.delivery_log WHERE created_at < $1 LIMIT $2)`,
		`DELETE FROM webhooks.deliveries WHERE id IN (SELECT id FROM webhooks.deliveries
			WHERE coalesce(last_attempt_at, created_at) < $1 AND next_attempt_at IS NULL LIMIT $2)`,
		`DELETE FROM webhooks.event_bodies WHERE event_id IN (SELECT b.event_id FROM webhooks.event_bodies b
			WHERE b.created_at < $1 AND NOT EXISTS (SELECT FROM webhooks.deliveries d WHERE d.event_id = b.event_id)
			AND NOT EXISTS (SELECT FROM webhooks.delivery_log l WHERE l.event_id = b.event_id) LIMIT $2)`,
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
