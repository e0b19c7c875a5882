package pgstream

import (
	"context"
	"fmt"
	"strconv"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/platform/messaging/internal/partition"
	"shipd/platform/postgres"
)

// partitionSchema reads partition p of n of a stream: the messages whose
// key falls to it, in the stream's order, a batch at a time, below
// pg_snapshot_xmin as Watermill's query reads them (ADR 0050).
//
// A partition's offset moves only with its own messages, so while the
// others are busy an idle partition would scan a growing tail of theirs on
// every poll. When none of its messages is visible after its offset, the
// same statement moves the offset to the newest visible message, in the
// one snapshot that saw none of its own before it; what is not visible yet
// (a transaction still open) lies beyond it in the stream's order. That
// write takes the transaction an id for the moment before its commit.
type partitionSchema struct {
	readCommittedSchema
	p, n int
}

func (s partitionSchema) SelectQuery(params watermillsql.SelectQueryParams) (watermillsql.Query, error) {
	next, err := params.OffsetsAdapter.NextOffsetQuery(watermillsql.NextOffsetQueryParams{Topic: params.Topic, ConsumerGroup: params.ConsumerGroup})
	if err != nil {
		return watermillsql.Query{}, err
	}
	messages := s.MessagesTable(params.Topic)
	offsets := Offsets.MessagesOffsetsTable(params.Topic)
	// The inner select keeps Watermill's shape (a subquery ordered and cut
	// outside), which keeps the planner off a scan of the stream from its
	// start; next's $1 is the partition group.
	query := `WITH last_processed AS (` + next.Query + `),
	batch AS (
		SELECT * FROM (
			SELECT "offset", transaction_id, uuid, payload, metadata FROM ` + messages + `
			WHERE (
				(transaction_id = (SELECT last_processed_transaction_id FROM last_processed)
				 AND "offset" > (SELECT offset_acked FROM last_processed))
				OR transaction_id > (SELECT last_processed_transaction_id FROM last_processed)
			)
			AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
			AND ` + partition.SQL(s.n) + ` = ` + strconv.Itoa(s.p) + `
		) AS messages
		ORDER BY transaction_id ASC, "offset" ASC
		LIMIT ` + strconv.Itoa(s.batchSize()) + `
	),
	newest AS (
		SELECT transaction_id, "offset" FROM ` + messages + `
		WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY transaction_id DESC, "offset" DESC
		LIMIT 1
	),
	passed AS (
		UPDATE ` + offsets + ` o SET offset_acked = newest."offset", last_processed_transaction_id = newest.transaction_id
		FROM newest, last_processed
		WHERE o.consumer_group = $1 AND NOT EXISTS (SELECT 1 FROM batch)
		AND (newest.transaction_id, newest."offset") > (last_processed.last_processed_transaction_id, last_processed.offset_acked)
		RETURNING 1
	)
	SELECT "offset", transaction_id, uuid, payload, metadata FROM batch ORDER BY transaction_id ASC, "offset" ASC`
	return watermillsql.Query{Query: query, Args: next.Args}, nil
}

// batchSize is the batch Schema reads: its SubscribeBatchSize.
func (s partitionSchema) batchSize() int { return s.SubscribeBatchSize }

// PrepareGroup gives the consumer group's readers of stream, its n
// partition groups or the group itself when n is 1, their offsets rows
// before any reads, in one transaction. A row that does not exist yet
// starts where the group's furthest row stood: the unpartitioned group's
// when the partitions first start (so an upgrade neither replays history
// nor skips any), or a partition's when n changed after every partition
// drained. The rows of another n are deleted, so the next change starts
// from where this one's rows are then. Every instance must run the same n.
func PrepareGroup(ctx context.Context, db *sqlx.DB, stream, group string, n int) error {
	names := make([]string, max(n, 1))
	for p := range names {
		names[p] = partition.Group(group, p, n)
	}
	offsets := Offsets.MessagesOffsetsTable(stream)
	family := `(consumer_group = $1 OR left(consumer_group, length($1) + 1) = $1 || '#')`
	return postgres.InTx(ctx, db, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+offsets+` (consumer_group, offset_acked, last_processed_transaction_id)
			SELECT g, coalesce(start.offset_acked, 0), coalesce(start.last_processed_transaction_id, '0')
			FROM unnest($2::text[]) g LEFT JOIN (
				SELECT offset_acked, last_processed_transaction_id FROM `+offsets+` WHERE `+family+`
				ORDER BY last_processed_transaction_id DESC, offset_acked DESC LIMIT 1
			) start ON true
			ON CONFLICT (consumer_group) DO NOTHING`, group, pq.Array(names)); err != nil {
			return fmt.Errorf("starting the offsets of consumer group %s on %s: %w", group, stream, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+offsets+` WHERE `+family+` AND NOT consumer_group = ANY($2)`,
			group, pq.Array(names)); err != nil {
			return fmt.Errorf("dropping the offsets of consumer group %s's other partitions on %s: %w", group, stream, err)
		}
		return nil
	})
}
