// Package postgres opens the database and runs short transactions.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Open connects to dsn with a pool of the given settings and checks the
// connection.
func Open(ctx context.Context, dsn string, pool Pool) (*sqlx.DB, error) {
	if err := pool.Validate(); err != nil {
		return nil, err
	}
	pool = pool.withDefaults()
	db, err := sqlx.Open("postgres", withApplicationName(withBinaryParameters(dsn)))
	if err != nil {
		return nil, fmt.Errorf("opening database: %w", err)
	}
	db.SetMaxOpenConns(pool.MaxConns)
	db.SetMaxIdleConns(pool.MaxIdleConns)
	db.SetConnMaxLifetime(pool.ConnMaxLifetime)
	db.SetConnMaxIdleTime(pool.ConnMaxIdleTime)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to database: %w", err)
	}
	return db, nil
}

// InTx runs fn in one transaction, committing when fn returns nil. fn must do
// no network I/O: an open transaction holds back every event subscriber in
// the cluster (see architecture/decisions/0001). fn gets no context marked
// for txguard, so review must see that rule kept here. Under a Scope's
// context, fn runs inside the scope's transaction instead, which the
// scope's owner commits (and txguard sees).
func InTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	if s := scopeOf(ctx, db); s != nil {
		return s.run(ctx, fn)
	}
	return inNewTx(ctx, db, fn)
}

// InOwnTx runs fn in a transaction of its own, which commits when fn
// returns, even under a request's Scope: a recovery point written before a
// carrier call (ADR 0041) must outlive a request that fails or dies after
// it, and the scope, had it written, would refuse the call (txguard).
func InOwnTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	return inNewTx(ctx, db, fn)
}

func inNewTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) (err error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IsUniqueViolation reports whether err is a unique-constraint violation of
// the named constraint (any constraint when name is empty).
func IsUniqueViolation(err error, constraint string) bool {
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || pqErr.Code != "23505" {
		return false
	}
	return constraint == "" || pqErr.Constraint == constraint
}

// withApplicationName names shipd's connections in pg_stat_activity unless
// the DSN names them itself (fallback_application_name gives way to an
// application_name there or in PGAPPNAME).
func withApplicationName(dsn string) string {
	return withParameter(dsn, "fallback_application_name", "shipd")
}

// withBinaryParameters turns on lib/pq's binary_parameters unless the DSN
// says otherwise: a query with arguments then takes one round trip instead
// of a prepare and an execute (measured: most of the driver's time on the
// write path). Binary parameters send []byte as binary, so jsonb columns
// must be written from strings, never []byte.
func withBinaryParameters(dsn string) string {
	return withParameter(dsn, "binary_parameters", "yes")
}

// withParameter adds name=value to a URL or key=value DSN that does not set
// name already.
func withParameter(dsn, name, value string) string {
	if strings.Contains(dsn, name) {
		return dsn
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		q := u.Query()
		q.Set(name, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " " + name + "=" + value
}

// EscapeLike escapes the LIKE wildcards (and the escape character) in s, so
// that s + "%" matches s as a prefix.
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
