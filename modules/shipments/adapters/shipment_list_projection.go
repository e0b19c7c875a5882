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
	"shipd/platform/projection"
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

// Register subscribes the projection's live handlers.
func (p *ShipmentListProjection) Register(bus *messaging.Bus) error {
	return p.Definition().Subscribe(bus)
}

// Definition is the read model as the bus and a rebuild see it. Events of
// one shipment arrive on several topics, so each is applied only when newer
// than the row (version guard); a delete leaves a tombstone. Every
// status_changed comes with a created or updated event of the same version,
// so the projection does not subscribe to it.
func (p *ShipmentListProjection) Definition() projection.Projection {
	return projection.Projection{
		Name: "shipments.shipment_list",
		// The order write locks them in: the account's seq (for a shipment
		// not listed yet), the row, the counters.
		Tables: []string{"shipments.shipment_list", "shipments.shipment_list_seq", "shipments.shipment_counts"},
		Appliers: func(tables projection.Tables) []messaging.Applier {
			w := newShipmentListWriter(tables)
			return []messaging.Applier{
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShipmentRequested) error {
					return w.write(ctx, tx, e.ShipmentEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShipmentCreated) error {
					return w.write(ctx, tx, e.ShipmentEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShipmentUpdated) error {
					return w.write(ctx, tx, e.ShipmentEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShipmentDeleted) error {
					return w.write(ctx, tx, e.ShipmentEvent, true)
				}),
			}
		},
	}
}

// shipmentListWriter writes events into one set of the read model's tables:
// the live ones, or a rebuild's shadows.
type shipmentListWriter struct {
	lockRow, lockSeq, update, insert, count string
}

func newShipmentListWriter(t projection.Tables) shipmentListWriter {
	return shipmentListWriter{
		lockRow: t.SQL(`SELECT version, deleted, status, channel_id FROM shipments.shipment_list WHERE id = $1 FOR UPDATE`),
		// Made at 0 for a new account, so the insert's increment gives 1.
		lockSeq: t.SQL(`INSERT INTO shipments.shipment_list_seq AS s (account_id, last_seq) VALUES ($1, 0)
			ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq`),
		update: t.SQL(`UPDATE shipments.shipment_list SET version = $2, deleted = $3, status = $4,
			reference_number = $5, provider_shipment_id = $6, record = $7 WHERE id = $1`),
		insert: t.SQL(`
			WITH next AS (
				INSERT INTO shipments.shipment_list_seq AS s (account_id, last_seq) VALUES ($2, 1)
				ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + 1
				RETURNING last_seq)
			INSERT INTO shipments.shipment_list (id, account_id, seq, version, deleted, status, channel_id, reference_number, provider_shipment_id, created_at, record)
			SELECT $1, $2, last_seq, $3, $4, $5, $6, $7, $8, $9, $10 FROM next`),
		count: t.SQL(`INSERT INTO shipments.shipment_counts AS c (account_id, status, channel_id, n) VALUES ($1, $2, $3, $4)
			ON CONFLICT (account_id, status, channel_id) DO UPDATE SET n = c.n + excluded.n`),
	}
}

type listKey struct {
	Version   int    `db:"version"`
	Deleted   bool   `db:"deleted"`
	Status    string `db:"status"`
	ChannelID string `db:"channel_id"`
}

// write applies one event in tx. The write is version-guarded, so a
// redelivery changes nothing.
func (w shipmentListWriter) write(ctx context.Context, tx *sqlx.Tx, e contract.ShipmentEvent, deleted bool) error {
	sh := e.Shipment
	old, existed, err := w.lock(ctx, tx, e.AccountID, sh.ID)
	if err != nil {
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
		_, err = tx.ExecContext(ctx, w.update,
			sh.ID, e.Version, deleted, sh.Status, sh.ReferenceNumber, sh.ProviderShipmentID, record)
	} else {
		_, err = tx.ExecContext(ctx, w.insert,
			sh.ID, e.AccountID, e.Version, deleted, sh.Status, sh.ShippingChannelID, sh.ReferenceNumber, sh.ProviderShipmentID, sh.CreatedAt, record)
	}
	if err != nil {
		return fmt.Errorf("projecting shipment %s v%d: %w", sh.ID, e.Version, err)
	}
	if existed && !old.Deleted {
		if err := w.counted(ctx, tx, e.AccountID, old.Status, old.ChannelID, -1); err != nil {
			return err
		}
	}
	if !deleted {
		return w.counted(ctx, tx, e.AccountID, sh.Status, sh.ShippingChannelID, 1)
	}
	return nil
}

// lock locks the shipment's row and reads it. A shipment not listed yet
// has no row to lock, and its first events (requested, created, updated)
// arrive on several topics at once: two handlers would both find no row and
// both insert, and the second would fail on the primary key. So the account's
// seq row is locked first and the row looked for again: a row another
// handler inserted meanwhile is then committed and seen, and is updated under
// the version guard instead. The seq row is the lock, not an upsert of the
// list row, because an insert that loses to a conflict would still have
// taken a seq and left a gap in the dense sequence (ADR 0015).
func (w shipmentListWriter) lock(ctx context.Context, tx *sqlx.Tx, account, id string) (old listKey, existed bool, err error) {
	err = tx.GetContext(ctx, &old, w.lockRow, id)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := tx.ExecContext(ctx, w.lockSeq, account); err != nil {
			return old, false, fmt.Errorf("locking the account's shipment sequence: %w", err)
		}
		err = tx.GetContext(ctx, &old, w.lockRow, id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return old, false, nil
	}
	return old, err == nil, err
}

func (w shipmentListWriter) counted(ctx context.Context, tx *sqlx.Tx, account, status, channel string, delta int) error {
	if _, err := tx.ExecContext(ctx, w.count, account, status, channel, delta); err != nil {
		return fmt.Errorf("counting shipments: %w", err)
	}
	return nil
}
