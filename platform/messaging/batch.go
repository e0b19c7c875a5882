package messaging

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/codec"
	"shipd/platform/messaging/internal/grouptx"
	"shipd/platform/postgres"
)

// Batch is a read model's writes for a run of events. Add takes the run's
// events in stream order and writes nothing; Write then writes what they
// amount to in a few statements, however many events there were. Write must
// be idempotent: a run cut short by a crash is read again, and may bring
// events whose writes already committed.
type Batch interface {
	Add(e Event)
	Write(ctx context.Context, tx *sqlx.Tx) error
}

// EventKind is one event type a read model takes: how its messages are
// decoded, and on which stream they travel.
type EventKind struct {
	name    string
	stream  string
	decode  func(msg *message.Message) (Event, error)
	handler func(add func(ctx context.Context, e Event) error) cqrs.GroupEventHandler
}

// Takes is the EventKind of events of type T.
func Takes[T any, PT interface {
	*T
	Event
}]() EventKind {
	e := PT(new(T))
	return EventKind{
		name:   e.EventType(),
		stream: e.EventStream(),
		decode: func(msg *message.Message) (Event, error) {
			e := PT(new(T))
			if err := codec.Marshaler.Unmarshal(msg, e); err != nil {
				return nil, fmt.Errorf("decoding %s message %s: %w", e.EventType(), msg.UUID, err)
			}
			return e, nil
		},
		handler: func(add func(ctx context.Context, e Event) error) cqrs.GroupEventHandler {
			return On(func(ctx context.Context, e PT) error { return add(ctx, e) })
		},
	}
}

// EventType is the event type taken.
func (k EventKind) EventType() string { return k.name }

// Stream is the stream its events travel on.
func (k EventKind) Stream() string { return k.stream }

// Decode decodes a message read back from storage.
func (k EventKind) Decode(m StoredMessage) (Event, error) {
	if m.Name != k.name {
		return nil, fmt.Errorf("messaging: a %s message decoded as %s", m.Name, k.name)
	}
	msg := message.NewMessage(m.UUID, m.Payload)
	msg.Metadata = maps.Clone(m.Metadata)
	if msg.Metadata == nil {
		msg.Metadata = message.Metadata{}
	}
	// The upcasters are found by the name; what was read back names it
	// beside the metadata, which a message built by hand may lack.
	msg.Metadata.Set(MetadataName, m.Name)
	return k.decode(msg)
}

// SubscribeBatches adds a read model to the bus as consumer groups named
// group, one per stream its events travel on (group itself when they travel
// on one; group@stream else). Each subscriber transaction collects its
// messages' events in a batch of newBatch and writes the batch right before
// the acknowledgement, in the same transaction. Should that write fail, the
// same messages are read again and each is written on its own, so the one at
// fault is retried and set aside alone (the dead-letter path) while the rest
// go on.
func SubscribeBatches(b *Bus, group string, kinds []EventKind, newBatch func() Batch) error {
	return subscribeBatches(b, group, kinds, newBatch, addEvent, false)
}

// SubscribeChanges is SubscribeBatches for a handler whose writes others
// see and act on at once: it changes aggregates and publishes their events,
// or makes webhook deliveries (ADR 0048). Its batches are written as a read
// model's are, and its commits wait for the disk (groupBeginner.prepare). A
// batch that changes aggregates locks them first, all at once and in a
// fixed order (postgres.LockForChanges), and touches each once.
func SubscribeChanges(b *Bus, group string, kinds []EventKind, newBatch func() Batch) error {
	return subscribeBatches(b, group, kinds, newBatch, addEvent, true)
}

// MessageBatch is a Batch whose events come with their messages' ids: the
// id a webhook receiver sees, the same when a message is read again.
type MessageBatch interface {
	Add(id string, e Event)
	Write(ctx context.Context, tx *sqlx.Tx) error
}

// SubscribeMessageChanges is SubscribeChanges for a handler that needs
// each event's message id (the webhook fan-out).
func SubscribeMessageChanges(b *Bus, group string, kinds []EventKind, newBatch func() MessageBatch) error {
	return subscribeBatches(b, group, kinds, newBatch, func(ctx context.Context, b MessageBatch, e Event) { b.Add(MessageID(ctx), e) }, true)
}

func addEvent(_ context.Context, b Batch, e Event) { b.Add(e) }

func subscribeBatches[B grouptx.AtCommit](b *Bus, group string, kinds []EventKind, newBatch func() B, add func(ctx context.Context, b B, e Event), durable bool) error {
	var streams []string
	for _, k := range kinds {
		streams = appendNew(streams, k.stream)
	}
	name := func(stream string) string {
		if len(streams) > 1 {
			return group + "@" + stream
		}
		return group
	}
	by := map[string][]cqrs.GroupEventHandler{}
	for _, k := range kinds {
		key := name(k.stream)
		by[k.stream] = append(by[k.stream], k.handler(func(ctx context.Context, e Event) error {
			return addToBatch(ctx, key, newBatch, func(b B) { add(ctx, b, e) })
		}))
	}
	for _, s := range streams {
		b.durable[name(s)] = durable
		if err := b.AddGroup(name(s), by[s]...); err != nil {
			return fmt.Errorf("subscribing %s: %w", name(s), err)
		}
	}
	return nil
}

// CommandBatch is a Batch of commands: a module's handler of commands of
// one type, applied a run at a time.
type CommandBatch interface {
	Add(c Command)
	Write(ctx context.Context, tx *sqlx.Tx) error
}

// SubscribeCommandBatches adds the handler of commands of type T that
// applies them a subscriber transaction's run at a time, as
// SubscribeChanges does events; name is its consumer group on the module's
// command stream.
func SubscribeCommandBatches[T any, PT interface {
	*T
	Command
}](b *Bus, name string, newBatch func() CommandBatch) error {
	b.durable[name] = true
	return OnCommand(b, name, func(ctx context.Context, c PT) error {
		return addToBatch(ctx, name, newBatch, func(b CommandBatch) { b.Add(c) })
	})
}

// addToBatch adds a message to the subscriber transaction's batch under
// key, or writes it at once when the group is going one by one.
func addToBatch[B grouptx.AtCommit](ctx context.Context, key string, newBatch func() B, add func(B)) error {
	wtx, ok := grouptx.From(ctx)
	if !ok {
		return errors.New("messaging: no subscriber transaction in context")
	}
	stx, ok := wtx.(*grouptx.Tx)
	if ok && !stx.Group().OneByOne.Load() {
		add(stx.Batch(key, func() grouptx.AtCommit { return newBatch() }).(B))
		return nil
	}
	tx, err := Tx(ctx)
	if err != nil {
		return err
	}
	one := newBatch()
	add(one)
	if ok {
		ctx = postgres.Within(ctx, stx.Group().DB, tx)
	}
	return one.Write(ctx, tx)
}
