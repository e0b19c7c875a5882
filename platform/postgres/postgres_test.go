package postgres_test

import (
	"errors"
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

func openDB(t *testing.T) *sqlx.DB {
	t.Helper()
	db := pgtest.Open(t)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE public.scratch (n integer PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	return db
}

func rows(t *testing.T, db *sqlx.DB) []int {
	t.Helper()
	var ns []int
	if err := db.SelectContext(t.Context(), &ns, `SELECT n FROM public.scratch ORDER BY n`); err != nil {
		t.Fatal(err)
	}
	return ns
}

func insert(tx *sqlx.Tx, n int) error {
	_, err := tx.Exec(`INSERT INTO public.scratch (n) VALUES ($1)`, n)
	return err
}

func TestOpenFailsOnBadDSN(t *testing.T) {
	dsn := pgtest.WithDatabase(pgtest.NewDatabase(t), "shipd_no_such_database")
	if db, err := postgres.Open(t.Context(), dsn, postgres.Pool{}); err == nil {
		db.Close()
		t.Fatal("Open of a missing database succeeded")
	}
}

func TestInTxCommits(t *testing.T) {
	db := openDB(t)
	if err := postgres.InTx(t.Context(), db, func(tx *sqlx.Tx) error {
		if err := insert(tx, 1); err != nil {
			return err
		}
		return insert(tx, 2)
	}); err != nil {
		t.Fatalf("InTx: %v", err)
	}
	if got := rows(t, db); len(got) != 2 {
		t.Errorf("rows = %v, want [1 2]", got)
	}
}

func TestInTxRollsBackOnError(t *testing.T) {
	db := openDB(t)
	boom := errors.New("boom")
	err := postgres.InTx(t.Context(), db, func(tx *sqlx.Tx) error {
		if err := insert(tx, 1); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v, want the function's error", err)
	}
	if got := rows(t, db); len(got) != 0 {
		t.Errorf("rows = %v after a failed transaction, want none", got)
	}
}

func TestInTxRollsBackOnPanic(t *testing.T) {
	db := openDB(t)
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the panic to propagate", p)
			}
		}()
		_ = postgres.InTx(t.Context(), db, func(tx *sqlx.Tx) error {
			if err := insert(tx, 1); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if got := rows(t, db); len(got) != 0 {
		t.Errorf("rows = %v after a panicking transaction, want none", got)
	}
	// The connection went back to the pool usable.
	if err := postgres.InTx(t.Context(), db, func(tx *sqlx.Tx) error { return insert(tx, 2) }); err != nil {
		t.Fatalf("InTx after a panic: %v", err)
	}
}

func TestIsUniqueViolation(t *testing.T) {
	db := openDB(t)
	if err := postgres.InTx(t.Context(), db, func(tx *sqlx.Tx) error { return insert(tx, 1) }); err != nil {
		t.Fatal(err)
	}
	err := postgres.InTx(t.Context(), db, func(tx *sqlx.Tx) error { return insert(tx, 1) })
	if err == nil {
		t.Fatal("duplicate insert succeeded")
	}
	if !postgres.IsUniqueViolation(err, "") || !postgres.IsUniqueViolation(err, "scratch_pkey") {
		t.Errorf("IsUniqueViolation(%v) = false", err)
	}
	if postgres.IsUniqueViolation(err, "other_key") {
		t.Error("IsUniqueViolation matched another constraint")
	}
	if postgres.IsUniqueViolation(errors.New("duplicate"), "") || postgres.IsUniqueViolation(nil, "") {
		t.Error("IsUniqueViolation matched a non-PostgreSQL error")
	}
}
