package adapters

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
)

// SubscriptionListReader lists subscriptions straight from their table: an
// account has a handful, already shaped like the API record but for the
// secret, which a list never needs to open.
type SubscriptionListReader struct {
	db *sqlx.DB
}

// NewSubscriptionListReader reads db's webhooks.subscriptions; unlike the
// other lists it is never behind the write model.
func NewSubscriptionListReader(db *sqlx.DB) *SubscriptionListReader {
	return &SubscriptionListReader{db: db}
}

var _ query.SubscriptionList = (*SubscriptionListReader)(nil)

// ListSubscriptions returns one page, newest first.
func (r *SubscriptionListReader) ListSubscriptions(ctx context.Context, q query.ListSubscriptions) (query.SubscriptionPage, error) {
	var rows []subscriptionRow
	err := r.db.SelectContext(ctx, &rows, `SELECT `+subscriptionColumns+` FROM webhooks.subscriptions
		WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`, q.AccountID, q.Offset, q.Limit)
	if err != nil {
		return query.SubscriptionPage{}, fmt.Errorf("listing webhook subscriptions: %w", err)
	}
	page := query.SubscriptionPage{Records: make([]contract.Subscription, len(rows))}
	for i, row := range rows {
		page.Records[i] = contract.Subscription{ID: row.ID, Name: row.Name, URL: row.URL, Events: row.Events, Secret: contract.MaskedSecret,
			Active: row.Active, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}
	}
	err = r.db.GetContext(ctx, &page.Total, `SELECT count(*) FROM webhooks.subscriptions WHERE account_id = $1 AND deleted_at IS NULL`, q.AccountID)
	if err != nil {
		return query.SubscriptionPage{}, fmt.Errorf("counting webhook subscriptions: %w", err)
	}
	return page, nil
}
