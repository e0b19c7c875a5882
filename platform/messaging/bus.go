package messaging

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	wmetrics "github.com/ThreeDotsLabs/watermill/components/metrics"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"
)

// schemaAdapter is shared by publishers and subscribers so both agree on the
// watermill_<topic> tables.
var schemaAdapter = readCommittedSchema{watermillsql.DefaultPostgreSQLSchema{SubscribeBatchSize: 100}}

// readCommittedSchema runs subscriber transactions at READ COMMITTED instead
// of Watermill's REPEATABLE READ. Handlers of different consumer groups
// upsert the same read-model rows (created and status_changed of one
// channel arrive on two topics); under REPEATABLE READ the second one fails
// with a serialization error that no retry inside the same transaction can
// cure. The offsets row is still locked FOR UPDATE in the select statement,
// so one subscriber per consumer group reads at a time (ADR 0010).
type readCommittedSchema struct {
	watermillsql.DefaultPostgreSQLSchema
}

func (readCommittedSchema) SubscribeIsolationLevel() sql.IsolationLevel {
	return sql.LevelReadCommitted
}

var offsetsAdapter = watermillsql.DefaultPostgreSQLOffsetsAdapter{}

// BusConfig tunes the subscribers. Zero values get defaults.
type BusConfig struct {
	// PollInterval is how long an idle subscriber waits before asking again.
	PollInterval time.Duration
	// AckDeadline is how long a handler may take before its message is redelivered.
	AckDeadline time.Duration
	// MaxOpenTransactions bounds how many subscriber transactions are open
	// at once (see limitedBeginner); 0 means no bound. Set it below the
	// database pool's size.
	MaxOpenTransactions int
	// Metrics, when set, receives Watermill's handler run counts and times
	// (shipd_events_handler_execution_time_seconds by handler and success)
	// and its subscriber and publisher counts.
	Metrics prometheus.Registerer
}

func (c *BusConfig) setDefaults() {
	if c.PollInterval == 0 {
		c.PollInterval = 50 * time.Millisecond
	}
	if c.AckDeadline == 0 {
		c.AckDeadline = 30 * time.Second
	}
}

// Validate reports settings that cannot work.
func (c BusConfig) Validate() error {
	if c.PollInterval < 0 || c.AckDeadline < 0 || c.MaxOpenTransactions < 0 {
		return fmt.Errorf("messaging: negative interval in %+v", c)
	}
	return nil
}

// Bus runs the handlers of every module: each handler has its own
// subscriber whose consumer group is the handler's name.
type Bus struct {
	beginner watermillsql.Beginner
	config   BusConfig
	logger   watermill.LoggerAdapter
	router   *message.Router
	events   *cqrs.EventProcessor
	command  *cqrs.CommandProcessor
}

// NewBus builds a Bus; add handlers, then Run it.
func NewBus(db *sqlx.DB, config BusConfig, logger *slog.Logger) (*Bus, error) {
	config.setDefaults()
	if err := config.Validate(); err != nil {
		return nil, err
	}
	wlog := WatermillLogger(logger)
	router, err := message.NewRouter(message.RouterConfig{CloseTimeout: 10 * time.Second}, wlog)
	if err != nil {
		return nil, err
	}
	router.AddMiddleware(
		middleware.Recoverer,
		middleware.Retry{MaxRetries: 3, InitialInterval: 20 * time.Millisecond, MaxInterval: time.Second, Multiplier: 2, Logger: wlog}.Middleware,
		savepointPerAttempt,
	)
	if config.Metrics != nil {
		wmetrics.NewPrometheusMetricsBuilder(config.Metrics, "shipd", "events").AddPrometheusRouterMetrics(router)
	}
	b := &Bus{beginner: watermillsql.BeginnerFromStdSQL(db.DB), config: config, logger: wlog, router: router}
	if config.MaxOpenTransactions > 0 {
		b.beginner = limitedBeginner{Beginner: b.beginner, slots: make(chan struct{}, config.MaxOpenTransactions)}
	}
	b.events, err = cqrs.NewEventProcessorWithConfig(router, cqrs.EventProcessorConfig{
		GenerateSubscribeTopic: func(p cqrs.EventProcessorGenerateSubscribeTopicParams) (string, error) { return p.EventName, nil },
		SubscriberConstructor: func(p cqrs.EventProcessorSubscriberConstructorParams) (message.Subscriber, error) {
			return b.subscriber(p.HandlerName)
		},
		Marshaler: marshaler,
		Logger:    wlog,
	})
	if err != nil {
		return nil, err
	}
	b.command, err = cqrs.NewCommandProcessorWithConfig(router, cqrs.CommandProcessorConfig{
		GenerateSubscribeTopic: func(p cqrs.CommandProcessorGenerateSubscribeTopicParams) (string, error) { return p.CommandName, nil },
		SubscriberConstructor: func(p cqrs.CommandProcessorSubscriberConstructorParams) (message.Subscriber, error) {
			return b.subscriber(p.HandlerName)
		},
		Marshaler: marshaler,
		Logger:    wlog,
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (b *Bus) subscriber(consumerGroup string) (message.Subscriber, error) {
	deadline := b.config.AckDeadline
	sub, err := watermillsql.NewSubscriber(b.beginner, watermillsql.SubscriberConfig{
		ConsumerGroup:  consumerGroup,
		PollInterval:   b.config.PollInterval,
		ResendInterval: 100 * time.Millisecond,
		RetryInterval:  500 * time.Millisecond,
		AckDeadline:    &deadline,
		SchemaAdapter:  schemaAdapter,
		OffsetsAdapter: offsetsAdapter,
		// Topic tables are made by InitializeTopics (migrate, serve start-up);
		// initialising again here would serialise every subscriber of every
		// instance on watermill's advisory lock at start.
		InitializeSchema: false,
	}, b.logger)
	if err != nil {
		return nil, err
	}
	// Patient outside: a subscription retried while the database is
	// unavailable still ends when the router's context does.
	return patientSubscriber{Subscriber: newGracefulSubscriber(sub, deadline)}, nil
}

// OnEvent adds a handler of events of type T. The handler runs inside the
// subscriber's transaction (see Tx) and must be idempotent and do no I/O.
func OnEvent[T any, PT interface {
	*T
	Event
}](b *Bus, handlerName string, handle func(ctx context.Context, event PT) error) error {
	_, err := b.events.AddHandler(cqrs.NewEventHandler(handlerName, func(ctx context.Context, e *T) error {
		return handle(ctx, PT(e))
	}))
	return err
}

// OnCommand adds the handler of commands of type T.
func OnCommand[T any, PT interface {
	*T
	Command
}](b *Bus, handlerName string, handle func(ctx context.Context, cmd PT) error) error {
	_, err := b.command.AddHandler(cqrs.NewCommandHandler(handlerName, func(ctx context.Context, c *T) error {
		return handle(ctx, PT(c))
	}))
	return err
}

// Run runs every handler until ctx ends or Close is called. The end of ctx
// closes the router, which lets the running handlers finish and closes the
// subscribers, rather than cancelling them (gracefulSubscriber).
func (b *Bus) Run(ctx context.Context) error {
	closed := make(chan error, 1)
	stop := context.AfterFunc(ctx, func() { closed <- b.router.Close() })
	err := b.router.Run(context.WithoutCancel(ctx))
	if !stop() {
		err = errors.Join(err, <-closed)
	}
	return err
}

// Running is closed once every handler is subscribed.
func (b *Bus) Running() chan struct{} { return b.router.Running() }

// Close stops the handlers, letting the running ones finish.
func (b *Bus) Close() error { return b.router.Close() }

// WatermillLogger adapts slog for Watermill, demoting its chatty info lines.
func WatermillLogger(logger *slog.Logger) watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(logger, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
}
