package adapters

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/tracking/contract"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// ParcelListProjection builds tracking.parcel_list from the module's events.
type ParcelListProjection struct {
	db *sqlx.DB
}

// NewParcelListProjection returns the projection.
func NewParcelListProjection(db *sqlx.DB) *ParcelListProjection { return &ParcelListProjection{db: db} }

// Register subscribes the projection's live handlers.
func (p *ParcelListProjection) Register(bus *messaging.Bus) error {
	return p.Definition().Subscribe(bus)
}

// Definition is the read model as the bus and a rebuild see it. Events of
// one parcel arrive on several topics, so each is applied only when newer
// than the row (version guard); a delete leaves a tombstone. status_changed
// always comes with an updated event of the same version, so the projection
// needs only these three.
func (p *ParcelListProjection) Definition() projection.Projection {
	return projection.Projection{
		Name:   "tracking.parcel_list",
		Tables: []string{"tracking.parcel_list"},
		Appliers: func(tables projection.Tables) []messaging.Applier {
			upsert := tables.SQL(`INSERT INTO tracking.parcel_list AS l
				(id, account_id, version, deleted, status, channel_id, tracking_number, created_at, record)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, status = excluded.status,
					record = excluded.record
				WHERE l.version < excluded.version`)
			write := func(ctx context.Context, tx *sqlx.Tx, e contract.TrackingParcelEvent, deleted bool) error {
				return writeParcel(ctx, tx, upsert, e, deleted)
			}
			return []messaging.Applier{
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.TrackingParcelCreated) error {
					return write(ctx, tx, e.TrackingParcelEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.TrackingParcelUpdated) error {
					return write(ctx, tx, e.TrackingParcelEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.TrackingParcelDeleted) error {
					return write(ctx, tx, e.TrackingParcelEvent, true)
				}),
			}
		},
	}
}

// writeParcel applies one event with upsert, the version-guarded statement
// for the tables being written; a redelivery changes nothing.
func writeParcel(ctx context.Context, tx *sqlx.Tx, upsert string, e contract.TrackingParcelEvent, deleted bool) error {
	tp := e.TrackingParcel
	record, err := json.Marshal(tp.Summary())
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, upsert,
		tp.ID, e.AccountID, e.Version, deleted, tp.Status, tp.ShippingChannelID, tp.TrackingNumber, tp.CreatedAt, record)
	if err != nil {
		return fmt.Errorf("projecting tracking parcel %s v%d: %w", tp.ID, e.Version, err)
	}
	return nil
}
