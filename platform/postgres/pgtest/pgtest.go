// Package pgtest gives each test a fresh, migrated PostgreSQL database on the
// server DATABASE_URL names (`make test` starts a throwaway one).
package pgtest

import (
	"context"
	"crypto/rand"
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

// NewDatabases is n databases of NewDatabase, made at once and dropped at
// once. Each copy or drop takes most of a second on a server that syncs
// to disk, and holds a transaction id meanwhile: every event subscriber of
// the cluster waits for it (they read only below the oldest id still
// running, ADR 0030). So they happen between a test's work, not beside it,
// and together rather than one after the other.
func NewDatabases(t testing.TB, n int) []string {
	t.Helper()
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		t.Fatal("DATABASE_URL is not set: run the tests with `make test`, which starts a throwaway PostgreSQL")
	}
	ctx := context.Background()
	admin, err := sql.Open("postgres", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	tmpl, err := template(ctx, admin, base)
	if err != nil {
		t.Fatalf("preparing template database: %v", err)
	}
	names := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range names {
		wg.Go(func() { names[i], errs[i] = create(ctx, admin, tmpl) })
	}
	wg.Wait()
	t.Cleanup(func() {
		admin, err := sql.Open("postgres", base)
		if err != nil {
			return
		}
		defer admin.Close()
		var wg sync.WaitGroup
		for _, name := range names {
			if name != "" {
				wg.Go(func() { dropDatabase(admin, name) })
			}
		}
		wg.Wait()
	})
	dsns := make([]string, n)
	for i, name := range names {
		if errs[i] != nil {
			t.Fatalf("creating test database: %v", errs[i])
		}
		dsns[i] = WithDatabase(base, name)
	}
	return dsns
}

// create makes a database from tmpl and returns its name.
func create(ctx context.Context, admin *sql.DB, tmpl string) (string, error) {
	name := "shipd_test_" + strings.ToLower(rand.Text()[:16])
	// Tests may copy the template at the same time: CREATE DATABASE only
	// refuses a template that sessions are connected to.
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+pq.QuoteIdentifier(name)+` TEMPLATE `+pq.QuoteIdentifier(tmpl)); err != nil {
		return "", err
	}
	// No test waits for its commits to reach the disk, as on the throwaway
	// cluster of `make test` (fsync and synchronous_commit off): on a
	// server that syncs, each commit's flush would cost time and prove
	// nothing a test checks.
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE `+pq.QuoteIdentifier(name)+` SET synchronous_commit = off`); err != nil {
		return name, err
	}
	return name, nil
}

// dropDatabase drops name.
func dropDatabase(admin *sql.DB, name string) {
	_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + pq.QuoteIdentifier(name) + ` WITH (FORCE)`)
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
	if _, err := admin.ExecContext(ctx, `SELECT pg_advisory_lock(727273)`); err != nil {
		return "", err
	}
	defer admin.ExecContext(ctx, `SELECT pg_advisory_unlock(727273)`)
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	_, _ = admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+pq.QuoteIdentifier(building)+` WITH (FORCE)`)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+pq.QuoteIdentifier(building)); err != nil {
		return "", err
	}
	db, err := sql.Open("postgres", WithDatabase(base, building))
	if err != nil {
		return "", err
	}
	_, err = migrations.Up(ctx, db)
	db.Close()
	if err != nil {
		return "", err
	}
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE `+pq.QuoteIdentifier(building)+` RENAME TO `+pq.QuoteIdentifier(name)); err != nil {
		return "", err
	}
	return name, nil
}

func migrationsHash() string {
	h := sha256.New()
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
