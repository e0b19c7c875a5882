package server_test

import (
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

// An instance with nothing to do sleeps: its subscribers wait for a commit
// to be notified (LISTEN/NOTIFY) and its workers for a signal, each asking
// the database again only at its safety interval (1 s by default), and its
// pool lets idle connections go. Measured from PostgreSQL's own counters for
// the instance's database, after the start-up has settled.
func TestIdleInstanceIsIdle(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 11 s of idleness")
	}
	// Beside the package's other tests: it counts only its own database's
	// transactions, and mostly it waits.
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) {
		c.MessagePollInterval, c.WorkerPollInterval = time.Second, time.Second
		c.DatabaseConnMaxIdleTime = 2 * time.Second
	}))
	env.NewKey("idle")
	// Start-up settles on timers of its own, with no signal that it has:
	// the pool's closing of idle connections comes too early (measured:
	// some 20 transactions/s at 3 s from the start, when it had closed
	// some, and 7 from 5 s on).
	time.Sleep(5 * time.Second)

	transactions := func() int64 {
		t.Helper()
		// A stats snapshot is cached per transaction; clear it to read now.
		if _, err := env.DB.Exec(`SELECT pg_stat_clear_snapshot()`); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := env.DB.Get(&n, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := transactions()
	const window = 6 * time.Second
	time.Sleep(window) // the rate is measured over this window
	after := transactions()
	// The two reads are transactions of the test's own; statistics reach
	// pg_stat_database within a second of a transaction's end.
	perSecond := float64(after-before-2) / window.Seconds()
	t.Logf("idle: %.1f transactions/s", perSecond)
	// Five modules: some 20 consumer groups and workers, each asking once
	// a second at its safety interval (give or take a quarter), and the
	// dispatch module's leftovers every 15 s; a reader or worker that
	// polled instead of waiting for its signal would ask tens of times a
	// second.
	if perSecond > 30 {
		t.Errorf("an idle instance runs %.1f transactions/s, want at most 30", perSecond)
	}
	if perSecond <= 0 {
		t.Errorf("no transactions counted (%d then %d): the measurement does not see the instance", before, after)
	}
	conns := instanceConnections(t, env)
	t.Logf("idle: %d connections", conns)
	if conns > 8 {
		t.Errorf("an idle instance holds %d connections, want at most 8", conns)
	}
	if conns == 0 {
		t.Error("no connection of the instance found: the count does not see it")
	}
}

// instanceConnections counts every connection to the env's database but
// the test's own: the instance's pool, its presence lock and its listener.
// The test's pool keeps the one connection that asks.
func instanceConnections(t *testing.T, env *apptest.Env) int {
	t.Helper()
	env.DB.SetMaxIdleConns(1)
	var conns int
	if err := env.DB.Get(&conns, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	return conns
}
