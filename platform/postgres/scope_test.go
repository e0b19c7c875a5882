package postgres_test

import (
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/postgres"
	"shipd/platform/txguard"
)

// A scope's transaction is open to txguard from its first write until the
// scope finishes, committed or rolled back; before the first write (reads,
// a carrier call) nothing is open.
func TestScopeIsOpenFromItsFirstWriteUntilItFinishes(t *testing.T) {
	for _, finish := range []string{"commit", "rollback"} {
		t.Run(finish, func(t *testing.T) {
			db := openDB(t)
			ctx, scope := postgres.WithScope(t.Context(), db)
			if got := txguard.Open(ctx); got != "" {
				t.Errorf("before the first write: open %q", got)
			}
			if err := postgres.InTx(ctx, db, func(tx *sqlx.Tx) error { return insert(tx, 1) }); err != nil {
				t.Fatal(err)
			}
			if got := txguard.Open(ctx); got == "" {
				t.Error("after the first write: no transaction open")
			}
			if finish == "commit" {
				if err := scope.Commit(t.Context(), func(tx *sqlx.Tx) error { return insert(tx, 2) }); err != nil {
					t.Fatal(err)
				}
			} else {
				scope.Rollback()
			}
			if got := txguard.Open(ctx); got != "" {
				t.Errorf("after the %s: open %q", finish, got)
			}
		})
	}
}

// A scope that never wrote is never open, even while its owner's last write
// runs in a transaction of its own.
func TestScopeWithoutWritesIsNeverOpen(t *testing.T) {
	db := openDB(t)
	ctx, scope := postgres.WithScope(t.Context(), db)
	if err := scope.Commit(t.Context(), func(tx *sqlx.Tx) error {
		if got := txguard.Open(ctx); got != "" {
			t.Errorf("the handler's context during the owner's last write: open %q", got)
		}
		return insert(tx, 1)
	}); err != nil {
		t.Fatal(err)
	}
}

// Within, every InTx on the database runs in the transaction given, which
// its owner alone finishes: rolled back, nothing of theirs stands.
func TestWithinRunsInTheOwnersTransaction(t *testing.T) {
	db := openDB(t)
	tx, err := db.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := postgres.Within(t.Context(), db, tx)
	if got := txguard.Open(ctx); got == "" {
		t.Error("within a transaction: txguard sees none open")
	}
	if err := postgres.InTx(ctx, db, func(tx *sqlx.Tx) error { return insert(tx, 7) }); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := sqlx.GetContext(ctx, postgres.Reader(ctx, db), &n, `SELECT count(*) FROM public.scratch WHERE n = 7`); err != nil || n != 1 {
		t.Errorf("read through the transaction: %d rows (%v), want its own write", n, err)
	}
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM public.scratch WHERE n = 7`); err != nil || n != 0 {
		t.Errorf("read from outside before the owner finished: %d rows (%v), want none", n, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM public.scratch WHERE n = 7`); err != nil || n != 0 {
		t.Errorf("after the owner's rollback: %d rows (%v), want none", n, err)
	}
}
