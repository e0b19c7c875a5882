package messaging

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/lib/pq"

	"shipd/platform/postgres"
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
			if postgres.IsUnavailable(err) || isAborted(err) {
				// The subscriber's transaction lost its connection (PostgreSQL
				// restarted), or is aborted: nothing can commit in it, the acknowledgement
				// included. A nack would have watermill resend the message
				// into the same dead transaction until the ack deadline (30 s
				// of a stalled consumer group; found by make faults). An ack
				// ends that at once: writing it fails, the batch is rolled
				// back and read again in a fresh transaction, so the message
				// is still handled, just not in this one.
				slog.WarnContext(ctx, "subscriber transaction lost its connection; the message is read again", "message_uuid", msg.UUID, "err", err)
				return nil, nil
			}
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

// isAborted reports a transaction PostgreSQL has aborted (25P02): every
// statement fails until it ends.
func isAborted(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "25P02"
}

// underSavepoint runs fn; if it fails, its writes are rolled back and the
// transaction stays usable.
func underSavepoint(ctx context.Context, tx watermillsql.ContextExecutor, name string, fn func() error) error {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT "+name); err != nil {
		return err
	}
	if err := fn(); err != nil {
		if _, rbErr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+name); rbErr != nil {
			return errors.Join(err, rbErr)
		}
		return err
	}
	_, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT "+name)
	return err
}
