package grouptx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/lib/pq"

	"shipd/platform/postgres"
	"shipd/platform/txguard"
)

// attempt is one try of a handler on a message. A nacked message is retried
// inside the same subscriber transaction, so a failed try's writes must not
// stay and commit with the next one: the first handler write in the
// subscriber's transaction (Borrow) opens a SAVEPOINT, rolled back if the try
// fails. Handlers that write nothing there (events a group passes over, read
// models collecting a batch, handlers writing through a connection of their
// own) cost no round trip.
type attempt struct {
	tx        watermillsql.Tx
	savepoint bool
	// lost is set when the savepoint could not be taken because the
	// transaction is dead (see begin).
	lost bool
}

type attemptKey struct{}

// Savepoints gives each handler try its attempt; log is told of a
// try whose transaction was lost.
func Savepoints(log *slog.Logger) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			tx, ok := From(msg.Context())
			if !ok {
				return h(msg)
			}
			tx = Raw(tx)
			a := &attempt{tx: tx}
			ctx := msg.Context()
			// The handler runs inside the subscriber's transaction: no outbound
			// call from it (ADR 0001), which txguard refuses.
			held := txguard.Hold(ctx, "the subscriber's transaction (an event or command handler)", nil)
			msg.SetContext(context.WithValue(held, attemptKey{}, a))
			defer msg.SetContext(ctx)
			out, err := h(msg)
			if a.lost {
				// The subscriber's transaction lost its connection (PostgreSQL
				// restarted), or is aborted: nothing can commit in it, the
				// acknowledgement included. A nack would have watermill resend
				// the message into the same dead transaction until the ack
				// deadline (30 s of a stalled consumer group; found by make
				// faults). An ack ends that at once: writing it fails, the batch
				// is rolled back and read again in a fresh transaction, so the
				// message is still handled, just not in this one.
				log.WarnContext(ctx, "subscriber transaction lost its connection; the message is read again", "message_uuid", msg.UUID, "err", err)
				return nil, nil
			}
			if !a.savepoint {
				return out, err
			}
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
}

// begin opens the attempt's savepoint, once.
func (a *attempt) begin(ctx context.Context) error {
	if a.savepoint {
		return nil
	}
	if _, err := a.tx.ExecContext(ctx, "SAVEPOINT handler_attempt"); err != nil {
		if postgres.IsUnavailable(err) || isAborted(err) {
			a.lost = true
		}
		return fmt.Errorf("savepoint: %w", err)
	}
	a.savepoint = true
	return nil
}

// isAborted reports a transaction PostgreSQL has aborted (25P02): every
// statement fails until it ends.
func isAborted(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "25P02"
}

// UnderSavepoint runs fn; if it fails, its writes are rolled back and the
// transaction stays usable.
func UnderSavepoint(ctx context.Context, tx watermillsql.ContextExecutor, name string, fn func() error) error {
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
