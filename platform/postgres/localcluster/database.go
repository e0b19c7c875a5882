package localcluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/lib/pq"
)

// createDatabase connects to the always-present "postgres" database because
// the target may not exist yet.
func createDatabase(ctx context.Context, host string, port int, name string, logf func(string, ...any), alive func(context.Context) (bool, error)) error {
	db, err := sql.Open("postgres", buildDSN(host, port, "postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := pingRetry(ctx, db, 15*time.Second, alive); err != nil {
		return fmt.Errorf("connect to PostgreSQL on socket %s: %w", socketPath(host, port), err)
	}
	var one int
	err = db.QueryRowContext(ctx, "SELECT 1 FROM pg_database WHERE datname=$1", name).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("look up database %q: %w", name, err)
	}
	logf("creating database %q", name)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name)); err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "42P04" { // duplicate_database: someone else won
			return nil
		}
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

var errServerGone = errors.New("PostgreSQL server is not running")

// pingRetry rides out a server that is still coming up (e.g. crash recovery
// after a restart) instead of failing the first caller. Nobody listening on
// the socket means the server is gone, unless alive says otherwise, and
// waiting would not help.
func pingRetry(ctx context.Context, db *sql.DB, within time.Duration, alive func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	for {
		err := db.PingContext(ctx)
		if err == nil {
			return nil
		}
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
			if ok, aerr := alive(ctx); aerr == nil && !ok {
				return fmt.Errorf("%w: %w", errServerGone, err)
			}
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}
