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
