package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/modules/channels/contract"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// ChannelListProjection builds channels.channel_list from the module's events.
type ChannelListProjection struct {
	db *sqlx.DB
}

// NewChannelListProjection returns the projection.
func NewChannelListProjection(db *sqlx.DB) *ChannelListProjection {
	return &ChannelListProjection{db: db}
}

// Register subscribes the projection to every channel event. Each event type
// is its own topic, so events of one channel can arrive out of order: the
// upsert keeps the highest version, and a delete leaves a tombstone.
func (p *ChannelListProjection) Register(bus *messaging.Bus) error {
	return errors.Join(
		messaging.OnEvent(bus, "channels.channel_list.on_created", func(ctx context.Context, e *contract.ShippingChannelCreated) error {
			return p.upsert(ctx, e.ChannelEvent, false)
		}),
		messaging.OnEvent(bus, "channels.channel_list.on_updated", func(ctx context.Context, e *contract.ShippingChannelUpdated) error {
			return p.upsert(ctx, e.ChannelEvent, false)
		}),
		messaging.OnEvent(bus, "channels.channel_list.on_validated", func(ctx context.Context, e *contract.ShippingChannelValidated) error {
			return p.upsert(ctx, e.ChannelEvent, false)
		}),
		messaging.OnEvent(bus, "channels.channel_list.on_status_changed", func(ctx context.Context, e *contract.ShippingChannelStatusChanged) error {
			return p.upsert(ctx, e.ChannelEvent, false)
		}),
		messaging.OnEvent(bus, "channels.channel_list.on_deleted", func(ctx context.Context, e *contract.ShippingChannelDeleted) error {
			return p.upsert(ctx, e.ChannelEvent, true)
		}),
	)
}

// upsert writes the event in its own short transaction, committed before
// the message is acknowledged: the subscriber's batch transaction then holds
// no row locks, so consumer groups never deadlock (ADR 0019). The write is
// version-guarded, so a redelivery changes nothing.
func (p *ChannelListProjection) upsert(ctx context.Context, e contract.ChannelEvent, deleted bool) error {
	return postgres.InTx(ctx, p.db, func(tx *sqlx.Tx) error { return p.write(ctx, e, deleted, tx) })
}

func (p *ChannelListProjection) write(ctx context.Context, e contract.ChannelEvent, deleted bool, tx *sqlx.Tx) error {
	record, err := json.Marshal(e.ShippingChannel)
	if err != nil {
		return err
	}
	ch := e.ShippingChannel
	_, err = tx.ExecContext(ctx, `
		INSERT INTO channels.channel_list (id, account_id, version, deleted, provider, status, created_at, record)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted,
			provider = excluded.provider, status = excluded.status, record = excluded.record
		WHERE channel_list.version < excluded.version`,
		ch.ID, e.AccountID, e.Version, deleted, ch.Provider, ch.Status, ch.CreatedAt, record)
	if err != nil {
		return fmt.Errorf("projecting channel %s v%d: %w", ch.ID, e.Version, err)
	}
	return nil
}
