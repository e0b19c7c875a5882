package postgres_test

import (
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// oneConnection is a pool of one connection, so that a session setting
// holds for every statement, with set run on it first.
func oneConnection(t *testing.T, set string) *sqlx.DB {
	t.Helper()
	db := pgtest.Open(t)
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(t.Context(), set); err != nil {
		t.Fatal(err)
	}
	return db
}

// Unflushed turns synchronous_commit off for its own statement's
// transaction and leaves the session as it was.
func TestUnflushedIsTheStatementsOwn(t *testing.T) {
	db := oneConnection(t, `SET synchronous_commit = on`)
	var during, after string
	if err := db.GetContext(t.Context(), &during, `WITH `+postgres.Unflushed+` SELECT current_setting('synchronous_commit') FROM unflushed`); err != nil {
		t.Fatal(err)
	}
	if err := db.GetContext(t.Context(), &after, `SELECT current_setting('synchronous_commit')`); err != nil {
		t.Fatal(err)
	}
	if during != "off" || after != "on" {
		t.Errorf("synchronous_commit %q during the statement and %q after it; want off, then on", during, after)
	}
}
