// Package adapters is the shipments module's driven side: the PostgreSQL
// repository, the booking queue, and the list read model.
package adapters

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// PostgresRepository keeps shipments in shipments.shipments and publishes
// their events through the outbox in the same transaction, with the
// tracking a shipment asks for (TakeTrackingRequest).
type PostgresRepository struct {
	db     *sqlx.DB
	outbox *messaging.Outbox
	clock  clock.Clock
}

// NewPostgresRepository needs the shipments module's database, the outbox
// the events and commands go through, and the clock that says whether a
// booking's lease still holds (Delete refuses a shipment being booked).
func NewPostgresRepository(db *sqlx.DB, outbox *messaging.Outbox, clk clock.Clock) *PostgresRepository {
	return &PostgresRepository{db: db, outbox: outbox, clock: clk}
}

var _ domain.Repository = (*PostgresRepository)(nil)

// Add inserts the shipment, due for booking at once.
func (r *PostgresRepository) Add(ctx context.Context, sh *domain.Shipment, events ...domain.Event) error {
	st := sh.Stored()
	state, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO shipments.shipments
			(id, account_id, channel_id, status, state, version, created_at, updated_at, booking_due, next_attempt_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $7)`,
			st.ID, st.AccountID, st.ChannelID, st.Status, string(state), st.Version, st.CreatedAt, st.UpdatedAt, sh.AwaitsCarrier())
		if err != nil {
			return fmt.Errorf("inserting shipment: %w", err)
		}
		return r.publish(ctx, tx, events, sh.TakeTrackingRequest())
	})
}

// Get loads one shipment.
func (r *PostgresRepository) Get(ctx context.Context, id string) (*domain.Shipment, error) {
	sh, _, err := load(ctx, postgres.Reader(ctx, r.db), id, "")
	return sh, err
}

type row struct {
	State      []byte     `db:"state"`
	BookingDue bool       `db:"booking_due"`
	LeaseUntil *time.Time `db:"lease_until"`
}

func load(ctx context.Context, q sqlx.QueryerContext, id, lock string) (*domain.Shipment, row, error) {
	var rw row
	err := sqlx.GetContext(ctx, q, &rw, `SELECT state, booking_due, lease_until FROM shipments.shipments WHERE id = $1`+lock, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, rw, fault.NotFound("Shipment")
	}
	if err != nil {
		return nil, rw, fmt.Errorf("loading shipment: %w", err)
	}
	sh, err := restore(id, rw.State)
	return sh, rw, err
}

// restore reads a shipment back from its stored state.
func restore(id string, state []byte) (*domain.Shipment, error) {
	var st domain.Stored
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("shipment %s state: %w", id, err)
	}
	return domain.Restore(st), nil
}

// Update changes one shipment under a row lock and saves it when fn named
// events or changed what is stored without one (a booking's handle). A
// booking lease held by a worker is kept while the booking is still due.
func (r *PostgresRepository) Update(ctx context.Context, id string, fn func(sh *domain.Shipment) ([]domain.Event, error)) (*domain.Shipment, error) {
	var out *domain.Shipment
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		if err := postgres.LockForChange(ctx, tx, id); err != nil {
			return err
		}
		sh, _, err := load(ctx, tx, id, " FOR UPDATE")
		if err != nil {
			return err
		}
		before, err := json.Marshal(sh.Stored())
		if err != nil {
			return err
		}
		events, err := fn(sh)
		if err != nil {
			return err
		}
		out = sh
		st := sh.Stored()
		state, err := json.Marshal(st)
		if err != nil {
			return err
		}
		parts := sh.TakeLabelPartsChange()
		if len(events) == 0 && bytes.Equal(state, before) && parts == nil {
			return nil // nothing changed
		}
		due := sh.AwaitsCarrier()
		_, err = tx.ExecContext(ctx, `UPDATE shipments.shipments SET status = $2, state = $3, version = $4, updated_at = $5,
			booking_due = $6, lease_until = CASE WHEN $6 THEN lease_until ELSE NULL END WHERE id = $1`,
			id, st.Status, string(state), st.Version, st.UpdatedAt, due)
		if err != nil {
			return fmt.Errorf("updating shipment: %w", err)
		}
		if parts != nil {
			if err := saveLabelParts(ctx, tx, id, *parts); err != nil {
				return err
			}
		}
		if l := sh.TakeNewLabel(); l != nil {
			_, err = tx.ExecContext(ctx, `INSERT INTO shipments.labels (shipment_id, format, mime_type, data, created_at)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT (shipment_id) DO UPDATE SET format = excluded.format,
				mime_type = excluded.mime_type, data = excluded.data, created_at = excluded.created_at`,
				id, l.Format, l.MIMEType, l.Data, st.UpdatedAt)
			if err != nil {
				return fmt.Errorf("storing label: %w", err)
			}
		}
		return r.publish(ctx, tx, events, sh.TakeTrackingRequest())
	})
	return out, err
}

// Delete removes one shipment under a row lock; one whose booking a worker
// holds right now is refused (the carrier may be creating it).
func (r *PostgresRepository) Delete(ctx context.Context, id string, fn func(sh *domain.Shipment) ([]domain.Event, error)) error {
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		if err := postgres.LockForChange(ctx, tx, id); err != nil {
			return err
		}
		sh, rw, err := load(ctx, tx, id, " FOR UPDATE")
		if err != nil {
			return err
		}
		events, err := fn(sh)
		if err != nil {
			return err
		}
		if rw.BookingDue && rw.LeaseUntil != nil && rw.LeaseUntil.After(r.clock.Now()) {
			return fault.Field("status", "the carrier is creating this shipment right now; delete it once it has answered")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM shipments.shipments WHERE id = $1`, id); err != nil {
			return fmt.Errorf("deleting shipment: %w", err)
		}
		return r.publish(ctx, tx, events, nil)
	})
}

// saveLabelParts replaces the shipment's kept label parts with parts (none
// forgets them).
func saveLabelParts(ctx context.Context, tx *sqlx.Tx, id string, parts domain.LabelParts) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM shipments.label_parts WHERE shipment_id = $1`, id); err != nil {
		return fmt.Errorf("forgetting label parts: %w", err)
	}
	for i, data := range parts.Parts {
		if _, err := tx.ExecContext(ctx, `INSERT INTO shipments.label_parts (shipment_id, part, format, data) VALUES ($1, $2, $3, $4)`,
			id, i, parts.Format, data); err != nil {
			return fmt.Errorf("keeping label parts: %w", err)
		}
	}
	return nil
}

// LabelParts returns the kept label parts, in parcel order.
func (r *PostgresRepository) LabelParts(ctx context.Context, id string) (domain.LabelParts, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT format, data FROM shipments.label_parts WHERE shipment_id = $1 ORDER BY part`, id)
	if err != nil {
		return domain.LabelParts{}, fmt.Errorf("loading label parts: %w", err)
	}
	defer rows.Close() // read only; rows.Err below reports a failed read
	var out domain.LabelParts
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&out.Format, &data); err != nil {
			return domain.LabelParts{}, fmt.Errorf("loading label parts: %w", err)
		}
		out.Parts = append(out.Parts, data)
	}
	return out, rows.Err()
}

// Label returns the stored merged label, or nil.
func (r *PostgresRepository) Label(ctx context.Context, id string) (*domain.Label, error) {
	var l domain.Label
	err := r.db.QueryRowContext(ctx, `SELECT format, mime_type, data FROM shipments.labels WHERE shipment_id = $1`, id).
		Scan(&l.Format, &l.MIMEType, &l.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("loading label: %w", err)
	}
	return &l, nil
}

// publish writes the change's events and sends the tracking it asked for,
// if any.
func (r *PostgresRepository) publish(ctx context.Context, tx *sqlx.Tx, events []domain.Event, tracking *domain.TrackingRequest) error {
	if err := messaging.PublishAll(ctx, r.outbox, tx, events); err != nil {
		return err
	}
	if tracking == nil {
		return nil
	}
	return r.outbox.Send(ctx, tx, TrackShipmentParcels(*tracking))
}
