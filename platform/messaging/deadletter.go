package messaging

import (
	"context"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/deadletter"
)

// DeadLetter is a message one consumer group could not handle.
type DeadLetter = deadletter.DeadLetter

// ErrNoDeadLetter is returned for an id that is not a waiting dead letter.
var ErrNoDeadLetter = deadletter.ErrNone

// DeadLetters lists the dead letters, newest first; waiting only leaves out
// those already put back.
func DeadLetters(ctx context.Context, db sqlx.QueryerContext, waiting bool, limit int) ([]DeadLetter, error) {
	return deadletter.List(ctx, db, waiting, limit)
}

// RetryDeadLetter puts the dead letter back at the end of its stream, for
// its consumer group alone, and marks it retried.
func RetryDeadLetter(ctx context.Context, db *sqlx.DB, id int64) error {
	return deadletter.Retry(ctx, db, id)
}
