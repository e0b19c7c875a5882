package adapters

import (
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/tracking/contract"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// ParcelListProjection builds tracking.parcel_list from the module's events.
type ParcelListProjection struct {
	db *sqlx.DB
}

// NewParcelListProjection writes to db, the database that holds the tracking
// schema; it touches no other table than tracking.parcel_list.
func NewParcelListProjection(db *sqlx.DB) *ParcelListProjection { return &ParcelListProjection{db: db} }

// Register subscribes the projection's live handlers.
func (p *ParcelListProjection) Register(bus *messaging.Bus) error {
	return p.Definition().Subscribe(bus)
}

// Definition is the read model as the bus and a rebuild see it: each batch
// of the tracking stream leaves each parcel it touches as its newest event
// says, in one upsert; the version guard makes a redelivered batch change
// nothing, and a delete leaves a tombstone. status_changed always comes with
// an updated event of the same version, so the projection needs only these
// three.
func (p *ParcelListProjection) Definition() projection.Projection {
	return projection.Projection{
		Name:   "tracking.parcel_list",
		Tables: []string{"tracking.parcel_list"},
		Events: []messaging.EventKind{
			messaging.Takes[contract.TrackingParcelCreated](),
			messaging.Takes[contract.TrackingParcelUpdated](),
			messaging.Takes[contract.TrackingParcelDeleted](),
		},
		NewBatch: func(tables projection.Tables) messaging.Batch {
			return projection.NewUpserts("tracking parcels", tables.SQL(`INSERT INTO tracking.parcel_list AS l
				(id, account_id, version, deleted, status, channel_id, tracking_number, created_at, record)
				SELECT id, account_id, version, deleted, status, channel_id, tracking_number, created_at, record::json
				FROM json_to_recordset($1) AS r(id text, account_id text, version integer, deleted boolean,
					status text, channel_id text, tracking_number text, created_at timestamptz, record text)
				ORDER BY id
				ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, status = excluded.status,
					record = excluded.record
				WHERE l.version < excluded.version`), parcelListEventOf, parcelListRowOf)
		},
	}
}

// parcelListEvent is what the list keeps of a tracking parcel event.
type parcelListEvent struct {
	contract.TrackingParcelEvent
	deleted bool
}

func parcelListEventOf(e messaging.Event) (string, int, parcelListEvent, bool) {
	var kept parcelListEvent
	switch e := e.(type) {
	case *contract.TrackingParcelCreated:
		kept = parcelListEvent{e.TrackingParcelEvent, false}
	case *contract.TrackingParcelUpdated:
		kept = parcelListEvent{e.TrackingParcelEvent, false}
	case *contract.TrackingParcelDeleted:
		kept = parcelListEvent{e.TrackingParcelEvent, true}
	default:
		return "", 0, kept, false
	}
	return kept.TrackingParcel.ID, kept.Version, kept, true
}

// parcelListRow is a row as json_to_recordset reads it.
type parcelListRow struct {
	ID             string    `json:"id"`
	AccountID      string    `json:"account_id"`
	Version        int       `json:"version"`
	Deleted        bool      `json:"deleted"`
	Status         string    `json:"status"`
	ChannelID      string    `json:"channel_id"`
	TrackingNumber string    `json:"tracking_number"`
	CreatedAt      time.Time `json:"created_at"`
	Record         string    `json:"record"` // text, so the record's key order is kept
}

func parcelListRowOf(e parcelListEvent) (any, error) {
	tp := e.TrackingParcel
	record, err := json.Marshal(tp.Record().Summary())
	if err != nil {
		return nil, err
	}
	return parcelListRow{tp.ID, e.AccountID, e.Version, e.deleted, string(tp.Status), tp.ShippingChannelID,
		tp.TrackingNumber, tp.CreatedAt, string(record)}, nil
}
