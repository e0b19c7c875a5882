// Package pgstream reads and writes the module streams in PostgreSQL
// through watermill-sql: the stream tables, a consumer group's subscriber
// (at READ COMMITTED, serialised by the group's advisory lock instead of a
// row lock, woken by NOTIFY, closed gracefully, patient with a database
// that is away), and publishers bound to a writer's transaction.
package pgstream

import (
	"database/sql"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"

	"shipd/platform/messaging/internal/grouptx"
	"shipd/platform/messaging/internal/partition"
	"shipd/platform/messaging/internal/wakeup"
)

// Schema is shared by publishers and subscribers so both agree on the
// watermill_<topic> tables.
var Schema = readCommittedSchema{watermillsql.DefaultPostgreSQLSchema{SubscribeBatchSize: 100}}

// readCommittedSchema runs subscriber transactions at READ COMMITTED instead
// of Watermill's REPEATABLE READ. Handlers of different consumer groups
// upsert the same read-model rows (created and status_changed of one
// channel arrive on two topics); under REPEATABLE READ the second one fails
// with a serialization error that no retry inside the same transaction can
// cure. One subscriber per consumer group reads at a time: grouptx.Beginner
// takes the group's advisory lock (ADR 0010).
type readCommittedSchema struct {
	watermillsql.DefaultPostgreSQLSchema
}

func (readCommittedSchema) SubscribeIsolationLevel() sql.IsolationLevel {
	return sql.LevelReadCommitted
}

// Offsets is the consumer groups' offsets adapter.
var Offsets = unlockedOffsets{}

// MessagesTable is the table of a stream's messages.
func MessagesTable(stream string) string { return Schema.MessagesTable(stream) }

// Reading is how a subscriber reads its stream.
type Reading struct {
	// PollInterval is how long an idle subscriber waits for a notified
	// commit before it asks anyway.
	PollInterval time.Duration
	// AckDeadline is how long a handler may take before its message is
	// redelivered.
	AckDeadline time.Duration
	// Wakeup tells idle subscribers of commits.
	Wakeup *wakeup.Wakeup
}

// Subscribe is a subscriber of stream for consumerGroup, which reads all
// of it: one instance's subscriber at a time (the group's advisory lock), at
// most len(slots) subscriber transactions of the instance open at once (nil:
// no bound).
func Subscribe(db *sql.DB, r Reading, slots chan struct{}, logger watermill.LoggerAdapter, group *grouptx.Group, consumerGroup, stream string) (message.Subscriber, error) {
	return subscribe(db, r, slots, logger, group, consumerGroup, stream, Schema)
}

// SubscribePartition is the subscriber of partition p of n of stream for
// consumerGroup (ADR 0050): the partition group of its own name, lock and
// offsets, reading the messages whose key falls to p. With n = 1 it is
// Subscribe. PrepareGroup must have run.
func SubscribePartition(db *sql.DB, r Reading, slots chan struct{}, logger watermill.LoggerAdapter, group *grouptx.Group, consumerGroup, stream string, p, n int) (message.Subscriber, error) {
	if n <= 1 {
		return Subscribe(db, r, slots, logger, group, consumerGroup, stream)
	}
	return subscribe(db, r, slots, logger, group, partition.Group(consumerGroup, p, n), stream, partitionSchema{Schema, p, n})
}

func subscribe(db *sql.DB, r Reading, slots chan struct{}, logger watermill.LoggerAdapter, group *grouptx.Group, consumerGroup, stream string, schema watermillsql.SchemaAdapter) (message.Subscriber, error) {
	deadline := r.AckDeadline
	done := make(chan struct{})
	beginner := grouptx.Beginner{Beginner: watermillsql.BeginnerFromStdSQL(db), Key: "consumer:" + stream + "/" + consumerGroup, Slots: slots,
		Group: group}
	sub, err := watermillsql.NewSubscriber(beginner, watermillsql.SubscriberConfig{
		ConsumerGroup:  consumerGroup,
		ResendInterval: 100 * time.Millisecond,
		AckDeadline:    &deadline,
		BackoffManager: wakeup.NewReaderBackoff(r.Wakeup, stream, r.PollInterval, 500*time.Millisecond, done),
		SchemaAdapter:  schema,
		OffsetsAdapter: Offsets,
		// Stream tables are made by InitializeStreams (migrate, serve
		// start-up); initialising again here would serialise every
		// subscriber of every instance on watermill's advisory lock at start.
		InitializeSchema: false,
	}, logger)
	if err != nil {
		return nil, err
	}
	// Patient outside: a subscription retried while the database is
	// unavailable still ends when the router's context does.
	return patientSubscriber{Subscriber: newGracefulSubscriber(sub, deadline, done), log: group.Log}, nil
}

// Publisher publishes on the streams in tx: what it publishes commits or
// rolls back with tx.
func Publisher(tx *sql.Tx, logger watermill.LoggerAdapter) (*watermillsql.Publisher, error) {
	return watermillsql.NewPublisher(watermillsql.TxFromStdSQL(tx), watermillsql.PublisherConfig{SchemaAdapter: Schema}, logger)
}
