package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/platform/fault"
)

// DeliveryLogReader reads webhooks.delivery_log, whose rows are already
// shaped like the API's log record.
type DeliveryLogReader struct {
	db *sqlx.DB
}

// NewDeliveryLogReader reads db's webhooks.delivery_log, which the
// DeliveryStore writes.
func NewDeliveryLogReader(db *sqlx.DB) *DeliveryLogReader {
	return &DeliveryLogReader{db: db}
}

var _ query.DeliveryLogs = (*DeliveryLogReader)(nil)

type logRow struct {
	ID             string         `db:"id"`
	SubscriptionID string         `db:"subscription_id"`
	EventID        string         `db:"event_id"`
	EventType      string         `db:"event_type"`
	Status         string         `db:"status"`
	URL            string         `db:"url"`
	RequestHeaders string         `db:"request_headers"`
	RequestBody    string         `db:"request_body"`
	ResponseStatus int            `db:"response_status"`
	ResponseBody   string         `db:"response_body"`
	DurationMS     int64          `db:"duration_ms"`
	ErrorMessage   sql.NullString `db:"error_message"`
	Attempt        int            `db:"attempt"`
	NextRetryAt    *time.Time     `db:"next_retry_at"`
	CreatedAt      time.Time      `db:"created_at"`
}

// logsFrom reads the logs with their delivery: a retry the attempt scheduled
// and that a pause or delete then cancelled is no next retry any more; and
// with their event's body, which a log does not copy.
const logsFrom = `SELECT l.id, l.subscription_id, l.event_id, l.event_type, l.status, l.url, l.request_headers,
	coalesce(l.request_body, b.body, '') AS request_body,
	l.response_status, l.response_body, l.duration_ms, l.error_message, l.attempt,
	CASE WHEN d.outcome = 'cancelled' THEN NULL ELSE l.next_retry_at END AS next_retry_at, l.created_at
	FROM webhooks.delivery_log l LEFT JOIN webhooks.deliveries d ON d.id = l.delivery_id
	LEFT JOIN webhooks.event_bodies b ON b.event_id = l.event_id`

func (r logRow) record() (contract.DeliveryLog, error) {
	out := contract.DeliveryLog{ID: r.ID, WebhookSubscriptionID: r.SubscriptionID, EventID: r.EventID, EventType: r.EventType,
		Status: r.Status, URL: r.URL, RequestBody: r.RequestBody, ResponseStatus: r.ResponseStatus, ResponseBody: r.ResponseBody,
		DurationMS: r.DurationMS, Attempt: r.Attempt, NextRetryAt: r.NextRetryAt, CreatedAt: r.CreatedAt}
	if r.ErrorMessage.Valid {
		out.ErrorMessage = &r.ErrorMessage.String
	}
	if err := json.Unmarshal([]byte(r.RequestHeaders), &out.RequestHeaders); err != nil {
		return contract.DeliveryLog{}, fmt.Errorf("delivery log %s headers: %w", r.ID, err)
	}
	return out, nil
}

// SubscriptionAccount returns the account of a subscription, deleted or not.
func (r *DeliveryLogReader) SubscriptionAccount(ctx context.Context, subscriptionID string) (string, error) {
	var account string
	err := r.db.GetContext(ctx, &account, `SELECT account_id FROM webhooks.subscriptions WHERE id = $1`, subscriptionID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fault.NotFound("Webhook subscription")
	}
	if err != nil {
		return "", fmt.Errorf("loading webhook subscription account: %w", err)
	}
	return account, nil
}

// ListDeliveryLogs returns one page of a subscription's logs, newest first.
func (r *DeliveryLogReader) ListDeliveryLogs(ctx context.Context, q query.ListDeliveryLogs) (query.DeliveryLogPage, error) {
	where := `l.subscription_id = $1 AND ($2 = '' OR l.status = $2) AND ($3 = '' OR l.event_type = $3)`
	var rows []logRow
	err := r.db.SelectContext(ctx, &rows, logsFrom+` WHERE `+where+`
		ORDER BY l.created_at DESC, l.id DESC OFFSET $4 LIMIT $5`, q.SubscriptionID, q.Status, q.EventType, q.Offset, q.Limit)
	if err != nil {
		return query.DeliveryLogPage{}, fmt.Errorf("listing delivery logs: %w", err)
	}
	page := query.DeliveryLogPage{Records: make([]contract.DeliveryLog, len(rows))}
	for i, row := range rows {
		if page.Records[i], err = row.record(); err != nil {
			return query.DeliveryLogPage{}, err
		}
	}
	err = r.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM webhooks.delivery_log l WHERE `+where, q.SubscriptionID, q.Status, q.EventType)
	if err != nil {
		return query.DeliveryLogPage{}, fmt.Errorf("counting delivery logs: %w", err)
	}
	return page, nil
}

// GetDeliveryLog returns one log of the subscription.
func (r *DeliveryLogReader) GetDeliveryLog(ctx context.Context, subscriptionID, id string) (contract.DeliveryLog, error) {
	var row logRow
	err := r.db.GetContext(ctx, &row, logsFrom+` WHERE l.id = $1 AND l.subscription_id = $2`, id, subscriptionID)
	if errors.Is(err, sql.ErrNoRows) {
		return contract.DeliveryLog{}, fault.NotFound("Webhook subscription log")
	}
	if err != nil {
		return contract.DeliveryLog{}, fmt.Errorf("loading delivery log: %w", err)
	}
	return row.record()
}
