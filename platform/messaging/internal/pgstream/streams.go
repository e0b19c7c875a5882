package pgstream

import (
	"context"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jmoiron/sqlx"
)

// InitializeStreams creates the tables of every stream. A publisher bound to
// a transaction cannot create them, so every stream a module may publish or
// send to is made here, by `shipd migrate up` and at serve start-up.
func InitializeStreams(ctx context.Context, db *sqlx.DB, streams []string) error {
	deadline := time.Second
	sub, err := watermillsql.NewSubscriber(watermillsql.BeginnerFromStdSQL(db.DB), watermillsql.SubscriberConfig{
		ConsumerGroup:  "stream-initializer",
		SchemaAdapter:  Schema,
		OffsetsAdapter: Offsets,
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
