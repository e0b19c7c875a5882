package messaging

import (
	"context"
	"fmt"
	"time"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jmoiron/sqlx"
)

// InitializeTopics creates the tables of every topic. A publisher bound to a
// transaction cannot create them, so every topic a module may publish to is
// made here, by `shipd migrate up` and at serve start-up.
func InitializeTopics(ctx context.Context, db *sqlx.DB, topics []string) error {
	deadline := time.Second
	sub, err := watermillsql.NewSubscriber(watermillsql.BeginnerFromStdSQL(db.DB), watermillsql.SubscriberConfig{
		ConsumerGroup:  "topic-initializer",
		SchemaAdapter:  schemaAdapter,
		OffsetsAdapter: offsetsAdapter,
		AckDeadline:    &deadline,
	}, WatermillLogger(nil))
	if err != nil {
		return err
	}
	defer sub.Close()
	for _, t := range topics {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sub.SubscribeInitialize(t); err != nil {
			return fmt.Errorf("creating tables of topic %s: %w", t, err)
		}
	}
	return nil
}
