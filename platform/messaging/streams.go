package messaging

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jmoiron/sqlx"

	"shipd/platform/postgres"
)

// InitializeStreams creates the tables of every stream. A publisher bound to
// a transaction cannot create them, so every stream a module may publish or
// send to is made here, by `shipd migrate up` and at serve start-up.
func InitializeStreams(ctx context.Context, db *sqlx.DB, streams []string) error {
	deadline := time.Second
	sub, err := watermillsql.NewSubscriber(watermillsql.BeginnerFromStdSQL(db.DB), watermillsql.SubscriberConfig{
		ConsumerGroup:  "stream-initializer",
		SchemaAdapter:  schemaAdapter,
		OffsetsAdapter: offsetsAdapter,
		AckDeadline:    &deadline,
	}, watermill.NopLogger{})
	if err != nil {
		return err
	}
	defer sub.Close()
	for _, s := range streams {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sub.SubscribeInitialize(s); err != nil {
			return fmt.Errorf("creating tables of stream %s: %w", s, err)
		}
	}
	return nil
}

// LegacyTopicsOf maps each of a module's event types to its stream.
func LegacyTopicsOf(stream string, eventTypes []string) LegacyTopics {
	out := make(LegacyTopics, len(eventTypes))
	for _, t := range eventTypes {
		out[t] = stream
	}
	return out
}

// LegacyTopics maps each event type that had a table of its own before the
// module streams (one topic per event type, up to ADR 0006's revision) to
// the stream that now carries it.
type LegacyTopics map[string]string

// AdoptLegacyTopics moves what the consumer groups of the legacy per-type
// tables had not all handled onto the streams, so an upgrade loses no
// event: for each table, the messages after its slowest group's position,
// in the order they were written, are appended to the stream (same id,
// payload and metadata), and every legacy group is moved to the table's end
// so that a second run copies nothing. Handlers are idempotent, so a group
// that had handled some of them already does no harm handling them again.
// The legacy tables stay: a rebuild reads them with the streams.
func AdoptLegacyTopics(ctx context.Context, db *sqlx.DB, legacy LegacyTopics) error {
	return postgres.InTx(ctx, db, func(tx *sqlx.Tx) error {
		// One instance adopts; one starting beside it waits, then finds
		// nothing left.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('shipd.adopt_legacy_topics'))`); err != nil {
			return err
		}
		byStream := map[string][]string{}
		for topic, stream := range legacy {
			byStream[stream] = append(byStream[stream], topic)
		}
		for stream, topics := range byStream {
			present, err := ExistingTopics(ctx, tx, topics)
			if err != nil {
				return err
			}
			if err := adoptInto(ctx, tx, stream, present); err != nil {
				return err
			}
		}
		return nil
	})
}

func adoptInto(ctx context.Context, tx *sqlx.Tx, stream string, topics []string) error {
	if len(topics) == 0 {
		return nil
	}
	tails := make([]string, 0, len(topics))
	for i, t := range topics {
		offsets := offsetsAdapter.MessagesOffsetsTable(t)
		// A table no group ever read still gets its offsets table, where the
		// end position marks it adopted.
		queries, err := offsetsAdapter.SchemaInitializingQueries(watermillsql.OffsetsSchemaInitializingQueriesParams{Topic: t})
		if err != nil {
			return err
		}
		for _, q := range queries {
			if _, err := tx.ExecContext(ctx, q.Query, q.Args...); err != nil {
				return err
			}
		}
		// From the slowest group's position; with no group, from the start.
		from := `(SELECT tx, off FROM (SELECT last_processed_transaction_id AS tx, coalesce(offset_acked, 0) AS off FROM ` + offsets + `
			UNION ALL SELECT '0'::xid8, 0 WHERE NOT EXISTS (SELECT FROM ` + offsets + `)) p ORDER BY tx, off LIMIT 1)`
		tails = append(tails, fmt.Sprintf(`(SELECT %d AS n, m.transaction_id, m."offset", m.uuid, m.payload, m.metadata
			FROM %s m, %s p WHERE (m.transaction_id, m."offset") > (p.tx, p.off))`, i, schemaAdapter.MessagesTable(t), from))
	}
	// The copies are written by this transaction, so every group of the
	// stream, wherever it is, reads them next.
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+schemaAdapter.MessagesTable(stream)+` (uuid, payload, metadata, transaction_id)
		SELECT uuid, payload, metadata, pg_current_xact_id() FROM (`+strings.Join(tails, " UNION ALL ")+`) t
		ORDER BY transaction_id, n, "offset"`); err != nil {
		return fmt.Errorf("adopting legacy topics into stream %s: %w", stream, err)
	}
	for _, t := range topics {
		offsets, messages := offsetsAdapter.MessagesOffsetsTable(t), schemaAdapter.MessagesTable(t)
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+offsets+` (consumer_group, offset_acked, last_processed_transaction_id)
			SELECT 'adopted-by-streams', "offset", transaction_id FROM `+messages+` ORDER BY transaction_id DESC, "offset" DESC LIMIT 1
			ON CONFLICT (consumer_group) DO NOTHING`); err != nil {
			return fmt.Errorf("closing legacy topic %s: %w", t, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+offsets+` o SET last_processed_transaction_id = e.transaction_id, offset_acked = e."offset"
			FROM (SELECT transaction_id, "offset" FROM `+messages+` ORDER BY transaction_id DESC, "offset" DESC LIMIT 1) e`); err != nil {
			return fmt.Errorf("closing legacy topic %s: %w", t, err)
		}
	}
	return nil
}
