package adapters

import (
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/channels/contract"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// ChannelListProjection builds channels.channel_list from the module's events.
type ChannelListProjection struct {
	db *sqlx.DB
}

// NewChannelListProjection writes to db, the database that holds the
// channels schema; it touches no other table than channels.channel_list.
func NewChannelListProjection(db *sqlx.DB) *ChannelListProjection {
	return &ChannelListProjection{db: db}
}

// Register subscribes the projection's live handlers.
func (p *ChannelListProjection) Register(bus *messaging.Bus) error {
	return p.Definition().Subscribe(bus)
}

// Definition is the read model as the bus and a rebuild see it: each batch
// of the channels stream leaves each channel it touches as its newest event
// says, in one upsert; the version guard makes a redelivered batch change
// nothing, and a delete leaves a tombstone.
func (p *ChannelListProjection) Definition() projection.Projection {
	return projection.Projection{
		Name:   "channels.channel_list",
		Tables: []string{"channels.channel_list"},
		Events: []messaging.EventKind{
			messaging.Takes[contract.ShippingChannelCreated](),
			messaging.Takes[contract.ShippingChannelUpdated](),
			messaging.Takes[contract.ShippingChannelValidated](),
			messaging.Takes[contract.ShippingChannelStatusChanged](),
			messaging.Takes[contract.ShippingChannelDeleted](),
		},
		NewBatch: func(tables projection.Tables) messaging.Batch {
			return projection.NewUpserts("channels", tables.SQL(`
				INSERT INTO channels.channel_list AS l (id, account_id, version, deleted, provider, status, created_at, record)
				SELECT id, account_id, version, deleted, provider, status, created_at, record::json
				FROM json_to_recordset($1) AS r(id text, account_id text, version integer, deleted boolean,
					provider text, status text, created_at timestamptz, record text)
				ORDER BY id
				ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted,
					provider = excluded.provider, status = excluded.status, record = excluded.record
				WHERE l.version < excluded.version`), channelListEventOf, channelListRowOf)
		},
	}
}

// channelListEvent is what the list keeps of a channel event.
type channelListEvent struct {
	contract.ChannelEvent
	deleted bool
}

func channelListEventOf(e messaging.Event) (string, int, channelListEvent, bool) {
	var kept channelListEvent
	switch e := e.(type) {
	case *contract.ShippingChannelCreated:
		kept = channelListEvent{e.ChannelEvent, false}
	case *contract.ShippingChannelUpdated:
		kept = channelListEvent{e.ChannelEvent, false}
	case *contract.ShippingChannelValidated:
		kept = channelListEvent{e.ChannelEvent, false}
	case *contract.ShippingChannelStatusChanged:
		kept = channelListEvent{e.ChannelEvent, false}
	case *contract.ShippingChannelDeleted:
		kept = channelListEvent{e.ChannelEvent, true}
	default:
		return "", 0, kept, false
	}
	return kept.ShippingChannel.ID, kept.Version, kept, true
}

// channelListRow is a row as json_to_recordset reads it.
type channelListRow struct {
	ID        string    `json:"id"`
	AccountID string    `json:"account_id"`
	Version   int       `json:"version"`
	Deleted   bool      `json:"deleted"`
	Provider  string    `json:"provider"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	Record    string    `json:"record"` // text, so the record's key order is kept
}

func channelListRowOf(e channelListEvent) (any, error) {
	ch := e.ShippingChannel
	record, err := json.Marshal(ch.Record())
	if err != nil {
		return nil, err
	}
	return channelListRow{ch.ID, e.AccountID, e.Version, e.deleted, ch.Provider, ch.Status, ch.CreatedAt, string(record)}, nil
}
