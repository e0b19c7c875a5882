package messaging

import (
	"context"

	"github.com/ThreeDotsLabs/watermill/components/cqrs"
	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/grouptx"
)

// Tx returns the subscriber's transaction a handler runs in, so a handler's
// writes commit together with the message's acknowledgement; the try's
// savepoint is opened first. Queries must use $n placeholders (sqlx cannot
// rebind on a borrowed transaction).
func Tx(ctx context.Context) (*sqlx.Tx, error) { return grouptx.Borrow(ctx) }

// MessageID returns the id ("evt_...") of the message being handled.
func MessageID(ctx context.Context) string {
	if msg := cqrs.OriginalMessageFromCtx(ctx); msg != nil {
		return msg.UUID
	}
	return ""
}
