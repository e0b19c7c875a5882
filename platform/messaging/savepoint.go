package messaging

import (
	"fmt"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
)

// savepointPerAttempt wraps each handler attempt in a SAVEPOINT. A nacked
// message is retried inside the same subscriber transaction, so without it a
// failed attempt's writes would stay and commit with the next attempt.
func savepointPerAttempt(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		tx, ok := watermillsql.TxFromContext(msg.Context())
		if !ok {
			return h(msg)
		}
		ctx := msg.Context()
		if _, err := tx.ExecContext(ctx, "SAVEPOINT handler_attempt"); err != nil {
			return nil, fmt.Errorf("savepoint: %w", err)
		}
		out, err := h(msg)
		if err != nil {
			if _, rbErr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT handler_attempt"); rbErr != nil {
				return nil, fmt.Errorf("%w (and rollback to savepoint failed: %v)", err, rbErr)
			}
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT handler_attempt"); err != nil {
			return nil, fmt.Errorf("release savepoint: %w", err)
		}
		return out, nil
	}
}
