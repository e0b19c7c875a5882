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
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/migrations"
	"shipd/platform/postgres"
)

// NewDatabase creates a database for t from a migrated template, and drops
// it when t ends (in the background under Main). It returns the database's
// connection string.
func NewDatabase(t testing.TB) string {
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
	var name string
	if background.Load() {
		name = ahead.take(t, base, tmpl)
	}
	if name == "" {
		if name, err = create(ctx, admin, tmpl); err != nil {
			t.Fatalf("creating test database: %v", err)
		}
	}
	t.Cleanup(func() {
		if background.Load() {
			drops.Go(func() { dropDatabase(base, name) })
		} else {
			dropDatabase(base, name)
		}
	})
	return WithDatabase(base, name)
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
		return "", err
	}
	return name, nil
}

// made is the databases made ahead under Main: a test takes one made while
// earlier tests ran, which starts the making of the next. As many are kept
// ready as one test has taken so far (three for the split topology).
type made struct {
	mu     sync.Mutex
	ready  []string
	making int
	want   int
	taken  map[string]int // by test name
	makers sync.WaitGroup
	base   string
}

var ahead = &made{taken: map[string]int{}}

// take returns a ready database for t, or "" when none is, and has the
// next ones made.
func (m *made) take(t testing.TB, base, tmpl string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.base = base
	m.taken[t.Name()]++
	m.want = max(m.want, m.taken[t.Name()])
	var name string
	if n := len(m.ready); n > 0 {
		name, m.ready = m.ready[n-1], m.ready[:n-1]
	}
	m.fill(tmpl)
	return name
}

// fill starts making databases until want are ready or being made; m.mu is
// held.
func (m *made) fill(tmpl string) {
	for ; len(m.ready)+m.making < m.want; m.making++ {
		m.makers.Go(func() {
			name, err := func() (string, error) {
				admin, err := sql.Open("postgres", m.base)
				if err != nil {
					return "", err
				}
				defer admin.Close()
				return create(context.Background(), admin, tmpl)
			}()
			m.mu.Lock()
			defer m.mu.Unlock()
			m.making--
			if err != nil {
				fmt.Fprintf(os.Stderr, "pgtest: making a database ahead: %v\n", err)
				return
			}
			m.ready = append(m.ready, name)
		})
	}
}

// drain drops the databases made ahead that no test took, once none is
// being made.
func (m *made) drain() {
	m.makers.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range m.ready {
		drops.Go(func() { dropDatabase(m.base, name) })
	}
	m.ready = nil
}

var (
	// background says Main runs the package's tests: drops go on while
	// later tests run, and Main waits for them.
	background atomic.Bool
	drops      sync.WaitGroup
	dropping   = make(chan struct{}, 2)
)

// Main runs a package's tests, from its TestMain, and returns their exit
// code once every database they made is dropped. Copying the template and
// dropping a copy take most of a second each on a server that syncs to
// disk; under Main both happen while other tests run: databases are made
// ahead (see made) and dropped in the background.
func Main(m *testing.M) int {
	background.Store(true)
	code := m.Run()
	ahead.drain()
	drops.Wait()
	return code
}

// dropDatabase drops name, at most two at a time: the server removes their
// files one by one anyway.
func dropDatabase(base, name string) {
	dropping <- struct{}{}
	defer func() { <-dropping }()
	db, err := sql.Open("postgres", base)
	if err != nil {
		return
	}
	defer db.Close()
	if _, err := db.Exec(`DROP DATABASE IF EXISTS ` + pq.QuoteIdentifier(name) + ` WITH (FORCE)`); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: dropping %s: %v\n", name, err)
	}
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
	// No test waits for its commits to reach the disk, as on the throwaway
	// cluster of `make test` (fsync and synchronous_commit off): on a
	// server that syncs, each commit's flush would cost time and prove
	// nothing a test checks.
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
