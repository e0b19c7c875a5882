package messaging

import (
	"context"
	"fmt"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/cqrs"
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
	if len(events) == 0 {
		return nil
	}
	pub, err := o.publisher(tx)
	if err != nil {
		return err
	}
	bus, err := cqrs.NewEventBusWithConfig(pub, cqrs.EventBusConfig{
		GeneratePublishTopic: func(p cqrs.GenerateEventPublishTopicParams) (string, error) {
			return p.Event.(Event).EventStream(), nil
		},
		Marshaler: codec.Marshaler,
		Logger:    o.logger,
	})
	if err != nil {
		return err
	}
	streams := make([]string, 0, 1)
	for _, e := range events {
		if err := bus.Publish(ctx, e); err != nil {
			return fmt.Errorf("publishing %s: %w", e.EventType(), err)
		}
		streams = appendNew(streams, e.EventStream())
	}
	return wakeup.NotifyAll(ctx, tx, streams)
}

// Send writes commands in tx, each on the command stream of the module that
// handles it.
func (o *Outbox) Send(ctx context.Context, tx *sqlx.Tx, commands ...Command) error {
	if len(commands) == 0 {
		return nil
	}
	pub, err := o.publisher(tx)
	if err != nil {
		return err
	}
	bus, err := cqrs.NewCommandBusWithConfig(pub, cqrs.CommandBusConfig{
		GeneratePublishTopic: func(p cqrs.CommandBusGeneratePublishTopicParams) (string, error) {
			return p.Command.(Command).CommandStream(), nil
		},
		Marshaler: codec.Marshaler,
		Logger:    o.logger,
	})
	if err != nil {
		return err
	}
	streams := make([]string, 0, 1)
	for _, c := range commands {
		if err := bus.Send(ctx, c); err != nil {
			return fmt.Errorf("sending %s: %w", c.CommandName(), err)
		}
		streams = appendNew(streams, c.CommandStream())
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
