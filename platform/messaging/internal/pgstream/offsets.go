package pgstream

import (
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
)

// unlockedOffsets is Watermill's offsets adapter without the row lock its
// next-offset query takes (the advisory lock of grouptx.Beginner serialises a
// group instead). watermill_test.go holds it to Watermill's query.
type unlockedOffsets struct {
	watermillsql.DefaultPostgreSQLOffsetsAdapter
}

func (a unlockedOffsets) NextOffsetQuery(params watermillsql.NextOffsetQueryParams) (watermillsql.Query, error) {
	return watermillsql.Query{
		Query: `SELECT offset_acked, last_processed_transaction_id FROM ` + a.MessagesOffsetsTable(params.Topic) + ` WHERE consumer_group = $1`,
		Args:  []any{params.ConsumerGroup},
	}, nil
}
