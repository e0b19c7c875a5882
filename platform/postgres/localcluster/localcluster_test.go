package localcluster

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tempDir is reachable by the postgres OS user even when tests run as root,
// unlike t.TempDir()'s 0700 parent chain.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "shipd-pg-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "pg")
}

func TestThrowaway(t *testing.T) {
	ctx := testCtx(t)
	tw, err := StartThrowaway(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tw.Close() })
	if !strings.Contains(tw.DSN(), "dbname=shipd") {
		t.Errorf("DSN %q does not name database shipd", tw.DSN())
	}
	db := open(t, tw.DSN())
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id int primary key)"); err != nil {
		t.Fatal(err)
	}
	var fsync string
	if err := db.QueryRowContext(ctx, "SHOW fsync").Scan(&fsync); err != nil || fsync != "off" {
		t.Errorf("fsync = %q, %v; want off", fsync, err)
	}
	db.Close()

	dir := tw.cfg.Dir
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("dir %s still there after Close: %v", dir, err)
	}
	if err := tw.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// A durable throwaway runs with PostgreSQL's crash-safety settings, which
// the default one turns off: benchmarks measure the server users run.
func TestThrowawayDurable(t *testing.T) {
	ctx := testCtx(t)
	tw, err := StartThrowawayWith(ctx, t.Logf, ThrowawayOptions{Durable: true, MaxConnections: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tw.Close() })
	db := open(t, tw.DSN())
	want := map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "max_connections": "100"}
	for name, value := range want {
		var got string
		if err := db.QueryRowContext(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil || got != value {
			t.Errorf("%s = %q, %v; want %q", name, got, err, value)
		}
	}
}

func TestEnsureReuseStopRestart(t *testing.T) {
	ctx := testCtx(t)
	var mu sync.Mutex
	var logs []string
	cfg := Config{Dir: tempDir(t), Logf: func(f string, a ...any) {
		t.Logf(f, a...)
		mu.Lock()
		logs = append(logs, f)
		mu.Unlock()
	}}
	t.Cleanup(func() {
		if err := Stop(context.Background(), cfg); err != nil {
			t.Error(err)
		}
	})
	countLogs := func(prefix string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, l := range logs {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
		return n
	}

	dsn1, err := Ensure(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := open(t, dsn1)
	if _, err := db.ExecContext(ctx, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	var fsync string
	if err := db.QueryRowContext(ctx, "SHOW fsync").Scan(&fsync); err != nil || fsync != "on" {
		t.Errorf("fsync = %q, %v; want on", fsync, err)
	}

	dsn2, err := Ensure(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if dsn2 != dsn1 {
		t.Errorf("second Ensure DSN %q, want %q", dsn2, dsn1)
	}
	if n := countLogs("initialising"); n != 1 {
		t.Errorf("initdb ran %d times, want 1", n)
	}
	if n := countLogs("starting"); n != 1 {
		t.Errorf("started %d times before Stop, want 1", n)
	}
	checkKept(t, ctx, dsn2)
	db.Close()

	if err := Stop(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := Stop(ctx, cfg); err != nil {
		t.Fatalf("Stop of a stopped cluster: %v", err)
	}
	dsn3, err := Ensure(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if dsn3 != dsn1 {
		t.Errorf("DSN after restart %q, want %q", dsn3, dsn1)
	}
	if n := countLogs("starting"); n != 2 {
		t.Errorf("started %d times, want 2", n)
	}
	if n := countLogs("initialising"); n != 1 {
		t.Errorf("initdb ran %d times, want 1", n)
	}
	checkKept(t, ctx, dsn3)
}

func checkKept(t *testing.T, ctx context.Context, dsn string) {
	t.Helper()
	var v string
	if err := open(t, dsn).QueryRowContext(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "x" {
		t.Fatalf("kept row = %q, %v", v, err)
	}
}

func TestEnsureConcurrent(t *testing.T) {
	ctx := testCtx(t)
	cfg := Config{Dir: tempDir(t), Database: "concurrent db", Logf: t.Logf}
	t.Cleanup(func() {
		if err := Stop(context.Background(), cfg); err != nil {
			t.Error(err)
		}
	})
	var wg sync.WaitGroup
	dsns := make([]string, 2)
	errs := make([]error, 2)
	for i := range dsns {
		wg.Go(func() { dsns[i], errs[i] = Ensure(ctx, cfg) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Ensure %d: %v", i, err)
		}
	}
	if dsns[0] != dsns[1] {
		t.Errorf("DSNs differ: %q vs %q", dsns[0], dsns[1])
	}
	var one int
	if err := open(t, dsns[0]).QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}

// A killed postmaster leaves postmaster.pid behind; that must not block the
// next Ensure, and committed data must survive.
func TestEnsureAfterCrash(t *testing.T) {
	ctx := testCtx(t)
	cfg := Config{Dir: tempDir(t), Logf: t.Logf}
	t.Cleanup(func() { Stop(context.Background(), cfg) })
	dsn, err := Ensure(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := open(t, dsn)
	if _, err := db.ExecContext(ctx, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	pid := postmasterPID(cfg.dataDir())
	if pid <= 0 {
		t.Fatal("no postmaster.pid")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	dsn, err = Ensure(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkKept(t, ctx, dsn)
}

func TestStartFailureShowsLog(t *testing.T) {
	ctx := testCtx(t)
	cfg := Config{Dir: tempDir(t), Logf: t.Logf}
	t.Cleanup(func() { Stop(context.Background(), cfg) })
	if _, err := Ensure(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := Stop(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	conf, err := os.OpenFile(filepath.Join(cfg.dataDir(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conf.WriteString("no_such_setting_xyz = 1\n")
	conf.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Ensure(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "no_such_setting_xyz") {
		t.Fatalf("want an error quoting the server log, got %v", err)
	}
	t.Log(err)
}

func TestUnreachableDirFailsClearly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("only root hands the cluster to another OS user; nothing to check")
		return
	}
	parent := t.TempDir()
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Ensure(testCtx(t), Config{Dir: filepath.Join(parent, "pg")})
	if err == nil || !strings.Contains(err.Error(), parent) || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("want an error naming %s and DATABASE_URL, got %v", parent, err)
	}
}

func TestDSNQuoting(t *testing.T) {
	got := buildDSN("/a b/run", 5433, "it's")
	want := `host='/a b/run' port=5433 user=postgres dbname='it\'s' sslmode=disable`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestBinDirError(t *testing.T) {
	_, err := findBinaries(context.Background(), "/nonexistent", "")
	if err == nil || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Fatalf("got %v", err)
	}
}
