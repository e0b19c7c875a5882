// Package pgtest gives each test a fresh, migrated PostgreSQL database on the
// server DATABASE_URL names (`make test` starts a throwaway one).
package pgtest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/migrations"
	"shipd/platform/postgres"
)

// NewDatabase creates a database for t from a migrated template, and drops
// it when t ends. It returns the database's connection string.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return NewDatabases(t, 1)[0]
}

// NewDatabases is n databases of NewDatabase, taken at once and given back
// at once. A database is copied from the template only the first time;
// afterwards it is one of the template's pool, emptied for its next test
// (pool.go): a copy costs the server a few tenths of a second of CPU, which
// the suite paid several hundred times, emptying much less. Each copy or
// emptying holds a transaction id meanwhile, and every event subscriber of
// the cluster waits for it (they read only below the oldest id still
// running, ADR 0030), so they happen between a test's work, not beside
// it, and together rather than one after the other.
func NewDatabases(t testing.TB, n int) []string {
	t.Helper()
	ctx := context.Background()
	admin, base, tmpl := server(t)
	taken := make([]*pooled, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range taken {
		wg.Go(func() { taken[i], errs[i] = take(ctx, admin, base, tmpl) })
	}
	wg.Wait()
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, p := range taken {
			if p != nil {
				wg.Go(p.giveBack)
			}
		}
		wg.Wait()
	})
	dsns := make([]string, n)
	for i, p := range taken {
		if errs[i] != nil {
			t.Fatalf("creating test database: %v", errs[i])
		}
		dsns[i] = WithDatabase(base, p.name)
	}
	return dsns
}

// server is the connection to the server DATABASE_URL names, that URL and
// the name of its migrated template, made when it is missing.
func server(t testing.TB) (admin *sql.DB, base, tmpl string) {
	t.Helper()
	base = os.Getenv("DATABASE_URL")
	if base == "" {
		t.Fatal("DATABASE_URL is not set: run the tests with `make test`, which starts a throwaway PostgreSQL")
	}
	admin, err := adminDB(base)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err = template(context.Background(), admin, base)
	if err != nil {
		t.Fatalf("preparing template database: %v", err)
	}
	return admin, base, tmpl
}

// template returns the name of a migrated template database, made once per
// set of migrations and shared by every package's tests.
func template(ctx context.Context, admin *sql.DB, base string) (string, error) {
	templateMu.Lock()
	defer templateMu.Unlock()
	if templateName != "" {
		return templateName, nil
	}
	name, err := makeTemplate(ctx, admin, base)
	if err == nil {
		templateName = name
	}
	return name, err
}

// templateName is the template this process found or made.
var (
	templateMu   sync.Mutex
	templateName string
)

func makeTemplate(ctx context.Context, admin *sql.DB, base string) (string, error) {
	name := "shipd_tmpl_" + migrationsHash()
	// The lock is a session's: taken and given back on one connection.
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(727273)`); err != nil {
		return "", err
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock(727273)`)
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	_, _ = conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+pq.QuoteIdentifier(building)+` WITH (FORCE)`)
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+pq.QuoteIdentifier(building)); err != nil {
		return "", err
	}
	db, err := sql.Open("postgres", WithDatabase(base, building))
	if err != nil {
		return "", err
	}
	_, err = migrations.Up(ctx, db)
	var fingerprint string
	if err == nil {
		err = db.QueryRowContext(ctx, fingerprintQuery).Scan(&fingerprint)
	}
	db.Close()
	if err != nil {
		return "", err
	}
	// The pool's databases are emptied for reuse only while their schema
	// is still this one (pool.go); shared catalogs keep the comment where
	// every session reads it without connecting to the template, which
	// would stop CREATE DATABASE from copying it.
	if _, err := conn.ExecContext(ctx, `COMMENT ON DATABASE `+pq.QuoteIdentifier(building)+` IS `+pq.QuoteLiteral(fingerprintComment+fingerprint)); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+pq.QuoteIdentifier(building)+` RENAME TO `+pq.QuoteIdentifier(name)); err != nil {
		return "", err
	}
	return name, nil
}

func migrationsHash() string {
	h := sha256.New()
	// The template keeps the fingerprint of its schema (pool.go): another
	// way of taking it is another template.
	h.Write([]byte(fingerprintQuery))
	_ = fs.WalkDir(migrations.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(migrations.Files, path)
		fmt.Fprintf(h, "%s\n%d\n", path, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// WithDatabase returns dsn (a postgres:// URL or key=value string) pointing
// at database name instead.
func WithDatabase(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	var kept []string
	for _, f := range strings.Fields(dsn) {
		if !strings.HasPrefix(f, "dbname=") {
			kept = append(kept, f)
		}
	}
	return strings.Join(append(kept, "dbname="+name), " ")
}

// Open creates a database for t (see NewDatabase) and connects to it; the
// connection closes when t ends.
func Open(t testing.TB) *sqlx.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), NewDatabase(t), postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
