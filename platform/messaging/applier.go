package messaging

import (
	"context"
	"fmt"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jmoiron/sqlx"

	"shipd/platform/postgres"
)

// Applier applies the events of one type to a read model in a transaction
// it is given. The same code then runs live, subscribed to the bus, and in a
// rebuild, over the stored messages of its topic.
type Applier struct {
	handler   string
	topic     string
	subscribe func(b *Bus, db *sqlx.DB) error
	decode    func(ctx context.Context, tx *sqlx.Tx, msg *message.Message) error
}

// Apply makes the Applier of events of type T; handlerName is the live
// handler's name, its consumer group.
func Apply[T any, PT interface {
	*T
	Event
}](handlerName string, apply func(ctx context.Context, tx *sqlx.Tx, event PT) error) Applier {
	return Applier{
		handler: handlerName,
		topic:   PT(new(T)).EventType(),
		subscribe: func(b *Bus, db *sqlx.DB) error {
			// Each event is written in its own short transaction, committed
			// before the message is acknowledged: the subscriber's batch
			// transaction then holds no row locks, so consumer groups never
			// deadlock (ADR 0019). A redelivery must change nothing, so the
			// writes are version-guarded.
			return OnEvent(b, handlerName, func(ctx context.Context, e PT) error {
				return postgres.InTx(ctx, db, func(tx *sqlx.Tx) error { return apply(ctx, tx, e) })
			})
		},
		decode: func(ctx context.Context, tx *sqlx.Tx, msg *message.Message) error {
			e := PT(new(T))
			if err := marshaler.Unmarshal(msg, e); err != nil {
				return fmt.Errorf("decoding %s message %s: %w", e.EventType(), msg.UUID, err)
			}
			return apply(ctx, tx, e)
		},
	}
}

// Handler is the live handler's name.
func (a Applier) Handler() string { return a.handler }

// Topic is the event type the applier takes.
func (a Applier) Topic() string { return a.topic }

// ApplyStored applies a message read back from the applier's topic in tx.
func (a Applier) ApplyStored(ctx context.Context, tx *sqlx.Tx, m StoredMessage) error {
	if m.Topic != a.topic {
		return fmt.Errorf("messaging: a %s message given to the applier of %s", m.Topic, a.topic)
	}
	return a.decode(ctx, tx, message.NewMessage(m.UUID, m.Payload))
}

// Subscribe adds the live handler of every applier to the bus.
func Subscribe(b *Bus, db *sqlx.DB, appliers []Applier) error {
	for _, a := range appliers {
		if err := a.subscribe(b, db); err != nil {
			return fmt.Errorf("subscribing %s: %w", a.handler, err)
		}
	}
	return nil
}
