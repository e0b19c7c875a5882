package broker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/jmoiron/sqlx"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"shipd/platform/messaging/internal/codec"
	"shipd/platform/messaging/internal/deadletter"
	"shipd/platform/messaging/internal/grouptx"
	"shipd/platform/messaging/internal/partition"
	"shipd/platform/messaging/internal/pgstream"
)

// forwarderGroup is the forwarder's consumer group on every stream: its
// offsets say what has reached the broker (and /metrics shows its lag
// like any consumer's).
const forwarderGroup = "broker.forwarder"

// Forwarder moves every message of the module streams, the outbox a write
// fills in its own transaction, to the broker, in each stream's order and
// at least once: a message is acknowledged in PostgreSQL only once
// JetStream has stored it, and JetStream stores a message id it saw within
// its duplicate window once (ADR 0032). While the broker is unreachable
// the messages wait in the outbox; nothing is set aside or dropped.
type Forwarder struct {
	db      *sqlx.DB
	reading pgstream.Reading
	broker  *Broker
	streams []string
	// partitions is how many partitions each stream has on the broker: a
	// message goes to its key's (ADR 0050).
	partitions int
	logger     *slog.Logger
}

// NewForwarder forwards the outbox messages of streams in db to broker,
// each to its partition of partitions; read as reading says; it logs to
// logger.
func NewForwarder(db *sqlx.DB, reading pgstream.Reading, broker *Broker, streams []string, partitions int, logger *slog.Logger) *Forwarder {
	return &Forwarder{db: db, reading: reading, broker: broker, streams: streams, partitions: max(partitions, 1), logger: logger}
}

// Name names the worker.
func (f *Forwarder) Name() string { return "events.forwarder" }

// Problem says why events cannot reach the broker now, or "" (/readyz).
func (f *Forwarder) Problem() string { return f.broker.Problem() }

// Run forwards until ctx ends. The broker's streams are made first, tried
// again every few seconds while the broker cannot be reached.
func (f *Forwarder) Run(ctx context.Context) error {
	if err := f.broker.AwaitStreams(ctx, f.streams, f.partitions, f.logger, "events wait in the outbox"); err != nil {
		return nil // ended before the broker came
	}
	wlog := grouptx.WatermillLogger(f.logger)
	router, err := message.NewRouter(message.RouterConfig{CloseTimeout: 10 * time.Second}, wlog)
	if err != nil {
		return err
	}
	// A failed publish is tried again in the handler a few times, then the
	// message is read again from the outbox: never a dead letter.
	router.AddMiddleware(middleware.Retry{MaxRetries: 3, InitialInterval: 100 * time.Millisecond, MaxInterval: time.Second, Multiplier: 2, Logger: wlog}.Middleware)
	for _, s := range f.streams {
		sub, err := pgstream.Subscribe(f.db.DB, f.reading, nil, wlog, &grouptx.Group{FlushTimeout: f.reading.AckDeadline, Log: f.logger, DB: f.db}, forwarderGroup, s)
		if err != nil {
			return err
		}
		router.AddNoPublisherHandler("forward."+s, s, sub, f.forward(s))
	}
	if err := grouptx.RunRouter(ctx, router); err != nil {
		return fmt.Errorf("forwarding to the event broker: %w", err)
	}
	return nil
}

// forward publishes each message to its partition's subject: the
// stream's order holds within each partition, and so for each key. It
// publishes each message of a batch read from the outbox without
// waiting for JetStream's acknowledgement, and the batch's transaction
// waits for them all before it commits the group's offset (publishAcks):
// one round trip per batch, not per message. The messages go out in order
// on one connection, and JetStream stores them in that order. A group going
// one by one after a failed batch waits for each acknowledgement.
func (f *Forwarder) forward(stream string) message.NoPublishHandlerFunc {
	return func(m *message.Message) error {
		subject := PartitionSubject(stream, partition.Of(m.Metadata.Get(codec.MetadataPartitionKey), f.partitions), f.partitions)
		ctx := m.Context()
		// While the broker is away the message waits here, not in a loop of
		// failed publishes that would log every try.
		if err := f.broker.awaitConnected(ctx, brokerWait); err != nil {
			return err
		}
		out, err := brokerMarshaler{}.Marshal(subject, m)
		if err != nil {
			return err
		}
		if wtx, ok := grouptx.From(ctx); ok {
			if stx, ok := wtx.(*grouptx.Tx); ok && !stx.Group().OneByOne.Load() {
				ack, err := f.broker.js.PublishMsgAsync(out)
				if err != nil {
					return err
				}
				acks := stx.Batch("broker.forward", func() grouptx.AtCommit { return &publishAcks{wake: func() { f.broker.wake(stream) }} }).(*publishAcks)
				acks.futures = append(acks.futures, ack)
				return nil
			}
		}
		if _, err := f.broker.js.PublishMsg(ctx, out); err != nil {
			return err
		}
		f.broker.wake(stream)
		return nil
	}
}

// publishAcks are the acknowledgements a forwarded batch waits for before
// its offset commits. One that fails rolls the batch back: it is read
// again, a message at a time, and JetStream stores again only what it
// had not stored (the message ids).
type publishAcks struct {
	futures []jetstream.PubAckFuture
	wake    func() // tells the stream's idle readers, once all is stored
}

func (p *publishAcks) Write(ctx context.Context, _ *sqlx.Tx) error {
	for _, f := range p.futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("the event broker did not store message %s: %w", f.Msg().Header.Get(jetstream.MsgIDHeader), err)
		case <-ctx.Done():
			return fmt.Errorf("waiting for the event broker to store a batch: %w", ctx.Err())
		}
	}
	p.wake()
	return nil
}

// brokerMarshaler writes a message as watermill-nats' NATSMarshaler does
// (payload, metadata as headers, the id in _watermill_message_uuid) and
// gives JetStream its deduplication id (Nats-Msg-Id): the message's id,
// unless it is a retried dead letter, a new message with the original's id.
type brokerMarshaler struct{ wmnats.NATSMarshaler }

func (m brokerMarshaler) Marshal(topic string, msg *message.Message) (*nats.Msg, error) {
	out, err := m.NATSMarshaler.Marshal(topic, msg)
	if err != nil {
		return nil, err
	}
	id := msg.UUID
	if dl := msg.Metadata.Get(deadletter.MetadataRetried); dl != "" {
		id += "/dead-letter-" + dl
	}
	out.Header.Set(jetstream.MsgIDHeader, id)
	return out, nil
}

// brokerWait is how long a message waits for an unreachable broker before
// it is read again from the outbox: below the subscriber's acknowledgement
// deadline, and long enough that an outage logs a line per stream every so
// often, not on every try.
const brokerWait = 20 * time.Second
