package adapters

import (
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	shipments "shipd/modules/shipments/contract"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// ShipmentCopy keeps dispatch.shipments, the module's copy of the shipments
// it may collect and hand over, from the shipments stream: each batch leaves
// each shipment it touches as its newest event says, in one upsert guarded
// by version; a deleted shipment stays as a tombstone. A dispatch process
// so needs no shipments process to answer (ADR 0054).
type ShipmentCopy struct {
	db *sqlx.DB
}

// NewShipmentCopy writes to db, the database of the dispatch schema.
func NewShipmentCopy(db *sqlx.DB) *ShipmentCopy { return &ShipmentCopy{db: db} }

// Register subscribes the copy's handlers.
func (c *ShipmentCopy) Register(bus *messaging.Bus) error { return c.Definition().Subscribe(bus) }

// Definition is the copy as the bus sees it.
func (c *ShipmentCopy) Definition() projection.Projection {
	return projection.Projection{
		Name:   "dispatch.shipments",
		Tables: []string{"dispatch.shipments"},
		Events: []messaging.EventKind{
			messaging.Takes[shipments.ShipmentCreated](),
			messaging.Takes[shipments.ShipmentUpdated](),
			messaging.Takes[shipments.ShipmentStatusChanged](),
			messaging.Takes[shipments.ShipmentDeleted](),
		},
		NewBatch: func(tables projection.Tables) messaging.Batch {
			return projection.NewUpserts("dispatch shipments", tables.SQL(`
				INSERT INTO dispatch.shipments AS s (id, account_id, shipping_channel_id, status, version, deleted, created_at, record)
				SELECT id, account_id, shipping_channel_id, status, version, deleted, created_at, record::json
				FROM json_to_recordset($1) AS r(id text, account_id text, shipping_channel_id text, status text, version integer,
					deleted boolean, created_at timestamptz, record text)
				ORDER BY id
				ON CONFLICT (id) DO UPDATE SET status = excluded.status, version = excluded.version, deleted = excluded.deleted,
					record = excluded.record
				WHERE s.version < excluded.version`), shipmentCopyEventOf, shipmentCopyRowOf)
		},
	}
}

type shipmentCopyEvent struct {
	shipments.ShipmentEvent
	deleted bool
}

func shipmentCopyEventOf(e messaging.Event) (string, int, shipmentCopyEvent, bool) {
	var kept shipmentCopyEvent
	switch e := e.(type) {
	case *shipments.ShipmentCreated:
		kept = shipmentCopyEvent{e.ShipmentEvent, false}
	case *shipments.ShipmentUpdated:
		kept = shipmentCopyEvent{e.ShipmentEvent, false}
	case *shipments.ShipmentStatusChanged:
		kept = shipmentCopyEvent{e.ShipmentEvent, false}
	case *shipments.ShipmentDeleted:
		kept = shipmentCopyEvent{e.ShipmentEvent, true}
	default:
		return "", 0, kept, false
	}
	return kept.Shipment.ID, kept.Version, kept, true
}

type shipmentCopyRow struct {
	ID        string    `json:"id"`
	AccountID string    `json:"account_id"`
	ChannelID string    `json:"shipping_channel_id"`
	Status    string    `json:"status"`
	Version   int       `json:"version"`
	Deleted   bool      `json:"deleted"`
	CreatedAt time.Time `json:"created_at"`
	Record    string    `json:"record"`
}

func shipmentCopyRowOf(e shipmentCopyEvent) (any, error) {
	s := e.Shipment
	record, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return shipmentCopyRow{s.ID, e.AccountID, s.ShippingChannelID, s.Status, e.Version, e.deleted, s.CreatedAt, string(record)}, nil
}
