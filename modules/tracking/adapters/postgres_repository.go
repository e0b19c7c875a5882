// Package adapters is the tracking module's driven side: the PostgreSQL
// repository, the check queue, and the list read model.
package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/tracking/domain"
	"shipd/platform/fault"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// PostgresRepository keeps tracking parcels in tracking.parcels and
// tracking.status_updates, and publishes their events through the outbox in
// the same transaction.
type PostgresRepository struct {
	db     *sqlx.DB
	outbox *messaging.Outbox
}

// NewPostgresRepository needs the tracking module's database and the outbox
// the events go through.
func NewPostgresRepository(db *sqlx.DB, outbox *messaging.Outbox) *PostgresRepository {
	return &PostgresRepository{db: db, outbox: outbox}
}

var _ domain.Repository = (*PostgresRepository)(nil)

// Add inserts the parcel; a duplicate number is found without a failed
// statement.
func (r *PostgresRepository) Add(ctx context.Context, p *domain.Parcel, events ...domain.Event) error {
	st := p.Stored()
	state, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO tracking.parcels
			(id, account_id, channel_id, tracking_number, shipment_id, state, version, next_check_at)
			VALUES ($1, $2, $3, $4, nullif($5, ''), $6, $7, $8)
			ON CONFLICT ON CONSTRAINT parcels_number_key DO NOTHING`,
			st.ID, st.AccountID, st.ChannelID, st.TrackingNumber, st.ShipmentID, string(state), st.Version, st.NextCheckAt)
		if err != nil {
			return fmt.Errorf("inserting tracking parcel: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var existing string
			if err := tx.GetContext(ctx, &existing, `SELECT id FROM tracking.parcels
				WHERE account_id = $1 AND channel_id = $2 AND tracking_number = $3`, st.AccountID, st.ChannelID, st.TrackingNumber); err != nil {
				return fmt.Errorf("finding the tracking parcel of %s: %w", st.TrackingNumber, err)
			}
			return fault.Field("tracking_number", "is already tracked through this shipping channel as "+existing)
		}
		return messaging.PublishAll(ctx, r.outbox, tx, events)
	})
}

// Get loads one parcel with its status updates.
func (r *PostgresRepository) Get(ctx context.Context, id string) (*domain.Parcel, error) {
	return load(ctx, postgres.Reader(ctx, r.db), id, "")
}

// GetStored loads one parcel's state alone.
func (r *PostgresRepository) GetStored(ctx context.Context, id string) (domain.Stored, error) {
	return loadState(ctx, postgres.Reader(ctx, r.db), id, "")
}

func loadState(ctx context.Context, q sqlx.QueryerContext, id, lock string) (domain.Stored, error) {
	var raw []byte
	var st domain.Stored
	err := sqlx.GetContext(ctx, q, &raw, `SELECT state FROM tracking.parcels WHERE id = $1`+lock, id)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fault.NotFound("Tracking parcel")
	}
	if err != nil {
		return st, fmt.Errorf("loading tracking parcel: %w", err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("tracking parcel %s state: %w", id, err)
	}
	return st, nil
}

func load(ctx context.Context, q sqlx.QueryerContext, id, lock string) (*domain.Parcel, error) {
	st, err := loadState(ctx, q, id, lock)
	if err != nil {
		return nil, err
	}
	var updates []domain.StatusUpdate
	err = sqlx.SelectContext(ctx, q, &updates, `SELECT id, coalesce(status, '') AS status, carrier_code, description,
		location, occurred_at, fingerprint FROM tracking.status_updates WHERE parcel_id = $1 ORDER BY occurred_at, id`, id)
	if err != nil {
		return nil, fmt.Errorf("loading status updates: %w", err)
	}
	return domain.Restore(st, updates), nil
}

// change begins Update and Delete alike: the parcel's lock first, which
// keeps its events in order (postgres.LockForChange), then the parcel read
// under its row lock and changed by fn.
func change(ctx context.Context, tx *sqlx.Tx, id string, fn func(p *domain.Parcel) ([]domain.Event, error)) (*domain.Parcel, []domain.Event, error) {
	if err := postgres.LockForChange(ctx, tx, id); err != nil {
		return nil, nil, err
	}
	p, err := load(ctx, tx, id, " FOR UPDATE")
	if err != nil {
		return nil, nil, err
	}
	events, err := fn(p)
	return p, events, err
}

// Update changes one parcel under a row lock and releases its check lease.
func (r *PostgresRepository) Update(ctx context.Context, id string, fn func(p *domain.Parcel) ([]domain.Event, error)) (*domain.Parcel, error) {
	var out *domain.Parcel
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		p, events, err := change(ctx, tx, id, fn)
		if err != nil {
			return err
		}
		out = p
		st := p.Stored()
		state, err := json.Marshal(st)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE tracking.parcels SET state = $2, version = $3, next_check_at = $4,
			lease_until = NULL WHERE id = $1`, id, string(state), st.Version, st.NextCheckAt)
		if err != nil {
			return fmt.Errorf("updating tracking parcel: %w", err)
		}
		for _, u := range p.TakeAdded() {
			_, err = tx.ExecContext(ctx, `INSERT INTO tracking.status_updates
				(id, parcel_id, status, carrier_code, description, location, occurred_at, fingerprint)
				VALUES ($1, $2, nullif($3, ''), $4, $5, $6, $7, $8) ON CONFLICT ON CONSTRAINT status_updates_fingerprint_key DO NOTHING`,
				u.ID, id, string(u.Status), u.CarrierCode, u.Description, u.Location, u.At, u.Fingerprint)
			if err != nil {
				return fmt.Errorf("recording status update: %w", err)
			}
		}
		return messaging.PublishAll(ctx, r.outbox, tx, events)
	})
	return out, err
}

// Delete removes one parcel (its status updates with it) under a row lock.
func (r *PostgresRepository) Delete(ctx context.Context, id string, fn func(p *domain.Parcel) ([]domain.Event, error)) error {
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		_, events, err := change(ctx, tx, id, fn)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tracking.parcels WHERE id = $1`, id); err != nil {
			return fmt.Errorf("deleting tracking parcel: %w", err)
		}
		return messaging.PublishAll(ctx, r.outbox, tx, events)
	})
}
