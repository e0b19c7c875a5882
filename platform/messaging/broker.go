package messaging

import (
	"context"
	"log/slog"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/broker"
)

// Broker is the connection to NATS JetStream, the event backbone beside
// PostgreSQL when EVENT_BROKER_URL is set (ADR 0032).
type Broker = broker.Broker

// ConnectBroker connects to the NATS server at url. It returns at once even
// when the server cannot be reached: the connection keeps trying, and what
// is published meanwhile waits in the outbox.
func ConnectBroker(url string, logger *slog.Logger) (*Broker, error) {
	return broker.Connect(url, logger)
}

// BrokerSubject is the NATS subject a module stream is forwarded to.
func BrokerSubject(stream string) string { return broker.Subject(stream) }

// BrokerStream is the name of the JetStream stream that keeps a module
// stream.
func BrokerStream(stream string) string { return broker.StreamName(stream) }

// BrokerPartitionStream is the name of the JetStream stream that keeps
// partition p of n of a module stream (BrokerStream with n = 1).
func BrokerPartitionStream(stream string, p, n int) string {
	return broker.PartitionStreamName(stream, p, n)
}

// Forwarder moves every message of the module streams, the outbox, to the
// broker, in each stream's order and at least once.
type Forwarder = broker.Forwarder

// NewForwarder forwards the outbox messages of streams in db to b;
// config's zero fields take their defaults; it logs to logger (the default
// logger when nil).
func NewForwarder(db *sqlx.DB, config BusConfig, b *Broker, streams []string, logger *slog.Logger) *Forwarder {
	if logger == nil {
		logger = slog.Default()
	}
	config.setDefaults()
	return broker.NewForwarder(db, config.reading(), b, streams, config.Partitions, logger)
}

// ConsumerLag is what one consumer group has not handled yet of its stream
// on the broker, and how old the oldest of it is.
type ConsumerLag = broker.ConsumerLag

// BrokerLag reads each consumer group's lag from its JetStream consumer;
// groups that have not subscribed yet are left out, and so is everything
// when the bus reads PostgreSQL.
func (b *Bus) BrokerLag(ctx context.Context) ([]ConsumerLag, error) {
	if b.config.Broker == nil {
		return nil, nil
	}
	groups := make([]broker.Group, len(b.groups))
	for i, g := range b.groups {
		groups[i] = broker.Group{Name: g.name, Stream: g.stream}
	}
	return b.config.Broker.Lag(ctx, groups, b.config.Partitions)
}
