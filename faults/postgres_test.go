//go:build faults

package faults

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq" // the suite reads the outbox and lease columns itself

	"shipd/platform/postgres/localcluster"
)

// clusterConfig is the suite's one PostgreSQL cluster; each scenario has a
// database of its own in it, so one scenario's leftovers never count in
// another's figures. Stopping it (the restart scenario) stops every database.
func clusterConfig(database string) localcluster.Config {
	return localcluster.Config{Dir: filepath.Join(workDir, "pg"), Database: database}
}

// newDatabase starts the cluster when it does not run yet and returns the
// DSN of a fresh database for the scenario, and a connection the test uses
// to read what the API does not show (the outbox, leases).
func newDatabase(t *testing.T, name string) (string, *sql.DB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn, err := localcluster.Ensure(ctx, clusterConfig(name))
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return dsn, db
}

// stopPostgres stops the cluster the way an operator does (pg_ctl stop
// -m fast: sessions are cut, a checkpoint is written).
func stopPostgres(t *testing.T) { haltPostgres(t, "stopping", localcluster.Stop) }

// crashPostgres stops the cluster as a crash would (pg_ctl stop -m
// immediate): no checkpoint, unwritten WAL lost.
func crashPostgres(t *testing.T) { haltPostgres(t, "crashing", localcluster.Crash) }

func haltPostgres(t *testing.T, how string, halt func(context.Context, localcluster.Config) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := halt(ctx, clusterConfig("")); err != nil {
		t.Fatalf("%s PostgreSQL: %v", how, err)
	}
}

// startPostgres starts the stopped cluster again, on the same socket, and
// returns when it became ready for connections, by its own log.
func startPostgres(t *testing.T, database string) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := localcluster.Ensure(ctx, clusterConfig(database)); err != nil {
		t.Fatalf("starting PostgreSQL again: %v", err)
	}
	return readySince(t)
}

// readySince reads when the server last said it was ready to accept
// connections (log_line_prefix '%m [%p] ' starts every line with the time
// in milliseconds): the moment shipd could reconnect, exact, whatever the
// delays of pg_ctl and of the test's own connection.
func readySince(t *testing.T) time.Time {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(workDir, "pg", "postgres.log"))
	if err != nil {
		t.Fatal(err)
	}
	var ready time.Time
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.Contains(line, "database system is ready to accept connections") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		if at, err := time.Parse("2006-01-02 15:04:05.000 MST", strings.Join(f[:3], " ")); err == nil {
			ready = at
		}
	}
	if ready.IsZero() {
		t.Fatal("PostgreSQL's log says nowhere that it is ready")
	}
	return ready
}
