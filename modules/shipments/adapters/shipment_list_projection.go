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
	db    *sqlx.DB
	block int64 // shipmentListBlock, smaller in tests
}

// NewShipmentListProjection returns the projection.
func NewShipmentListProjection(db *sqlx.DB) *ShipmentListProjection {
	return &ShipmentListProjection{db: db, block: shipmentListBlock}
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
		// not listed yet), the row, the counters, the block counts.
		Tables: []string{"shipments.shipment_list", "shipments.shipment_list_seq", "shipments.shipment_counts", "shipments.shipment_list_blocks"},
		Appliers: func(tables projection.Tables) []messaging.Applier {
			w := newShipmentListWriter(tables, p.block)
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

// shipmentListBlock is how many seqs of an account's list one row of
// shipments.shipment_list_blocks counts (ADR 0015; migration 00010 counted
// the rows it found with it). The reader skips fewer entries than this to
// reach a page inside a block, and reads at most last_seq / shipmentListBlock
// counts to find the block.
const shipmentListBlock = 4096

// shipmentListWriter writes events into one set of the read model's tables:
// the live ones, or a rebuild's shadows.
type shipmentListWriter struct {
	block                                   int64
	lockRow, lockSeq, update, insert, tally string
}

func newShipmentListWriter(t projection.Tables, block int64) shipmentListWriter {
	return shipmentListWriter{
		block:   block,
		lockRow: t.SQL(`SELECT version, deleted, status, channel_id, seq FROM shipments.shipment_list WHERE id = $1 FOR UPDATE`),
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
			SELECT $1, $2, last_seq, $3, $4, $5, $6, $7, $8, $9, $10 FROM next
			RETURNING seq`),
		// One live shipment of channel $2 in block $5 leaves status $3 and
		// enters status $4 ('' for none: a new or a deleted shipment). The
		// counter of the account, status and channel moves, and so do the
		// block's counts by status and channel, by status, by channel and of
		// all ('' is "any"), where they do not cancel out. Rows are written
		// in key order, so two writers cannot deadlock on them.
		tally: t.SQL(`
			WITH moved (status, n) AS (SELECT * FROM (VALUES ($3::text, -1), ($4::text, 1)) v WHERE v.column1 <> ''),
			counted AS (
				INSERT INTO shipments.shipment_counts AS c (account_id, status, channel_id, n)
				SELECT $1, status, $2, n FROM moved ORDER BY status
				ON CONFLICT (account_id, status, channel_id) DO UPDATE SET n = c.n + excluded.n)
			INSERT INTO shipments.shipment_list_blocks AS b (account_id, status, channel_id, block, n)
			SELECT $1, k.status, k.channel_id, $5, sum(m.n)
			FROM moved m, LATERAL (VALUES (m.status, $2::text), (m.status, ''), ('', $2::text), ('', '')) AS k(status, channel_id)
			GROUP BY k.status, k.channel_id HAVING sum(m.n) <> 0 ORDER BY k.status, k.channel_id
			ON CONFLICT (account_id, status, channel_id, block) DO UPDATE SET n = b.n + excluded.n`),
	}
}

type listKey struct {
	Version   int    `db:"version"`
	Deleted   bool   `db:"deleted"`
	Status    string `db:"status"`
	ChannelID string `db:"channel_id"`
	Seq       int64  `db:"seq"`
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
	// The counts follow the row's own channel and seq, which an update
	// leaves as they were.
	seq, channel := old.Seq, old.ChannelID
	if existed {
		_, err = tx.ExecContext(ctx, w.update,
			sh.ID, e.Version, deleted, sh.Status, sh.ReferenceNumber, sh.ProviderShipmentID, record)
	} else {
		channel = sh.ShippingChannelID
		err = tx.GetContext(ctx, &seq, w.insert,
			sh.ID, e.AccountID, e.Version, deleted, sh.Status, channel, sh.ReferenceNumber, sh.ProviderShipmentID, sh.CreatedAt, record)
	}
	if err != nil {
		return fmt.Errorf("projecting shipment %s v%d: %w", sh.ID, e.Version, err)
	}
	var left, entered string // the status counted before and after; "" for none
	if existed && !old.Deleted {
		left = old.Status
	}
	if !deleted {
		entered = sh.Status
	}
	if left == entered {
		return nil // counted as before
	}
	if _, err := tx.ExecContext(ctx, w.tally, e.AccountID, channel, left, entered, seq/w.block); err != nil {
		return fmt.Errorf("counting shipments: %w", err)
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
// taken a seq and left a gap in the sequence (ADR 0015).
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
