package messaging

import (
	"context"
	"database/sql"
	"sync"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
)

// limitedBeginner lets at most cap(slots) subscriber transactions be open at
// once. A subscriber holds its transaction, and so a connection, while its
// handlers run, and each handler writes through a second connection of its
// own (ADR 0019): with more subscribers than the pool has connections, every
// connection could end up held by a subscriber waiting for one more, and the
// instance would stand still. Keeping subscribers to part of the pool leaves
// the rest to their handlers, the HTTP API and the workers.
type limitedBeginner struct {
	watermillsql.Beginner
	slots chan struct{}
}

func (b limitedBeginner) BeginTx(ctx context.Context, opts *sql.TxOptions) (watermillsql.Tx, error) {
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tx, err := b.Beginner.BeginTx(ctx, opts)
	if err != nil {
		<-b.slots
		return nil, err
	}
	std, _ := tx.(*watermillsql.StdSQLTx)
	return &limitedTx{StdSQLTx: std, slots: b.slots}, nil
}

// limitedTx gives its slot back when it ends, however it ends.
type limitedTx struct {
	*watermillsql.StdSQLTx
	slots chan struct{}
	once  sync.Once
}

func (t *limitedTx) Commit() error {
	defer t.free()
	return t.StdSQLTx.Commit()
}

func (t *limitedTx) Rollback() error {
	defer t.free()
	return t.StdSQLTx.Rollback()
}

func (t *limitedTx) free() { t.once.Do(func() { <-t.slots }) }

// stdTx returns the standard library transaction under a subscriber's
// transaction, limited or not.
func stdTx(tx watermillsql.Tx) (*sql.Tx, bool) {
	switch t := tx.(type) {
	case *watermillsql.StdSQLTx:
		return t.Tx, true
	case *limitedTx:
		return t.StdSQLTx.Tx, true
	}
	return nil, false
}
