package grouptx

import (
	"context"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
)

type txKey struct{}

// With gives a message from the broker the transaction its
// handlers run in (brokerTransaction); watermill-sql puts its own in the
// context of a message read from PostgreSQL.
func With(ctx context.Context, tx watermillsql.Tx) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// From returns the transaction a message is handled in,
// whichever backbone delivered it.
func From(ctx context.Context) (watermillsql.Tx, bool) {
	if tx, ok := ctx.Value(txKey{}).(watermillsql.Tx); ok {
		return tx, true
	}
	return watermillsql.TxFromContext(ctx)
}
