package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/tracking/contract"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// ParcelListProjection builds tracking.parcel_list from the module's events.
type ParcelListProjection struct {
	db *sqlx.DB
}

// NewParcelListProjection returns the projection.
func NewParcelListProjection(db *sqlx.DB) *ParcelListProjection { return &ParcelListProjection{db: db} }

// Register subscribes the projection. Events of one parcel arrive on
// several topics, so each is applied only when newer than the row (version
// guard); a delete leaves a tombstone. status_changed always comes with an
// updated event of the same version, so the projection needs only these three.
func (p *ParcelListProjection) Register(bus *messaging.Bus) error {
	return errors.Join(
		messaging.OnEvent(bus, "tracking.parcel_list.on_created", func(ctx context.Context, e *contract.TrackingParcelCreated) error {
			return p.apply(ctx, e.TrackingParcelEvent, false)
		}),
		messaging.OnEvent(bus, "tracking.parcel_list.on_updated", func(ctx context.Context, e *contract.TrackingParcelUpdated) error {
			return p.apply(ctx, e.TrackingParcelEvent, false)
		}),
		messaging.OnEvent(bus, "tracking.parcel_list.on_deleted", func(ctx context.Context, e *contract.TrackingParcelDeleted) error {
			return p.apply(ctx, e.TrackingParcelEvent, true)
		}),
	)
}

// apply writes the event in its own short transaction, committed before
// the message is acknowledged: the subscriber's batch transaction then holds
// no row locks, so consumer groups never deadlock (ADR 0019). The write is
// version-guarded, so a redelivery changes nothing.
func (p *ParcelListProjection) apply(ctx context.Context, e contract.TrackingParcelEvent, deleted bool) error {
	return postgres.InTx(ctx, p.db, func(tx *sqlx.Tx) error { return p.write(ctx, e, deleted, tx) })
}

func (p *ParcelListProjection) write(ctx context.Context, e contract.TrackingParcelEvent, deleted bool, tx *sqlx.Tx) error {
	tp := e.TrackingParcel
	record, err := json.Marshal(tp.Summary())
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO tracking.parcel_list
		(id, account_id, version, deleted, status, channel_id, tracking_number, created_at, record)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, status = excluded.status,
			record = excluded.record
		WHERE parcel_list.version < excluded.version`,
		tp.ID, e.AccountID, e.Version, deleted, tp.Status, tp.ShippingChannelID, tp.TrackingNumber, tp.CreatedAt, record)
	if err != nil {
		return fmt.Errorf("projecting tracking parcel %s v%d: %w", tp.ID, e.Version, err)
	}
	return nil
}
