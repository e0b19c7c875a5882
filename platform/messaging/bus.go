package messaging

import (
	"context"
	"database/sql"
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

	"shipd/platform/messaging/internal/broker"
	"shipd/platform/messaging/internal/codec"
	"shipd/platform/messaging/internal/deadletter"
	"shipd/platform/messaging/internal/grouptx"
	"shipd/platform/messaging/internal/partition"
	"shipd/platform/messaging/internal/pgstream"
	"shipd/platform/messaging/internal/wakeup"
)

// BusConfig tunes the subscribers. Zero values get defaults.
type BusConfig struct {
	// PollInterval is how long an idle subscriber waits for a commit on its
	// stream to be notified before it asks anyway: the safety net under
	// LISTEN/NOTIFY (see Wakeup), not the latency.
	PollInterval time.Duration
	// AckDeadline is how long a handler may take before its message is redelivered.
	AckDeadline time.Duration
	// MaxOpenTransactions bounds how many subscriber transactions are open
	// at once; 0 means no bound. Set it below the database pool's size: a
	// subscriber holds its transaction, and so a connection, while its
	// handlers run, and handlers that write through a connection of their
	// own (ADR 0019) need the rest of the pool.
	MaxOpenTransactions int
	// Retry is how a failing message is tried again before it is set aside
	// as a dead letter.
	Retry middleware.Retry
	// Wakeup tells idle subscribers of commits; nil polls at PollInterval.
	Wakeup *Wakeup
	// Broker, when set, is where the handlers read their streams from
	// (ADR 0032): the forwarder moves the outbox there.
	Broker *Broker
	// Partitions is how many partitions each consumer group reads its
	// stream in, by the messages' keys (ADR 0050): a reader per partition,
	// so instances share a group's work; 0 is 1, a reader of the whole
	// stream. Every instance must run the same number.
	Partitions int
	// Metrics, when set, receives Watermill's handler run counts and times
	// (shipd_events_handler_execution_time_seconds by handler and success)
	// and its subscriber and publisher counts.
	Metrics prometheus.Registerer
}

func (c *BusConfig) setDefaults() {
	if c.PollInterval == 0 {
		c.PollInterval = time.Second
	}
	if c.AckDeadline == 0 {
		c.AckDeadline = 30 * time.Second
	}
	if c.Retry.MaxRetries == 0 {
		// About 1.5 s of tries: long enough for a lock or a restart to pass,
		// short enough that a poison message holds its stream up briefly.
		c.Retry = middleware.Retry{MaxRetries: 5, InitialInterval: 50 * time.Millisecond, MaxInterval: time.Second, Multiplier: 2}
	}
	if c.Partitions == 0 {
		c.Partitions = 1
	}
	if c.Wakeup == nil {
		c.Wakeup, _ = wakeup.New("", nil) // without a database to listen to it cannot fail
	}
}

// reading is how the config's subscribers read their streams.
func (c BusConfig) reading() pgstream.Reading {
	return pgstream.Reading{PollInterval: c.PollInterval, AckDeadline: c.AckDeadline, Wakeup: c.Wakeup}
}

// Validate reports settings that cannot work.
func (c BusConfig) Validate() error {
	if c.PollInterval < 0 || c.AckDeadline < 0 || c.MaxOpenTransactions < 0 || c.Partitions < 0 || c.Retry.MaxRetries < 0 {
		return fmt.Errorf("messaging: negative setting in %+v", c)
	}
	return nil
}

// Bus runs the consumers of every module: a consumer group reads one stream
// through one subscriber, made of a reader per partition, each in the
// stream's order, and hands each message to its handler of that event type
// (Watermill's event group processor); each command handler reads its
// module's command stream the same way.
type Bus struct {
	sqlx    *sqlx.DB // the module database, whose InTx a batch's writes join
	db      *sql.DB
	slots   chan struct{} // open subscriber transactions; nil: unbounded
	config  BusConfig
	logger  watermill.LoggerAdapter
	log     *slog.Logger
	router  *message.Router
	events  *cqrs.EventGroupProcessor
	command *cqrs.CommandProcessor
	groups  []groupOfBus    // every consumer group, with its stream
	durable map[string]bool // the consumer groups whose commits wait for the disk
}

// groupOfBus is a consumer group of the bus and the stream it reads.
type groupOfBus struct{ name, stream string }

// NewBus builds a Bus; add handlers, then Run it. Everything it logs goes
// to logger (the default logger when nil).
func NewBus(db *sqlx.DB, config BusConfig, logger *slog.Logger) (*Bus, error) {
	if logger == nil {
		logger = slog.Default()
	}
	config.setDefaults()
	if err := config.Validate(); err != nil {
		return nil, err
	}
	wlog := grouptx.WatermillLogger(logger)
	router, err := message.NewRouter(message.RouterConfig{CloseTimeout: 10 * time.Second}, wlog)
	if err != nil {
		return nil, err
	}
	retry := config.Retry
	retry.Logger = wlog
	// Outermost first: a message that fails every try is set aside; each
	// try runs under its own savepoint, and a panic is an error inside it
	// (so the savepoint is rolled back) rather than a crash.
	var slots chan struct{}
	if config.MaxOpenTransactions > 0 {
		slots = make(chan struct{}, config.MaxOpenTransactions)
	}
	router.AddMiddleware(
		deadletter.SetAside(logger),
		retry.Middleware,
		grouptx.Savepoints(logger),
		middleware.Recoverer,
	)
	if config.Metrics != nil {
		wmetrics.NewPrometheusMetricsBuilder(config.Metrics, "shipd", "events").AddPrometheusRouterMetrics(router)
	}
	b := &Bus{sqlx: db, db: db.DB, config: config, logger: wlog, log: logger, router: router, slots: slots, durable: map[string]bool{}}
	b.events, err = cqrs.NewEventGroupProcessorWithConfig(router, cqrs.EventGroupProcessorConfig{
		GenerateSubscribeTopic: func(p cqrs.EventGroupProcessorGenerateSubscribeTopicParams) (string, error) {
			return groupStream(p.EventGroupName, p.EventGroupHandlers)
		},
		SubscriberConstructor: func(p cqrs.EventGroupProcessorSubscriberConstructorParams) (message.Subscriber, error) {
			stream, err := groupStream(p.EventGroupName, p.EventGroupHandlers)
			if err != nil {
				return nil, err
			}
			return b.subscriber(p.EventGroupName, stream)
		},
		// A stream carries every event type of its module; a group takes
		// the ones it has handlers for and passes over the rest.
		AckOnUnknownEvent: true,
		Marshaler:         codec.Marshaler,
		Logger:            wlog,
	})
	if err != nil {
		return nil, err
	}
	b.command, err = cqrs.NewCommandProcessorWithConfig(router, cqrs.CommandProcessorConfig{
		GenerateSubscribeTopic: func(p cqrs.CommandProcessorGenerateSubscribeTopicParams) (string, error) {
			return commandStream(p.CommandHandler.NewCommand())
		},
		SubscriberConstructor: func(p cqrs.CommandProcessorSubscriberConstructorParams) (message.Subscriber, error) {
			stream, err := commandStream(p.Handler.NewCommand())
			if err != nil {
				return nil, err
			}
			return b.subscriber(p.HandlerName, stream)
		},
		Marshaler: codec.Marshaler,
		Logger:    wlog,
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// groupStream is the one stream a group's handlers read.
func groupStream(group string, handlers []cqrs.GroupEventHandler) (string, error) {
	var stream string
	for _, h := range handlers {
		e, ok := h.NewEvent().(Event)
		if !ok {
			return "", fmt.Errorf("messaging: group %s handles %T, which is not an Event", group, h.NewEvent())
		}
		if stream != "" && e.EventStream() != stream {
			return "", fmt.Errorf("messaging: group %s reads two streams, %s and %s; make a group per stream", group, stream, e.EventStream())
		}
		stream = e.EventStream()
	}
	return stream, nil
}

func commandStream(cmd any) (string, error) {
	c, ok := cmd.(Command)
	if !ok {
		return "", fmt.Errorf("messaging: %T is not a Command", cmd)
	}
	return c.CommandStream(), nil
}

// subscriber is a consumer group's reader of its stream: a reader per
// partition, each a group of its own to the database and the broker (lock,
// position, ADR 0050), one subscriber to the router, under the group's name.
func (b *Bus) subscriber(consumerGroup, stream string) (message.Subscriber, error) {
	n := b.config.Partitions
	readers := &partition.Readers{}
	// An idle partition asks its stream every n poll intervals, so the
	// group asks once an interval as before (a NOTIFY wakes them all at
	// once): an idle instance runs as few transactions with partitions as
	// without.
	reading := b.config.reading()
	reading.PollInterval *= time.Duration(n)
	if b.config.Broker == nil {
		readers.Prepare = func(ctx context.Context) error {
			return pgstream.Patiently(ctx, b.log, "preparing the partitions of "+consumerGroup, func() error {
				return pgstream.PrepareGroup(ctx, b.sqlx, stream, consumerGroup, n)
			})
		}
	}
	for p := range n {
		// Each partition's transactions are its own: a batch that failed
		// at its commit goes one by one in that partition only.
		group := &grouptx.Group{FlushTimeout: b.config.AckDeadline, Durable: b.durable[consumerGroup], Log: b.log, DB: b.sqlx}
		name := partition.Group(consumerGroup, p, n)
		if b.config.Broker != nil {
			begin := grouptx.Beginner{Beginner: watermillsql.BeginnerFromStdSQL(b.db), Key: "consumer:broker/" + name, Slots: b.slots, Group: group}
			readers.Partitions = append(readers.Partitions,
				broker.NewReader(b.config.Broker, consumerGroup, stream, p, n, begin, b.config.AckDeadline, b.config.PollInterval, b.logger))
			continue
		}
		sub, err := pgstream.SubscribePartition(b.db, reading, b.slots, b.logger, group, consumerGroup, stream, p, n)
		if err != nil {
			return nil, err
		}
		readers.Partitions = append(readers.Partitions, sub)
	}
	return readers, nil
}

// Handler is one event type's handler in a consumer group.
type Handler = cqrs.GroupEventHandler

// On makes the handler of events of type T in a consumer's group. The
// handler runs inside the subscriber's transaction (see Tx), which commits
// a batch of messages with their acknowledgement; it must be idempotent and
// do no I/O.
func On[T any, PT interface {
	*T
	Event
}](handle func(ctx context.Context, event PT) error) cqrs.GroupEventHandler {
	return cqrs.NewGroupEventHandler(func(ctx context.Context, e *T) error {
		return handle(ctx, PT(e))
	})
}

// AddGroup adds a consumer group: its handlers (made by On) read one
// stream in order. The name is the consumer group's, kept in the stream's
// offsets table: renaming it starts the group over from the stream's start.
func (b *Bus) AddGroup(name string, handlers ...cqrs.GroupEventHandler) error {
	stream, err := groupStream(name, handlers)
	if err != nil {
		return err
	}
	b.groups = append(b.groups, groupOfBus{name, stream})
	return b.events.AddHandlersGroup(name, handlers...)
}

// OnCommand adds the handler of commands of type T; handlerName is its
// consumer group on the command stream.
func OnCommand[T any, PT interface {
	*T
	Command
}](b *Bus, handlerName string, handle func(ctx context.Context, cmd PT) error) error {
	stream, err := commandStream(new(T))
	if err != nil {
		return err
	}
	b.groups = append(b.groups, groupOfBus{handlerName, stream})
	_, err = b.command.AddHandler(cqrs.NewCommandHandler(handlerName, func(ctx context.Context, c *T) error {
		return handle(ctx, PT(c))
	}))
	return err
}

// Run runs every handler until ctx ends or Close is called. The end of ctx
// closes the router, which lets the running handlers finish and closes the
// subscribers, rather than cancelling them (gracefulSubscriber).
func (b *Bus) Run(ctx context.Context) error {
	if b.config.Broker != nil {
		var streams []string
		for _, g := range b.groups {
			streams = appendNew(streams, g.stream)
		}
		if err := b.config.Broker.AwaitStreams(ctx, streams, b.config.Partitions, b.log, "the handlers wait for them"); err != nil {
			return nil // ended before the broker came
		}
	}
	return grouptx.RunRouter(ctx, b.router)
}

// Partitions is how many partitions each consumer group reads its stream
// in (BusConfig.Partitions).
func (b *Bus) Partitions() int { return b.config.Partitions }

// Running is closed once every handler is subscribed.
func (b *Bus) Running() chan struct{} { return b.router.Running() }

// Close stops the handlers, letting the running ones finish.
func (b *Bus) Close() error { return b.router.Close() }

// WatermillLogger adapts slog for Watermill, demoting its chatty info lines.
func WatermillLogger(logger *slog.Logger) watermill.LoggerAdapter {
	return grouptx.WatermillLogger(logger)
}
