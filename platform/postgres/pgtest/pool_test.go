package pgtest

import (
	"context"
	"database/sql"
	"testing"
)

// A database given back and taken again is as the template made it: what
// a test wrote is gone, sequences start again, goose's record is whole; a
// database whose schema a test changed is copied afresh; a session a test
// left on it is ended.
func TestPoolGivesEachTestADatabaseAsTheTemplateMadeIt(t *testing.T) {
	ctx := context.Background()
	admin, base, tmpl := server(t)
	migrations := func(db *sql.DB) int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM public.platform_goose_db_version`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tc := range []struct {
		name  string
		leave func(t *testing.T, db *sql.DB) // what the previous test leaves
	}{
		{"rows and a sequence moved on", func(t *testing.T, db *sql.DB) {
			exec(t, db, `INSERT INTO platform.accounts (id, name, plan, created_at) VALUES ('acc_1', 'acme', 'free', now())`)
			exec(t, db, `SELECT nextval('platform.dead_letters_id_seq'), nextval('platform.dead_letters_id_seq')`)
		}},
		{"a table of its own", func(t *testing.T, db *sql.DB) {
			exec(t, db, `CREATE TABLE platform.leftover (id int)`)
		}},
		{"a migration taken back", func(t *testing.T, db *sql.DB) {
			exec(t, db, `DELETE FROM platform_goose_db_version WHERE version_id = (SELECT max(version_id) FROM platform_goose_db_version)`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := take(ctx, admin, base, tmpl)
			if err != nil {
				t.Fatal(err)
			}
			db := open(t, WithDatabase(base, p.name))
			want := migrations(db)
			tc.leave(t, db)
			// A session the test leaves open: the next taker ends it.
			left, err := open(t, WithDatabase(base, p.name)).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer left.Close()
			if _, err := left.ExecContext(ctx, `SELECT 1`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			p.giveBack()

			// Taken again, by this test whoever took it meanwhile.
			lock, err := admin.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := lock.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1))`, p.name); err != nil {
				t.Fatal(err)
			}
			again := &pooled{name: p.name, lock: lock}
			defer again.giveBack()
			if err := again.prepare(ctx, admin, base, tmpl); err != nil {
				t.Fatal(err)
			}
			if _, err := left.ExecContext(ctx, `SELECT 1`); err == nil {
				t.Error("the session left on the database still runs")
			}
			db = open(t, WithDatabase(base, p.name))
			var accounts int
			var next int64
			var leftover bool
			if err := db.QueryRow(`SELECT (SELECT count(*) FROM platform.accounts), nextval('platform.dead_letters_id_seq'),
				to_regclass('platform.leftover') IS NOT NULL`).Scan(&accounts, &next, &leftover); err != nil {
				t.Fatal(err)
			}
			if accounts != 0 || next != 1 || leftover || migrations(db) != want {
				t.Errorf("taken again: %d accounts, next dead letter id %d, leftover table %v, %d migrations recorded (want 0, 1, false, %d)",
					accounts, next, leftover, migrations(db), want)
			}
		})
	}
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, query string) {
	t.Helper()
	if _, err := db.Exec(query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}
