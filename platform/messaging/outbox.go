package messaging

import (
	"context"
	"fmt"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/codec"
	"shipd/platform/messaging/internal/pgstream"
	"shipd/platform/messaging/internal/wakeup"
)

// Outbox publishes events and sends commands as rows written by the caller's
// transaction: they exist if and only if that transaction commits. The same
// transaction notifies the stream's readers (see Wakeup), so they wake when
// it commits rather than on their next poll.
type Outbox struct {
	logger watermill.LoggerAdapter
}

// NewOutbox returns an Outbox that logs through logger.
func NewOutbox(logger watermill.LoggerAdapter) *Outbox {
	return &Outbox{logger: logger}
}

// Publish writes events in tx, each on its stream, in the order given.
func (o *Outbox) Publish(ctx context.Context, tx *sqlx.Tx, events ...Event) error {
	return write(ctx, o, tx, events, Event.EventStream, Event.EventType)
}

// Send writes commands in tx, each on the command stream of the module that
// handles it.
func (o *Outbox) Send(ctx context.Context, tx *sqlx.Tx, commands ...Command) error {
	return write(ctx, o, tx, commands, Command.CommandStream, Command.CommandName)
}

// write marshals messages and writes each stream's in one statement, in
// the order given: a batch of a handler that publishes for a hundred
// aggregates costs a statement per stream, not one per event (Watermill's
// cqrs buses publish a message a call).
func write[M any](ctx context.Context, o *Outbox, tx *sqlx.Tx, items []M, stream, name func(M) string) error {
	if len(items) == 0 {
		return nil
	}
	pub, err := o.publisher(tx)
	if err != nil {
		return err
	}
	var streams []string
	byStream := map[string][]*message.Message{}
	for _, it := range items {
		msg, err := codec.Marshaler.Marshal(it)
		if err != nil {
			return fmt.Errorf("marshalling %s: %w", name(it), err)
		}
		msg.SetContext(ctx)
		s := stream(it)
		streams = appendNew(streams, s)
		byStream[s] = append(byStream[s], msg)
	}
	for _, s := range streams {
		if err := pub.Publish(s, byStream[s]...); err != nil {
			return fmt.Errorf("writing %d messages to stream %s: %w", len(byStream[s]), s, err)
		}
	}
	return wakeup.NotifyAll(ctx, tx, streams)
}

func (o *Outbox) publisher(tx *sqlx.Tx) (*watermillsql.Publisher, error) {
	return pgstream.Publisher(tx.Tx, o.logger)
}

// PublishAll writes events of a module's own event interface in tx.
func PublishAll[E Event](ctx context.Context, o *Outbox, tx *sqlx.Tx, events []E) error {
	msgs := make([]Event, len(events))
	for i, e := range events {
		msgs[i] = e
	}
	return o.Publish(ctx, tx, msgs...)
}

func appendNew(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}
