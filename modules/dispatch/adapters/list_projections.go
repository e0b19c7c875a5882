package adapters

import (
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/dispatch/contract"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// ListProjections build dispatch.pickup_list and dispatch.manifest_list
// from the module's events: each batch leaves each item it touches as its
// newest event says, in one upsert guarded by version.
type ListProjections struct {
	db *sqlx.DB
}

// NewListProjections write to db, the database of the dispatch schema.
func NewListProjections(db *sqlx.DB) *ListProjections { return &ListProjections{db: db} }

// Register subscribes both projections' live handlers.
func (p *ListProjections) Register(bus *messaging.Bus) error {
	for _, d := range p.Definitions() {
		if err := d.Subscribe(bus); err != nil {
			return err
		}
	}
	return nil
}

// Definitions are the two read models as the bus and a rebuild see them.
func (p *ListProjections) Definitions() []projection.Projection {
	return []projection.Projection{{
		Name:   "dispatch.pickup_list",
		Tables: []string{"dispatch.pickup_list"},
		Events: []messaging.EventKind{
			messaging.Takes[contract.PickupCreated](),
			messaging.Takes[contract.PickupUnconfirmed](),
			messaging.Takes[contract.PickupCancelled](),
		},
		NewBatch: func(tables projection.Tables) messaging.Batch {
			return projection.NewUpserts("pickup list", tables.SQL(`
				INSERT INTO dispatch.pickup_list AS l (id, account_id, version, shipping_channel_id, date, status, created_at, record)
				SELECT id, account_id, version, shipping_channel_id, date, status, created_at, record::json
				FROM json_to_recordset($1) AS r(id text, account_id text, version integer, shipping_channel_id text, date text,
					status text, created_at timestamptz, record text)
				ORDER BY id
				ON CONFLICT (id) DO UPDATE SET version = excluded.version, status = excluded.status, record = excluded.record
				WHERE l.version < excluded.version`), pickupListEventOf, pickupListRowOf)
		},
	}, {
		Name:   "dispatch.manifest_list",
		Tables: []string{"dispatch.manifest_list"},
		Events: []messaging.EventKind{messaging.Takes[contract.ManifestCreated]()},
		NewBatch: func(tables projection.Tables) messaging.Batch {
			return projection.NewUpserts("manifest list", tables.SQL(`
				INSERT INTO dispatch.manifest_list AS l (id, account_id, version, shipping_channel_id, date, created_at, record)
				SELECT id, account_id, version, shipping_channel_id, date, created_at, record::json
				FROM json_to_recordset($1) AS r(id text, account_id text, version integer, shipping_channel_id text, date text,
					created_at timestamptz, record text)
				ORDER BY id
				ON CONFLICT (id) DO UPDATE SET version = excluded.version, record = excluded.record
				WHERE l.version < excluded.version`), manifestListEventOf, manifestListRowOf)
		},
	}}
}

func pickupListEventOf(e messaging.Event) (string, int, contract.PickupEvent, bool) {
	var kept contract.PickupEvent
	switch e := e.(type) {
	case *contract.PickupCreated:
		kept = e.PickupEvent
	case *contract.PickupUnconfirmed:
		kept = e.PickupEvent
	case *contract.PickupCancelled:
		kept = e.PickupEvent
	default:
		return "", 0, kept, false
	}
	return kept.Pickup.ID, kept.Version, kept, true
}

type pickupListRow struct {
	ID        string    `json:"id"`
	AccountID string    `json:"account_id"`
	Version   int       `json:"version"`
	ChannelID string    `json:"shipping_channel_id"`
	Date      string    `json:"date"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	Record    string    `json:"record"`
}

func pickupListRowOf(e contract.PickupEvent) (any, error) {
	p := e.Pickup
	record, err := json.Marshal(p.Record())
	if err != nil {
		return nil, err
	}
	return pickupListRow{p.ID, e.AccountID, e.Version, p.ShippingChannelID, p.Date, p.Status, p.CreatedAt, string(record)}, nil
}

func manifestListEventOf(e messaging.Event) (string, int, contract.ManifestEvent, bool) {
	m, ok := e.(*contract.ManifestCreated)
	if !ok {
		return "", 0, contract.ManifestEvent{}, false
	}
	return m.Manifest.ID, m.Version, m.ManifestEvent, true
}

type manifestListRow struct {
	ID        string    `json:"id"`
	AccountID string    `json:"account_id"`
	Version   int       `json:"version"`
	ChannelID string    `json:"shipping_channel_id"`
	Date      string    `json:"date"`
	CreatedAt time.Time `json:"created_at"`
	Record    string    `json:"record"`
}

func manifestListRowOf(e contract.ManifestEvent) (any, error) {
	m := e.Manifest
	record, err := json.Marshal(m.Record())
	if err != nil {
		return nil, err
	}
	return manifestListRow{m.ID, e.AccountID, e.Version, m.ShippingChannelID, m.Date, m.CreatedAt, string(record)}, nil
}
