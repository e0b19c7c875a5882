// Package adapters is the webhooks module's driven side: the PostgreSQL
// repository of subscriptions, the delivery store and log reader, and the
// HTTP client that makes the signed POSTs.
package adapters

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/postgres"
	"shipd/platform/secrets"
)

// PostgresRepository keeps subscriptions in webhooks.subscriptions, the
// secret sealed.
type PostgresRepository struct {
	db    *sqlx.DB
	box   *secrets.Box
	clock clock.Clock
}

// NewPostgresRepository needs the webhooks module's database, the box whose
// key seals subscription secrets, and the clock that stamps deletions.
func NewPostgresRepository(db *sqlx.DB, box *secrets.Box, clk clock.Clock) *PostgresRepository {
	return &PostgresRepository{db: db, box: box, clock: clk}
}

var _ domain.Repository = (*PostgresRepository)(nil)

type subscriptionRow struct {
	ID        string         `db:"id"`
	AccountID string         `db:"account_id"`
	Name      string         `db:"name"`
	URL       string         `db:"url"`
	Events    pq.StringArray `db:"events"`
	Secret    string         `db:"secret"`
	Active    bool           `db:"active"`
	Version   int            `db:"version"`
	CreatedAt time.Time      `db:"created_at"`
	UpdatedAt time.Time      `db:"updated_at"`
}

const subscriptionColumns = `id, account_id, name, url, events, secret, active, version, created_at, updated_at`

// Add inserts the subscription, its secret sealed.
func (r *PostgresRepository) Add(ctx context.Context, s *domain.Subscription) error {
	row, err := r.toRow(s)
	if err != nil {
		return err
	}
	// In a transaction of its own (one statement) so that a request's
	// transaction scope takes it in with the request's answer (ADR 0007).
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		_, err := tx.NamedExecContext(ctx, `INSERT INTO webhooks.subscriptions (`+subscriptionColumns+`) VALUES
			(:id, :account_id, :name, :url, :events, :secret, :active, :version, :created_at, :updated_at)`, row)
		if err != nil {
			return fmt.Errorf("inserting webhook subscription: %w", err)
		}
		return nil
	})
}

// Get loads a subscription that was not deleted.
func (r *PostgresRepository) Get(ctx context.Context, id string) (*domain.Subscription, error) {
	return r.load(ctx, postgres.Reader(ctx, r.db), id, "")
}

// Update changes one subscription under a row lock; one left inactive has
// its pending deliveries cancelled in the same transaction.
func (r *PostgresRepository) Update(ctx context.Context, id string, fn func(s *domain.Subscription) error) (*domain.Subscription, error) {
	var out *domain.Subscription
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		s, err := r.load(ctx, tx, id, " FOR UPDATE")
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
		row, err := r.toRow(s)
		if err != nil {
			return err
		}
		if _, err := tx.NamedExecContext(ctx, `UPDATE webhooks.subscriptions SET name = :name, url = :url, events = :events,
			secret = :secret, active = :active, version = :version, updated_at = :updated_at WHERE id = :id`, row); err != nil {
			return fmt.Errorf("updating webhook subscription: %w", err)
		}
		out = s
		if !s.Active() {
			return cancelPending(ctx, tx, id)
		}
		return nil
	})
	return out, err
}

// Delete leaves a tombstone (the logs stay readable until they expire) and
// cancels the pending deliveries.
func (r *PostgresRepository) Delete(ctx context.Context, id string, fn func(s *domain.Subscription) error) error {
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		s, err := r.load(ctx, tx, id, " FOR UPDATE")
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks.subscriptions SET deleted_at = $2, active = false WHERE id = $1`, id, r.clock.Now()); err != nil {
			return fmt.Errorf("deleting webhook subscription: %w", err)
		}
		return cancelPending(ctx, tx, id)
	})
}

func cancelPending(ctx context.Context, tx *sqlx.Tx, subscriptionID string) error {
	_, err := tx.ExecContext(ctx, `UPDATE webhooks.deliveries SET next_attempt_at = NULL, outcome = $2
		WHERE subscription_id = $1 AND next_attempt_at IS NOT NULL`, subscriptionID, domain.OutcomeCancelled)
	if err != nil {
		return fmt.Errorf("cancelling pending deliveries: %w", err)
	}
	return nil
}

func (r *PostgresRepository) load(ctx context.Context, q sqlx.QueryerContext, id, lock string) (*domain.Subscription, error) {
	var row subscriptionRow
	err := sqlx.GetContext(ctx, q, &row, `SELECT `+subscriptionColumns+` FROM webhooks.subscriptions WHERE id = $1 AND deleted_at IS NULL`+lock, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.NotFound("Webhook subscription")
	}
	if err != nil {
		return nil, fmt.Errorf("loading webhook subscription: %w", err)
	}
	secret, err := r.box.Open(row.Secret)
	if err != nil {
		return nil, fmt.Errorf("webhook subscription %s: %w", id, err)
	}
	return domain.Restore(domain.Stored{ID: row.ID, AccountID: row.AccountID, Name: row.Name, URL: row.URL, Events: row.Events,
		Secret: string(secret), Active: row.Active, Version: row.Version, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}), nil
}

func (r *PostgresRepository) toRow(s *domain.Subscription) (subscriptionRow, error) {
	st := s.Stored()
	sealed, err := r.box.Seal([]byte(st.Secret))
	if err != nil {
		return subscriptionRow{}, err
	}
	return subscriptionRow{ID: st.ID, AccountID: st.AccountID, Name: st.Name, URL: st.URL, Events: st.Events, Secret: sealed,
		Active: st.Active, Version: st.Version, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}, nil
}
