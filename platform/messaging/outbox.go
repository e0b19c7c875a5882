package messaging

import (
	"context"
	"fmt"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/jmoiron/sqlx"
)

// Outbox publishes events and sends commands as rows written by the caller's
// transaction: they exist if and only if that transaction commits.
type Outbox struct {
	logger watermill.LoggerAdapter
}

// NewOutbox returns an Outbox that logs through logger.
func NewOutbox(logger watermill.LoggerAdapter) *Outbox {
	return &Outbox{logger: logger}
}

// Publish writes events in tx.
func (o *Outbox) Publish(ctx context.Context, tx *sqlx.Tx, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	pub, err := o.publisher(tx)
	if err != nil {
		return err
	}
	bus, err := cqrs.NewEventBusWithConfig(pub, cqrs.EventBusConfig{
		GeneratePublishTopic: func(p cqrs.GenerateEventPublishTopicParams) (string, error) { return p.EventName, nil },
		Marshaler:            marshaler,
		Logger:               o.logger,
	})
	if err != nil {
		return err
	}
	for _, e := range events {
		if err := bus.Publish(ctx, e); err != nil {
			return fmt.Errorf("publishing %s: %w", e.EventType(), err)
		}
	}
	return nil
}

// Send writes commands in tx.
func (o *Outbox) Send(ctx context.Context, tx *sqlx.Tx, commands ...Command) error {
	if len(commands) == 0 {
		return nil
	}
	pub, err := o.publisher(tx)
	if err != nil {
		return err
	}
	bus, err := cqrs.NewCommandBusWithConfig(pub, cqrs.CommandBusConfig{
		GeneratePublishTopic: func(p cqrs.CommandBusGeneratePublishTopicParams) (string, error) { return p.CommandName, nil },
		Marshaler:            marshaler,
		Logger:               o.logger,
	})
	if err != nil {
		return err
	}
	for _, c := range commands {
		if err := bus.Send(ctx, c); err != nil {
			return fmt.Errorf("sending %s: %w", c.CommandName(), err)
		}
	}
	return nil
}

func (o *Outbox) publisher(tx *sqlx.Tx) (*watermillsql.Publisher, error) {
	return watermillsql.NewPublisher(watermillsql.TxFromStdSQL(tx.Tx), watermillsql.PublisherConfig{
		SchemaAdapter: schemaAdapter,
	}, o.logger)
}

// PublishAll writes events of any type that names its event type (a
// module's own domain.Event interface) in tx.
func PublishAll[E interface{ EventType() string }](ctx context.Context, o *Outbox, tx *sqlx.Tx, events []E) error {
	msgs := make([]Event, len(events))
	for i, e := range events {
		msgs[i] = e
	}
	return o.Publish(ctx, tx, msgs...)
}
