package grouptx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/jmoiron/sqlx/reflectx"
)

var mapper = reflectx.NewMapperFunc("db", sqlx.NameMapper)

// Borrow returns the subscriber's transaction a handler runs in, so a
// handler's writes commit together with the message's acknowledgement; the
// try's savepoint is opened first (see attempt). Queries must use $n
// placeholders (sqlx cannot rebind on a borrowed transaction).
func Borrow(ctx context.Context) (*sqlx.Tx, error) {
	tx, ok := From(ctx)
	if !ok {
		return nil, errors.New("messaging: no subscriber transaction in context")
	}
	if a, ok := ctx.Value(attemptKey{}).(*attempt); ok {
		if err := a.begin(ctx); err != nil {
			return nil, err
		}
	}
	std, ok := Std(tx)
	if !ok {
		return nil, fmt.Errorf("messaging: unexpected transaction type %T", tx)
	}
	return borrowed(std), nil
}

// borrowed is a subscriber's standard library transaction as sqlx's.
func borrowed(std *sql.Tx) *sqlx.Tx { return &sqlx.Tx{Tx: std, Mapper: mapper} }
