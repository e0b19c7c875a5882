package postgres_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lib/pq"

	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// A deadlock PostgreSQL breaks is seen by its SQLSTATE through the
// wrapping a caller adds; a message that merely mentions one is not.
func TestIsConflictKnowsADeadlockByItsCode(t *testing.T) {
	db := pgtest.Open(t)
	if _, err := db.Exec(`CREATE TABLE conflict_rows (id int PRIMARY KEY); INSERT INTO conflict_rows VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	first, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	second, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Rollback()
	lock := `SELECT id FROM conflict_rows WHERE id = $1 FOR UPDATE`
	if _, err := first.Exec(lock, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Exec(lock, 2); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { _, err := first.Exec(lock, 2); waited <- err }()
	if _, err = second.Exec(lock, 1); err == nil {
		err = <-waited // the first was chosen to give way
	} else {
		_ = second.Rollback()
		<-waited
	}
	if !postgres.IsConflict(fmt.Errorf("could not query message: %w", err)) {
		t.Errorf("a deadlock (%v) is not seen as a conflict", err)
	}
	for _, other := range []error{
		&pq.Error{Code: "23505", Message: "duplicate key"},
		errors.New("deadlock detected"),
		&pq.Error{Code: "XX000", Message: "could not serialize access due to concurrent update"},
		nil,
	} {
		if postgres.IsConflict(other) {
			t.Errorf("%v is seen as a conflict", other)
		}
	}
	if !postgres.IsConflict(&pq.Error{Code: "40001"}) {
		t.Error("a serialization failure is not seen as a conflict")
	}
}
