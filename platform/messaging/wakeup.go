package messaging

import (
	"context"
	"log/slog"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/wakeup"
)

// Wakeup tells a stream's idle readers that something was committed on it,
// fed by LISTEN on a connection of its own.
type Wakeup = wakeup.Wakeup

// NewWakeup listens for commits on dsn's database until Close. Without a
// listener (dsn empty) readers fall back to polling at their safety interval.
func NewWakeup(dsn string, logger *slog.Logger) (*Wakeup, error) { return wakeup.New(dsn, logger) }

// Notify tells the Wakeups of every instance that something new is on
// stream, once q's transaction commits (at once outside one): a module's own
// signal of due work uses it with a name of its own (e.g.
// "webhooks.deliveries").
func Notify(ctx context.Context, q sqlx.ExecerContext, stream string) error {
	return wakeup.Notify(ctx, q, stream)
}
