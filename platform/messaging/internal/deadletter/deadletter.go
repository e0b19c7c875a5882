// Package deadletter sets aside a message that failed every retry, in
// platform.dead_letters, so a poison message costs its stream one round of
// retries and not its progress; it lists them and puts one back on its
// stream for its consumer group alone.
package deadletter

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/codec"
	"shipd/platform/messaging/internal/grouptx"
	"shipd/platform/messaging/internal/pgstream"
	"shipd/platform/messaging/internal/wakeup"
	"shipd/platform/postgres"
)

// metadataForGroup marks a message put back on its stream by
// Retry: only that consumer group handles it; the others, which
// handled it the first time, pass over it.
const metadataForGroup = "for_consumer_group"

// MetadataRetried names the dead letter a retried copy comes
// from: the copy is a new message of the stream with the original's id,
// which the broker must not take for a repeat of the original.
const MetadataRetried = "retried_dead_letter"

// SetAside is the outermost handler middleware. A message that
// failed every retry is written to platform.dead_letters in the subscriber's
// transaction and acknowledged with it, so a poison message costs its stream
// one round of retries, not its progress. Failures that are the database's
// (unavailable, or shutting down) are not the message's fault: those are
// nacked and read again. Each one set aside is logged at ERROR on log.
func SetAside(log *slog.Logger) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			ctx := msg.Context()
			group := message.HandlerNameFromCtx(ctx)
			if only := msg.Metadata.Get(metadataForGroup); only != "" && only != group {
				return nil, nil
			}
			out, err := h(msg)
			if err == nil || postgres.IsUnavailable(err) || ctx.Err() != nil || errors.Is(err, context.Canceled) {
				return out, err
			}
			tx, ok := grouptx.From(ctx)
			if !ok {
				return nil, err
			}
			tx = grouptx.Raw(tx)
			metadata, mErr := json.Marshal(msg.Metadata)
			if mErr != nil {
				return nil, errors.Join(err, mErr)
			}
			// Under a savepoint of its own: should the insert fail, the batch's
			// transaction stays usable and the message is nacked, not lost.
			if dErr := grouptx.UnderSavepoint(ctx, tx, "dead_letter", func() error {
				_, err := tx.ExecContext(ctx, `INSERT INTO platform.dead_letters
				(consumer_group, stream, message_uuid, name, payload, metadata, error) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
					group, message.SubscribeTopicFromCtx(ctx), msg.UUID, msg.Metadata.Get(codec.MetadataName), []byte(msg.Payload), string(metadata), err.Error())
				return err
			}); dErr != nil {
				return nil, fmt.Errorf("%w (and setting it aside failed: %v)", err, dErr)
			}
			log.ErrorContext(ctx, "message set aside as a dead letter after every retry failed; see shipd events list",
				"consumer_group", group, "message_uuid", msg.UUID, "event", msg.Metadata.Get(codec.MetadataName), "err", err)
			return nil, nil
		}
	}
}

// DeadLetter is a message one consumer group could not handle.
type DeadLetter struct {
	ID            int64      `db:"id"`
	ConsumerGroup string     `db:"consumer_group"`
	Stream        string     `db:"stream"`
	MessageUUID   string     `db:"message_uuid"`
	Name          string     `db:"name"`
	Error         string     `db:"error"`
	FailedAt      time.Time  `db:"failed_at"`
	RetriedAt     *time.Time `db:"retried_at"`
}

// List lists the dead letters, newest first; waiting only leaves out those
// already put back.
func List(ctx context.Context, db sqlx.QueryerContext, waiting bool, limit int) ([]DeadLetter, error) {
	var out []DeadLetter
	err := sqlx.SelectContext(ctx, db, &out, `SELECT id, consumer_group, stream, message_uuid, name, error, failed_at, retried_at
		FROM platform.dead_letters WHERE NOT $1 OR retried_at IS NULL ORDER BY id DESC LIMIT $2`, waiting, limit)
	if err != nil {
		return nil, fmt.Errorf("listing dead letters: %w", err)
	}
	return out, nil
}

// ErrNone is returned for an id that is not a waiting dead letter.
var ErrNone = errors.New("no dead letter waiting with that id")

// Retry puts the dead letter back at the end of its stream, with
// its id and payload, for its consumer group alone, and marks it retried. It
// is read after the events that followed it, so handlers keep their version
// guards.
func Retry(ctx context.Context, db *sqlx.DB, id int64) error {
	return postgres.InTx(ctx, db, func(tx *sqlx.Tx) error {
		var d struct {
			Group    string `db:"consumer_group"`
			Stream   string `db:"stream"`
			UUID     string `db:"message_uuid"`
			Payload  []byte `db:"payload"`
			Metadata []byte `db:"metadata"`
		}
		err := tx.GetContext(ctx, &d, `UPDATE platform.dead_letters SET retried_at = now()
			WHERE id = $1 AND retried_at IS NULL RETURNING consumer_group, stream, message_uuid, payload, metadata`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNone
		}
		if err != nil {
			return fmt.Errorf("retrying dead letter %d: %w", id, err)
		}
		var md message.Metadata
		if err := json.Unmarshal(d.Metadata, &md); err != nil {
			return fmt.Errorf("retrying dead letter %d: metadata: %w", id, err)
		}
		md.Set(metadataForGroup, d.Group)
		md.Set(MetadataRetried, strconv.FormatInt(id, 10))
		pub, err := pgstream.Publisher(tx.Tx, watermill.NopLogger{})
		if err != nil {
			return err
		}
		msg := message.NewMessage(d.UUID, d.Payload)
		msg.Metadata = md
		if err := pub.Publish(d.Stream, msg); err != nil {
			return fmt.Errorf("retrying dead letter %d: %w", id, err)
		}
		return wakeup.Notify(ctx, tx, d.Stream)
	})
}
