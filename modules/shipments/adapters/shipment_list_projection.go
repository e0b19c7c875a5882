package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

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

// NewShipmentListProjection writes db's shipment list tables in blocks of
// shipmentListBlock seqs, the size ShipmentListReader expects.
func NewShipmentListProjection(db *sqlx.DB) *ShipmentListProjection {
	return &ShipmentListProjection{db: db, block: shipmentListBlock}
}

// Register subscribes the projection's live handlers.
func (p *ShipmentListProjection) Register(bus *messaging.Bus) error {
	return p.Definition().Subscribe(bus)
}

// Definition is the read model as the bus and a rebuild see it. Each batch
// of the shipments stream is written in a few statements whatever its size:
// the rows it touches are locked and read, the new ones inserted with their
// seqs, the others updated to their newest event, and the counters moved by
// the batch's sum. Every write is version-guarded, so a redelivered batch
// changes nothing; a delete leaves a tombstone. Every status_changed comes
// with a created or updated event of the same version, so the projection
// does not take it.
func (p *ShipmentListProjection) Definition() projection.Projection {
	return projection.Projection{
		Name: "shipments.shipment_list",
		// The order a batch locks them in: the rows, the accounts' seqs
		// (for shipments not listed yet), the counters, the block counts.
		Tables: []string{"shipments.shipment_list", "shipments.shipment_list_seq", "shipments.shipment_counts", "shipments.shipment_list_blocks"},
		Events: []messaging.EventKind{
			messaging.Takes[contract.ShipmentRequested](),
			messaging.Takes[contract.ShipmentCreated](),
			messaging.Takes[contract.ShipmentUpdated](),
			messaging.Takes[contract.ShipmentDeleted](),
		},
		NewBatch: func(tables projection.Tables) messaging.Batch {
			return &shipmentListBatch{shipmentListSQL: newShipmentListSQL(tables), block: p.block}
		},
	}
}

// shipmentListBlock is how many seqs of an account's list one row of
// shipments.shipment_list_blocks counts (ADR 0015; migration 00010 counted
// the rows it found with it). The reader skips fewer entries than this to
// reach a page inside a block, and reads at most last_seq / shipmentListBlock
// counts to find the block.
const shipmentListBlock = 4096

// shipmentListSQL is the batch's statements against one set of the read
// model's tables: the live ones, or a rebuild's shadows.
type shipmentListSQL struct {
	lock, insert, update, tally string
}

func newShipmentListSQL(t projection.Tables) shipmentListSQL {
	return shipmentListSQL{
		lock: t.SQL(`SELECT id, version, deleted, status, channel_id, seq FROM shipments.shipment_list
			WHERE id = ANY($1) ORDER BY id FOR UPDATE`),
		// Each account's seq moves on by its new shipments, which take the
		// seqs after the old last_seq in the order the batch met them: no
		// gap, no seq twice (ADR 0015).
		insert: t.SQL(`
			WITH r AS (
				SELECT * FROM json_to_recordset($1) AS r(ord integer, id text, account_id text, version integer, deleted boolean,
					status text, channel_id text, reference_number text, provider_shipment_id text, created_at timestamptz, record text)),
			per_account AS (SELECT account_id, count(*) AS n FROM r GROUP BY account_id),
			moved AS (
				INSERT INTO shipments.shipment_list_seq AS s (account_id, last_seq)
				SELECT account_id, n FROM per_account ORDER BY account_id
				ON CONFLICT (account_id) DO UPDATE SET last_seq = s.last_seq + excluded.last_seq
				RETURNING account_id, last_seq)
			INSERT INTO shipments.shipment_list (id, account_id, seq, version, deleted, status, channel_id, reference_number,
				provider_shipment_id, created_at, record)
			SELECT r.id, r.account_id, m.last_seq - p.n + row_number() OVER (PARTITION BY r.account_id ORDER BY r.ord),
				r.version, r.deleted, r.status, r.channel_id, r.reference_number, r.provider_shipment_id, r.created_at, r.record::json
			FROM r JOIN per_account p USING (account_id) JOIN moved m USING (account_id)
			RETURNING id, seq`),
		update: t.SQL(`UPDATE shipments.shipment_list l SET version = r.version, deleted = r.deleted, status = r.status,
				reference_number = r.reference_number, provider_shipment_id = r.provider_shipment_id, record = r.record::json
			FROM json_to_recordset($1) AS r(id text, version integer, deleted boolean, status text, reference_number text,
				provider_shipment_id text, record text)
			WHERE l.id = r.id`),
		// Rows are written in key order, so two writers cannot deadlock on them.
		tally: t.SQL(`
			WITH counted AS (
				INSERT INTO shipments.shipment_counts AS c (account_id, status, channel_id, n)
				SELECT account_id, status, channel_id, n
				FROM json_to_recordset($1) AS r(account_id text, status text, channel_id text, n bigint)
				ORDER BY account_id, status, channel_id
				ON CONFLICT (account_id, status, channel_id) DO UPDATE SET n = c.n + excluded.n)
			INSERT INTO shipments.shipment_list_blocks AS b (account_id, status, channel_id, block, n)
			SELECT account_id, status, channel_id, block, n
			FROM json_to_recordset($2) AS r(account_id text, status text, channel_id text, block bigint, n bigint)
			ORDER BY account_id, status, channel_id, block
			ON CONFLICT (account_id, status, channel_id, block) DO UPDATE SET n = b.n + excluded.n`),
	}
}

// shipmentListBatch is one batch of the list's writes.
type shipmentListBatch struct {
	shipmentListSQL
	block  int64
	events projection.Newest[shipmentListEvent]
}

type shipmentListEvent struct {
	contract.ShipmentEvent
	deleted bool
}

func (b *shipmentListBatch) Add(e messaging.Event) { b.events.Take(e, shipmentListEventOf) }

func shipmentListEventOf(e messaging.Event) (string, int, shipmentListEvent, bool) {
	var kept shipmentListEvent
	switch e := e.(type) {
	case *contract.ShipmentRequested:
		kept = shipmentListEvent{e.ShipmentEvent, false}
	case *contract.ShipmentCreated:
		kept = shipmentListEvent{e.ShipmentEvent, false}
	case *contract.ShipmentUpdated:
		kept = shipmentListEvent{e.ShipmentEvent, false}
	case *contract.ShipmentDeleted:
		kept = shipmentListEvent{e.ShipmentEvent, true}
	default:
		return "", 0, kept, false
	}
	return kept.Shipment.ID, kept.Version, kept, true
}

// listKey is what the batch reads of a row before it writes it.
type listKey struct {
	ID        string `db:"id"`
	Version   int    `db:"version"`
	Deleted   bool   `db:"deleted"`
	Status    string `db:"status"`
	ChannelID string `db:"channel_id"`
	Seq       int64  `db:"seq"`
}

// shipmentListRow is a row as json_to_recordset reads it.
type shipmentListRow struct {
	Ord                int       `json:"ord"`
	ID                 string    `json:"id"`
	AccountID          string    `json:"account_id"`
	Version            int       `json:"version"`
	Deleted            bool      `json:"deleted"`
	Status             string    `json:"status"`
	ChannelID          string    `json:"channel_id"`
	ReferenceNumber    string    `json:"reference_number"`
	ProviderShipmentID *string   `json:"provider_shipment_id"`
	CreatedAt          time.Time `json:"created_at"`
	Record             string    `json:"record"` // text, so the record's key order is kept
}

func (b *shipmentListBatch) Write(ctx context.Context, tx *sqlx.Tx) error {
	if b.events.Len() == 0 {
		return nil
	}
	var locked []listKey
	if err := tx.SelectContext(ctx, &locked, b.lock, pq.Array(b.events.IDs())); err != nil {
		return fmt.Errorf("locking %d listed shipments: %w", b.events.Len(), err)
	}
	old := make(map[string]listKey, len(locked))
	for _, k := range locked {
		old[k.ID] = k
	}
	var inserts, updates []shipmentListRow
	var t tally
	for i, id := range b.events.IDs() {
		e := b.events.Get(id)
		was, existed := old[id]
		if existed && was.Version >= e.Version {
			continue // an older or repeated event
		}
		sh := e.Shipment
		record, err := json.Marshal(sh.Record().Summary())
		if err != nil {
			return err
		}
		row := shipmentListRow{i, sh.ID, e.AccountID, e.Version, e.deleted, sh.Status, sh.ShippingChannelID,
			sh.ReferenceNumber, sh.ProviderShipmentID, sh.CreatedAt, string(record)}
		if !existed {
			inserts = append(inserts, row)
			continue
		}
		updates = append(updates, row)
		// The counts follow the row's own channel and seq, which an update
		// leaves as they were.
		t.move(e.AccountID, was.ChannelID, was.Seq/b.block, counted(was.Status, was.Deleted), counted(sh.Status, e.deleted))
	}
	if len(inserts) > 0 {
		seqs, err := b.insertRows(ctx, tx, inserts)
		if err != nil {
			return err
		}
		for _, r := range inserts {
			t.move(r.AccountID, r.ChannelID, seqs[r.ID]/b.block, "", counted(r.Status, r.Deleted))
		}
	}
	if len(updates) > 0 {
		if err := projection.ExecJSON(ctx, tx, b.update, updates); err != nil {
			return fmt.Errorf("projecting %d shipments: %w", len(updates), err)
		}
	}
	if counts, blocks := t.rows(); len(counts) > 0 || len(blocks) > 0 {
		if err := projection.ExecJSON(ctx, tx, b.tally, counts, blocks); err != nil {
			return fmt.Errorf("counting shipments: %w", err)
		}
	}
	return nil
}

// insertRows inserts shipments not listed yet and returns their seqs.
func (b *shipmentListBatch) insertRows(ctx context.Context, tx *sqlx.Tx, rows []shipmentListRow) (map[string]int64, error) {
	data, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	var inserted []struct {
		ID  string `db:"id"`
		Seq int64  `db:"seq"`
	}
	if err := tx.SelectContext(ctx, &inserted, b.insert, data); err != nil {
		return nil, fmt.Errorf("listing %d new shipments: %w", len(rows), err)
	}
	seqs := make(map[string]int64, len(inserted))
	for _, r := range inserted {
		seqs[r.ID] = r.Seq
	}
	return seqs, nil
}

// counted is the status a row is counted under: none ("") once deleted.
func counted(status string, deleted bool) string {
	if deleted {
		return ""
	}
	return status
}
