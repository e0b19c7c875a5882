// Package broker is NATS JetStream as the event backbone (ADR 0032): the
// forwarder moves each module stream from its PostgreSQL outbox to a
// JetStream stream, and a consumer group's reader takes its batches from
// there in the group's transaction.
package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Broker is the connection to NATS JetStream, the event backbone beside
// PostgreSQL when EVENT_BROKER_URL is set (ADR 0032): every module stream
// is forwarded there, to a JetStream stream of its own.
type Broker struct {
	conn *nats.Conn
	js   jetstream.JetStream
}

// Connect connects to the NATS server at url. It returns at once even
// when the server cannot be reached: the connection keeps trying, and what
// is published meanwhile waits in the outbox (Problem says so).
// The URL is EVENT_BROKER_URL, checked by config.Validate.
func Connect(url string, logger *slog.Logger) (*Broker, error) {
	conn, err := nats.Connect(url, nats.Name("shipd"),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			logger.Warn("the event broker is unreachable; events wait in the outbox until it is back", "err", err)
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			logger.Info("the event broker is back; forwarding the events that waited", "server", c.ConnectedUrlRedacted())
		}))
	if err != nil {
		return nil, fmt.Errorf("connecting to the event broker: %w", err)
	}
	js, err := jetstream.New(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("the event broker's JetStream: %w", err)
	}
	return &Broker{conn: conn, js: js}, nil
}

// Problem says why the broker cannot take events now, or "".
func (b *Broker) Problem() string {
	if b.conn.IsConnected() {
		return ""
	}
	return "the event broker is unreachable (" + strings.ToLower(b.conn.Status().String()) + "); events wait in the outbox"
}

// errBrokerUnreachable is what a forward that waited in vain returns.
var errBrokerUnreachable = errors.New("the event broker is unreachable; the message stays in the outbox")

// awaitConnected returns once the broker is connected, or
// errBrokerUnreachable after wait.
func (b *Broker) awaitConnected(ctx context.Context, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for !b.conn.IsConnected() {
		if time.Now().After(deadline) {
			return errBrokerUnreachable
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// Close closes the NATS connection; the Broker is unusable after it.
func (b *Broker) Close() { b.conn.Close() }

// Subject is the NATS subject a module stream is forwarded to.
func Subject(stream string) string { return "shipd." + stream }

// StreamName is the name of the JetStream stream that keeps a module
// stream (JetStream names allow no dots).
func StreamName(stream string) string {
	return "SHIPD_" + strings.ToUpper(brokerNames.Replace(stream))
}

// PartitionSubject is the subject partition p of n of a module stream is
// forwarded to; with n = 1 the stream's own (ADR 0050).
func PartitionSubject(stream string, p, n int) string {
	if n <= 1 {
		return Subject(stream)
	}
	return Subject(stream) + ".p" + strconv.Itoa(p)
}

// PartitionStreamName is the JetStream stream that keeps partition p of n
// of a module stream; with n = 1 the stream's own.
func PartitionStreamName(stream string, p, n int) string {
	if n <= 1 {
		return StreamName(stream)
	}
	return StreamName(stream) + "_P" + strconv.Itoa(p)
}

// brokerNames turns a stream or group name into a JetStream name, which
// allows no dots.
var brokerNames = strings.NewReplacer(".", "_", "-", "_")

// brokerDuplicateWindow is how long JetStream remembers a message id: a
// message forwarded again within it (the forwarder crashed between the
// broker's ack and its own) is stored once.
const brokerDuplicateWindow = 10 * time.Minute

// AwaitStreams makes the streams (EnsureStreams), trying again every few
// seconds while the broker cannot be reached; waiting says, once a try,
// what waits for them. It returns ctx's error if ctx ends first.
func (b *Broker) AwaitStreams(ctx context.Context, streams []string, partitions int, logger *slog.Logger, waiting string) error {
	for {
		err := b.EnsureStreams(ctx, streams, partitions)
		if err == nil {
			return nil
		}
		logger.WarnContext(ctx, "the event broker's streams cannot be made yet; "+waiting, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
}

// EnsureStreams makes, or brings up to date, the JetStream streams of each
// module stream, one per partition of n: kept on disk, every message.
func (b *Broker) EnsureStreams(ctx context.Context, streams []string, partitions int) error {
	for _, s := range streams {
		for p := range max(partitions, 1) {
			cfg := jetstream.StreamConfig{
				Name:        PartitionStreamName(s, p, partitions),
				Description: "shipd's " + s + " stream, forwarded from its PostgreSQL outbox",
				Subjects:    []string{PartitionSubject(s, p, partitions)},
				Storage:     jetstream.FileStorage,
				Retention:   jetstream.LimitsPolicy,
				Duplicates:  brokerDuplicateWindow,
			}
			if partitions > 1 {
				cfg.Description += ", partition " + strconv.Itoa(p) + " of " + strconv.Itoa(partitions)
			}
			if _, err := b.js.CreateOrUpdateStream(ctx, cfg); err != nil {
				return fmt.Errorf("JetStream stream %s: %w", cfg.Name, err)
			}
		}
	}
	return nil
}

// brokerMaxAckPending is how many of a group's messages may be delivered
// and not acknowledged: ten batches. One reader holds a batch at a time
// (its turn), and a reader that crashed leaves its batch unacknowledged
// until the ack wait. The limit must stay out of reach: nats-server 2.9
// keeps a no-wait pull that meets it waiting, with no expiry, after the
// client gave up on it, and later delivers messages to that dead request,
// which come again only after the ack wait, and again to the next one
// (measured: a group stalled for minutes after a kill -9 with the limit
// at one batch).
const brokerMaxAckPending = 10 * brokerBatch

// pullConsumer makes, or brings up to date, a durable pull consumer of a
// JetStream stream for a consumer group (Reader), from the stream's
// start.
func (b *Broker) pullConsumer(ctx context.Context, stream, durable string) (jetstream.Consumer, error) {
	return b.js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
		Durable:       durable,
		Description:   "shipd consumer group " + durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       brokerAckWait,
		MaxAckPending: brokerMaxAckPending,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
}

// brokerWakeSubject is where the forwarder says, in a plain NATS message
// outside JetStream, that it stored more of a stream: idle readers of the
// stream take a turn at once rather than at their next poll.
func brokerWakeSubject(stream string) string { return "shipd.wake." + stream }

// wake tells a stream's idle readers, in every instance, that it has more.
// Best effort: a wake-up lost leaves the readers to their poll.
func (b *Broker) wake(stream string) { _ = b.conn.Publish(brokerWakeSubject(stream), nil) }

// wakeups is a signal of the forwarder's wake-ups of stream; stop ends it.
// Wake-ups that come while one waits unread are one.
func (b *Broker) wakeups(stream string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	sub, err := b.conn.Subscribe(brokerWakeSubject(stream), func(*nats.Msg) {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return ch, func() {} // the poll interval stands in
	}
	return ch, func() { _ = sub.Unsubscribe() }
}
