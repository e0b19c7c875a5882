package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/contract"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// ShipmentListProjection builds shipments.shipment_list and its counters
// from the module's events.
type ShipmentListProjection struct {
	db *sqlx.DB
}

// NewShipmentListProjection returns the projection.
func NewShipmentListProjection(db *sqlx.DB) *ShipmentListProjection {
	return &ShipmentListProjection{db: db}
}

// Register subscribes the projection to every shipment event. Events of one
// shipment arrive on several topics, so each is applied only when newer
// than the row (version guard); a delete leaves a tombstone. Every
// status_changed comes with a created or updated event of the same version,
// so the projection does not subscribe to it.
func (p *ShipmentListProjection) Register(bus *messaging.Bus) error {
	return errors.Join(
		messaging.OnEvent(bus, "shipments.shipment_list.on_requested", func(ctx context.Context, e *contract.ShipmentRequested) error {
			return p.apply(ctx, e.ShipmentEvent, false)
		}),
		messaging.OnEvent(bus, "shipments.shipment_list.on_created", func(ctx context.Context, e *contract.ShipmentCreated) error {
			return p.apply(ctx, e.ShipmentEvent, false)
		}),
		messaging.OnEvent(bus, "shipments.shipment_list.on_updated", func(ctx context.Context, e *contract.ShipmentUpdated) error {
			return p.apply(ctx, e.ShipmentEvent, false)
		}),
		messaging.OnEvent(bus, "shipments.shipment_list.on_deleted", func(ctx context.Context, e *contract.ShipmentDeleted) error {
			return p.apply(ctx, e.ShipmentEvent, true)
		}),
	)
}

type listKey struct {
	Version   int    `db:"version"`
	Deleted   bool   `db:"deleted"`
	Status    string `db:"status"`
	ChannelID string `db:"channel_id"`
}

// apply writes the event in its own short transaction, committed before
// the message is acknowledged: the subscriber's batch transaction then holds
// no row locks, so consumer groups never deadlock (ADR 0019). The write is
// version-guarded, so a redelivery changes nothing.
func (p *ShipmentListProjection) apply(ctx context.Context, e contract.ShipmentEvent, deleted bool) error {
	return postgres.InTx(ctx, p.db, func(tx *sqlx.Tx) error { return p.write(ctx, e, deleted, tx) })
}

func (p *ShipmentListProjection) write(ctx context.Context, e contract.ShipmentEvent, deleted bool, tx *sqlx.Tx) error {
	sh := e.Shipment
	var old listKey
	err := tx.GetContext(ctx, &old, `SELECT version, deleted, status, channel_id FROM shipments.shipment_list WHERE id = $1 FOR UPDATE`, sh.ID)
	existed := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if existed && old.Version >= e.Version {
		return nil // an older or repeated event
	}
	record, err := json.Marshal(sh.Summary())
	if err != nil {
		return err
	}
	if existed {
		_, err = tx.ExecContext(ctx, `UPDATE shipments.shipment_list SET version = $2, deleted = $3, status = $4,
			reference_number = $5, provider_shipment_id = $6, record = $7 WHERE id = $1`,
			sh.ID, e.Version, deleted, sh.Status, sh.ReferenceNumber, sh.ProviderShipmentID, record)
	} else {
		_, err = tx.ExecContext(ctx, `
			WITH next AS (
				INSERT INTO shipments.shipment_list_seq (account_id, last_seq) VALUES ($2, 1)
				ON CONFLICT (account_id) DO UPDATE SET last_seq = shipment_list_seq.last_seq + 1
				RETURNING last_seq)
			INSERT INTO shipments.shipment_list (id, account_id, seq, version, deleted, status, channel_id, reference_number, provider_shipment_id, created_at, record)
			SELECT $1, $2, last_seq, $3, $4, $5, $6, $7, $8, $9, $10 FROM next`,
			sh.ID, e.AccountID, e.Version, deleted, sh.Status, sh.ShippingChannelID, sh.ReferenceNumber, sh.ProviderShipmentID, sh.CreatedAt, record)
	}
	if err != nil {
		return fmt.Errorf("projecting shipment %s v%d: %w", sh.ID, e.Version, err)
	}
	if existed && !old.Deleted {
		if err := count(ctx, tx, e.AccountID, old.Status, old.ChannelID, -1); err != nil {
			return err
		}
	}
	if !deleted {
		return count(ctx, tx, e.AccountID, sh.Status, sh.ShippingChannelID, 1)
	}
	return nil
}

func count(ctx context.Context, tx *sqlx.Tx, account, status, channel string, delta int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO shipments.shipment_counts (account_id, status, channel_id, n) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, status, channel_id) DO UPDATE SET n = shipment_counts.n + excluded.n`, account, status, channel, delta)
	if err != nil {
		return fmt.Errorf("counting shipments: %w", err)
	}
	return nil
}
