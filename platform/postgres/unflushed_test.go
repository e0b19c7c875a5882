package postgres_test

import (
	"testing"

	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// Unflushed turns synchronous_commit off for its own statement's
// transaction and leaves the session as it was.
func TestUnflushedIsTheStatementsOwn(t *testing.T) {
	db := pgtest.Open(t)
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(t.Context(), `SET synchronous_commit = on`); err != nil {
		t.Fatal(err)
	}
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
