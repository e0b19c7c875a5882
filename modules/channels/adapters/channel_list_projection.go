package adapters

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/channels/contract"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// ChannelListProjection builds channels.channel_list from the module's events.
type ChannelListProjection struct {
	db *sqlx.DB
}

// NewChannelListProjection returns the projection.
func NewChannelListProjection(db *sqlx.DB) *ChannelListProjection {
	return &ChannelListProjection{db: db}
}

// Register subscribes the projection's live handlers.
func (p *ChannelListProjection) Register(bus *messaging.Bus) error {
	return p.Definition().Subscribe(bus)
}

// Definition is the read model as the bus and a rebuild see it. Each event
// type is its own topic, so events of one channel can arrive out of order:
// the upsert keeps the highest version, and a delete leaves a tombstone.
func (p *ChannelListProjection) Definition() projection.Projection {
	return projection.Projection{
		Name:   "channels.channel_list",
		Tables: []string{"channels.channel_list"},
		Appliers: func(tables projection.Tables) []messaging.Applier {
			upsert := tables.SQL(`
				INSERT INTO channels.channel_list AS l (id, account_id, version, deleted, provider, status, created_at, record)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
				ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted,
					provider = excluded.provider, status = excluded.status, record = excluded.record
				WHERE l.version < excluded.version`)
			write := func(ctx context.Context, tx *sqlx.Tx, e contract.ChannelEvent, deleted bool) error {
				return writeChannel(ctx, tx, upsert, e, deleted)
			}
			return []messaging.Applier{
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShippingChannelCreated) error {
					return write(ctx, tx, e.ChannelEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShippingChannelUpdated) error {
					return write(ctx, tx, e.ChannelEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShippingChannelValidated) error {
					return write(ctx, tx, e.ChannelEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShippingChannelStatusChanged) error {
					return write(ctx, tx, e.ChannelEvent, false)
				}),
				messaging.Apply(func(ctx context.Context, tx *sqlx.Tx, e *contract.ShippingChannelDeleted) error {
					return write(ctx, tx, e.ChannelEvent, true)
				}),
			}
		},
	}
}

// writeChannel applies one event with upsert, the version-guarded statement
// for the tables being written; a redelivery changes nothing.
func writeChannel(ctx context.Context, tx *sqlx.Tx, upsert string, e contract.ChannelEvent, deleted bool) error {
	record, err := json.Marshal(e.ShippingChannel)
	if err != nil {
		return err
	}
	ch := e.ShippingChannel
	_, err = tx.ExecContext(ctx, upsert, ch.ID, e.AccountID, e.Version, deleted, ch.Provider, ch.Status, ch.CreatedAt, record)
	if err != nil {
		return fmt.Errorf("projecting channel %s v%d: %w", ch.ID, e.Version, err)
	}
	return nil
}
