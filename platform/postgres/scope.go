package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jmoiron/sqlx"

	"shipd/platform/txguard"
)

// A Scope gathers every InTx on its database that runs under its context
// into one transaction, which the scope's owner finishes. A request that must
// record something of its own atomically with whatever its handler writes
// (an idempotency key's answer, ADR 0007) opens a scope, runs the handler,
// and commits the scope with its own last write.
//
// The transaction begins at the first InTx, so whatever a handler does
// before its first write (a carrier call, reads) stays outside it, and a
// request that writes nothing holds no connection. Each InTx inside the
// scope runs under a savepoint: an InTx whose fn fails leaves the earlier
// writes standing, exactly as a rolled-back transaction of its own would.
//
// Inside a scope, InTx returns before anything is committed, so a handler
// reads its own write back only through Reader (the scope's transaction),
// never through another connection, and takes no lock after a write through
// one: that would wait for itself.
//
// From the first write until the scope finishes, an outbound call under its
// context is refused (txguard): it would hold the transaction open for as
// long as the remote party takes (ADR 0001).
type Scope struct {
	db       *sqlx.DB
	ctx      context.Context
	tx       *sqlx.Tx
	finished bool
	n        int         // savepoints so far, to name the next
	open     atomic.Bool // tx begun and not finished; asked by txguard, maybe from another goroutine
	borrowed bool        // tx is someone else's to finish (Within)
}

type scopeKey struct{}

// WithScope returns a context whose InTx calls on db join one transaction,
// and the scope to finish it with Commit or Rollback.
func WithScope(ctx context.Context, db *sqlx.DB) (context.Context, *Scope) {
	s := &Scope{db: db, ctx: ctx}
	ctx = txguard.Hold(ctx, "a postgres.Scope transaction (a request's atomic phase, ADR 0007)", s.open.Load)
	return context.WithValue(ctx, scopeKey{}, s), s
}

func scopeOf(ctx context.Context, db *sqlx.DB) *Scope {
	s, _ := ctx.Value(scopeKey{}).(*Scope)
	if s == nil || s.db != db {
		return nil
	}
	return s
}

func (s *Scope) run(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	if s.finished {
		return errors.New("postgres: transaction scope already finished")
	}
	if s.tx == nil {
		// Begun on the scope's own context, not the caller's: a derived
		// context that ends early would roll back the whole request.
		if s.tx, err = s.db.BeginTxx(s.ctx, nil); err != nil {
			s.tx = nil
			return fmt.Errorf("begin: %w", err)
		}
		s.open.Store(true)
	}
	s.n++
	sp := fmt.Sprintf("scope_%d", s.n)
	if _, err = s.tx.ExecContext(ctx, "SAVEPOINT "+sp); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_, _ = s.tx.ExecContext(context.WithoutCancel(ctx), "ROLLBACK TO SAVEPOINT "+sp)
			panic(p)
		}
	}()
	if err = fn(s.tx); err != nil {
		if _, rbErr := s.tx.ExecContext(context.WithoutCancel(ctx), "ROLLBACK TO SAVEPOINT "+sp); rbErr != nil {
			return errors.Join(err, fmt.Errorf("rollback to savepoint: %w", rbErr))
		}
		return err
	}
	if _, err = s.tx.ExecContext(ctx, "RELEASE SAVEPOINT "+sp); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	return nil
}

// Commit runs last in the scope's transaction (beginning one if nothing ran
// yet) and commits everything. When last or the commit fails, nothing of the
// scope is kept.
func (s *Scope) Commit(ctx context.Context, last func(tx *sqlx.Tx) error) error {
	if s.borrowed {
		return errors.New("postgres: a borrowed transaction is finished by its owner")
	}
	if s.finished {
		return errors.New("postgres: transaction scope already finished")
	}
	s.finished = true
	defer s.open.Store(false)
	if s.tx == nil {
		return inNewTx(ctx, s.db, last)
	}
	tx := s.tx
	if err := last(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Rollback discards everything the scope's transaction holds. It is safe to
// call after Commit (it does nothing then).
func (s *Scope) Rollback() {
	if s.finished || s.borrowed {
		return
	}
	s.finished = true
	if s.tx != nil {
		_ = s.tx.Rollback()
		s.open.Store(false)
	}
}

// Wrote reports whether anything ran in the scope's transaction: a handler
// that answered without writing changed nothing.
func (s *Scope) Wrote() bool { return s.tx != nil }

// Reader is what a read on db should go through under ctx: the scope's
// transaction once it has begun, so a handler that wrote under a scope reads
// its own write back (a command's result is read through a query, ADR
// 0035); db itself otherwise.
func Reader(ctx context.Context, db *sqlx.DB) sqlx.QueryerContext {
	if s := scopeOf(ctx, db); s != nil && s.tx != nil && !s.finished {
		return s.tx
	}
	return db
}

// Within returns a context whose InTx calls on db run in tx, a transaction
// someone else began and finishes: a consumer group's transaction, whose
// batch of messages a module's use case applies in one go, committed with
// the messages' acknowledgement. Each InTx runs under a savepoint, as in a
// scope; Reader reads through tx.
func Within(ctx context.Context, db *sqlx.DB, tx *sqlx.Tx) context.Context {
	s := &Scope{db: db, ctx: ctx, tx: tx, borrowed: true}
	s.open.Store(true)
	ctx = txguard.Hold(ctx, "a transaction the caller's caller finishes (a consumer group's batch)", s.open.Load)
	return context.WithValue(ctx, scopeKey{}, s)
}
