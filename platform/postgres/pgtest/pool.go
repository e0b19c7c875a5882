package pgtest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"
)

// The template's pool: databases named shipd_pool_<hash>_<slot>, copied
// from the template once and emptied for each test that takes one. A test
// holds its database by a session advisory lock on the name, so the pool
// is shared by every test process on the server (go test runs a process
// per package) and a process that dies lets its databases go. They are
// emptied when taken, not when given back, so that one left behind by a
// killed process is emptied too. They stay on the server between runs, as
// the template does; a new template (migrations changed) starts a new pool.
type pooled struct {
	name string
	lock *sql.Conn // holds the advisory lock on name while a test has it
}

// take gives a database of tmpl's pool no one else has, empty as the
// template.
func take(ctx context.Context, admin *sql.DB, base, tmpl string) (*pooled, error) {
	prefix := strings.Replace(tmpl, "shipd_tmpl_", "shipd_pool_", 1) + "_"
	for slot := 0; ; slot++ {
		name := prefix + strconv.Itoa(slot)
		lock, err := admin.Conn(ctx)
		if err != nil {
			return nil, err
		}
		var got bool
		if err := lock.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, name).Scan(&got); err != nil || !got {
			_ = lock.Close()
			if err != nil {
				return nil, err
			}
			continue
		}
		p := &pooled{name: name, lock: lock}
		if err := p.prepare(ctx, admin, base, tmpl); err != nil {
			p.giveBack()
			return nil, fmt.Errorf("database %s: %w", name, err)
		}
		return p, nil
	}
}

// prepare makes the database: copied from the template when it does not
// exist, or when a test left it with another schema than the template's
// (a table it made, renamed or changed); else emptied.
func (p *pooled) prepare(ctx context.Context, admin *sql.DB, base, tmpl string) error {
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, p.name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		emptied, err := p.empty(ctx, admin, base, tmpl)
		if err != nil || emptied {
			return err
		}
		if _, err := admin.ExecContext(ctx, `DROP DATABASE `+pq.QuoteIdentifier(p.name)+` WITH (FORCE)`); err != nil {
			return err
		}
	}
	// Tests may copy the template at the same time: CREATE DATABASE only
	// refuses a template that sessions are connected to.
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+pq.QuoteIdentifier(p.name)+` TEMPLATE `+pq.QuoteIdentifier(tmpl)); err != nil {
		return err
	}
	// No test waits for its commits to reach the disk, as on the throwaway
	// cluster of `make test` (fsync and synchronous_commit off): on a
	// server that syncs, each commit's flush would cost time and prove
	// nothing a test checks.
	_, err := admin.ExecContext(ctx, `ALTER DATABASE `+pq.QuoteIdentifier(p.name)+` SET synchronous_commit = off`)
	return err
}

// empty ends the sessions a previous test left on the database and, when
// its schema is still the template's, truncates every table but goose's
// record of the migrations applied, its sequences starting again. It
// reports false, having changed nothing, when the schema is not the
// template's.
func (p *pooled) empty(ctx context.Context, admin *sql.DB, base, tmpl string) (bool, error) {
	want, err := templateFingerprint(ctx, admin, tmpl)
	if err != nil || want == "" {
		return false, err
	}
	if err := endSessions(ctx, admin, p.name); err != nil {
		return false, err
	}
	db, err := sql.Open("postgres", WithDatabase(base, p.name))
	if err != nil {
		return false, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var got string
	if err := tx.QueryRowContext(ctx, fingerprintQuery).Scan(&got); err != nil || got != want {
		return false, err
	}
	var tables, sequences []string
	if err := collect(ctx, tx, &tables, `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND tablename <> 'platform_goose_db_version'`); err != nil {
		return false, err
	}
	if err := collect(ctx, tx, &sequences, `SELECT format('%I.%I', schemaname, sequencename) FROM pg_sequences
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND sequencename <> 'platform_goose_db_version_id_seq'`); err != nil {
		return false, err
	}
	if len(tables) > 0 {
		if _, err := tx.ExecContext(ctx, `TRUNCATE `+strings.Join(tables, ", ")+` RESTART IDENTITY`); err != nil {
			return false, err
		}
	}
	for _, s := range sequences { // the ones no table owns
		if _, err := tx.ExecContext(ctx, `ALTER SEQUENCE `+s+` RESTART`); err != nil {
			return false, err
		}
	}
	return true, tx.Commit()
}

// giveBack lets the next test take the database.
func (p *pooled) giveBack() {
	_, err := p.lock.ExecContext(context.Background(), `SELECT pg_advisory_unlock(hashtext($1))`, p.name)
	if err != nil {
		// The session may still hold the lock: it must not go back to the
		// pool, or the database would stay taken.
		_ = p.lock.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = p.lock.Close()
}

// endSessions ends every session on the database name and waits until
// they are gone (a test's instances are stopped by then; what is left is a
// connection a pool had not closed yet, or a killed process's).
func endSessions(ctx context.Context, admin *sql.DB, name string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left int
		if err := admin.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = $1 AND pid <> pg_backend_pid()`, name).Scan(&left); err != nil {
			return err
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("sessions on it did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fingerprintQuery sums up a database's schema: its schemas, relations
// with their columns, functions and triggers, and the migrations goose
// has recorded (a test may take one back, to see the service refuse a
// schema behind its code). The stream tables the service
// makes when it starts (watermill_*, CREATE TABLE IF NOT EXISTS) are left
// out: emptied, they are as the service would make them.
const fingerprintQuery = `SELECT md5(coalesce(string_agg(x, E'\n' ORDER BY x), '')) FROM (
	SELECT 'schema ' || nspname AS x FROM pg_namespace
	WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\_%'
	UNION ALL
	SELECT format('%s %s.%s %s', c.relkind, n.nspname, c.relname, (
		SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
		FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
		AND c.relname NOT LIKE 'watermill\_%'
	UNION ALL
	SELECT 'function ' || n.nspname || '.' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
	UNION ALL
	SELECT 'trigger ' || tgrelid::regclass || '.' || tgname FROM pg_trigger WHERE NOT tgisinternal
	UNION ALL
	SELECT format('migration %s %s', version_id, is_applied) FROM public.platform_goose_db_version
) f`

// templateFingerprint is the fingerprint makeTemplate kept in the
// template's comment ("" for a template made before there was one: its
// pool is then copied afresh for every test).
func templateFingerprint(ctx context.Context, admin *sql.DB, tmpl string) (string, error) {
	fingerprintsMu.Lock()
	defer fingerprintsMu.Unlock()
	if fp, ok := fingerprints[tmpl]; ok {
		return fp, nil
	}
	var fp sql.NullString
	if err := admin.QueryRowContext(ctx, `SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1`, tmpl).Scan(&fp); err != nil {
		return "", err
	}
	fingerprints[tmpl] = strings.TrimPrefix(fp.String, fingerprintComment)
	return fingerprints[tmpl], nil
}

// fingerprintComment starts the template's comment, before its fingerprint.
const fingerprintComment = "pgtest schema fingerprint "

var (
	fingerprintsMu sync.Mutex
	fingerprints   = map[string]string{}
)

// collect appends to dst the one text column query returns.
func collect(ctx context.Context, tx *sql.Tx, dst *[]string, query string) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		*dst = append(*dst, s)
	}
	return rows.Err()
}

// adminDB is the connection pool to the server's own database, shared by
// the tests of a process (it holds their databases' locks).
func adminDB(base string) (*sql.DB, error) {
	adminsMu.Lock()
	defer adminsMu.Unlock()
	if db, ok := admins[base]; ok {
		return db, nil
	}
	db, err := sql.Open("postgres", base)
	if err != nil {
		return nil, err
	}
	admins[base] = db
	return db, nil
}

var (
	adminsMu sync.Mutex
	admins   = map[string]*sql.DB{}
)
