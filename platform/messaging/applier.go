package messaging

import (
	"context"
	"fmt"

	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jmoiron/sqlx"
)

// Applier applies the events of one type to a read model in a transaction
// it is given. The same code then runs live, in the subscriber's transaction
// (a batch of messages and their acknowledgement commit together), and in a
// rebuild, over the stored messages of its stream.
type Applier struct {
	eventType string
	stream    string
	handler   func() cqrs.GroupEventHandler
	decode    func(ctx context.Context, tx *sqlx.Tx, msg *message.Message) error
}

// Apply makes the Applier of events of type T. apply must be idempotent: a
// batch cut short by a crash is read again.
func Apply[T any, PT interface {
	*T
	Event
}](apply func(ctx context.Context, tx *sqlx.Tx, event PT) error) Applier {
	e := PT(new(T))
	return Applier{
		eventType: e.EventType(),
		stream:    e.EventStream(),
		handler: func() cqrs.GroupEventHandler {
			return On(func(ctx context.Context, e PT) error {
				tx, err := Tx(ctx)
				if err != nil {
					return err
				}
				return apply(ctx, tx, e)
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

// EventType is the event type the applier takes.
func (a Applier) EventType() string { return a.eventType }

// Stream is the stream its events travel on.
func (a Applier) Stream() string { return a.stream }

// ApplyStored applies a message read back from storage in tx.
func (a Applier) ApplyStored(ctx context.Context, tx *sqlx.Tx, m StoredMessage) error {
	if m.Name != a.eventType {
		return fmt.Errorf("messaging: a %s message given to the applier of %s", m.Name, a.eventType)
	}
	msg := message.NewMessage(m.UUID, m.Payload)
	msg.Metadata = m.Metadata
	return a.decode(ctx, tx, msg)
}

// Subscribe adds appliers to the bus as consumer groups named group, one per
// stream they read (group itself when they read one; group@stream else).
func Subscribe(b *Bus, group string, appliers []Applier) error {
	var streams []string
	by := map[string][]cqrs.GroupEventHandler{}
	for _, a := range appliers {
		streams = appendNew(streams, a.stream)
		by[a.stream] = append(by[a.stream], a.handler())
	}
	for _, s := range streams {
		name := group
		if len(streams) > 1 {
			name = group + "@" + s
		}
		if err := b.AddGroup(name, by[s]...); err != nil {
			return fmt.Errorf("subscribing %s: %w", name, err)
		}
	}
	return nil
}
