// Package apptest runs real instances of the service for tests: a fresh
// PostgreSQL database, the composed app listening on loopback, API keys, and
// an HTTP client that speaks its JSON.
package apptest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/server"
)

// InitFunc builds an instance; tests pass shipd.InitializeApp.
type InitFunc func(ctx context.Context, cfg config.Config, clk clock.Clock) (*server.App, func(), error)

// Env is one test's database and the instances running on it. DB holds
// the platform tables (API keys) and, but in the split topology, every
// module's; ModuleDB is a module's.
type Env struct {
	t      testing.TB
	init   InitFunc
	Config config.Config
	Clock  clock.Clock
	DB     *sqlx.DB
	Logs   *SyncBuffer // everything every instance logged
	first  *Instance
	// moduleDBs are the modules' own databases in the split topology.
	moduleDBs map[string]*sqlx.DB
	// processes are the split topology's processes by module.
	processes map[string]*Instance
}

// Instance is one running shipd on the Env's database.
type Instance struct {
	URL  string
	Logs *SyncBuffer // what this instance logged (Env.Logs has every instance's)
	env  *Env
	stop func() error
}

// Stop shuts the instance down gracefully, as SIGTERM does, and returns
// what its Run returned. Calling it again returns the same.
func (i *Instance) Stop() error { return i.stop() }

// Option changes the Env before the first instance starts.
type Option func(*Env)

// WithClock makes every instance use clk.
func WithClock(clk clock.Clock) Option { return func(e *Env) { e.Clock = clk } }

// WithConfig lets a test change the configuration.
func WithConfig(fn func(*config.Config)) Option { return func(e *Env) { fn(&e.Config) } }

// Start makes a fresh database, migrates it and starts one instance.
func Start(t testing.TB, init InitFunc, opts ...Option) *Env {
	t.Helper()
	var dsn string
	var moduleDSNs []string
	if Split() {
		// The platform's database and those of the three modules that keep
		// theirs apart (ADR 0034), made at once.
		dsns := pgtest.NewDatabases(t, 4)
		dsn, moduleDSNs = dsns[0], dsns[1:]
	} else {
		dsn = pgtest.NewDatabase(t)
	}
	logs := &SyncBuffer{}
	e := &Env{t: t, init: init, Clock: clock.Real{}, Logs: logs, Config: config.Config{
		DatabaseURL:      dsn,
		HTTPAddr:         "127.0.0.1:0",
		SecretKey:        "test-secret-key-that-is-long-enough-0123456789",
		LogLevel:         "info",
		DataDir:          t.TempDir(),
		SandboxTimeScale: 1,
		// A commit wakes the subscribers (LISTEN/NOTIFY) and new work the
		// workers; these are the safety polls behind the signals, and what
		// is due at a time (a lease run out, a retry on a moved clock).
		// Polling every 10 ms instead was most of what a test run asked of
		// PostgreSQL (140,000 polls of the subscribers in one make test)
		// and most of its CPU.
		MessagePollInterval:  250 * time.Millisecond,
		WorkerPollInterval:   100 * time.Millisecond,
		ShutdownTimeout:      5 * time.Second,
		BookingConcurrency:   8,
		TrackingConcurrency:  8,
		CarrierTimeout:       30 * time.Second,
		WebhookConcurrency:   8,
		WebhookTimeout:       10 * time.Second,
		WebhookPurgeInterval: time.Hour,
		// Test receivers listen on loopback.
		WebhookAllowPrivateNetworks: true,
		LogWriter:                   logs,
	}}
	for _, o := range opts {
		o(e)
	}
	if err := e.Config.Validate(); err != nil {
		t.Fatalf("test config: %v", err)
	}
	db, err := postgres.Open(context.Background(), dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.DB = db
	if Split() {
		e.first = e.startSplit(moduleDSNs[0], moduleDSNs[1], moduleDSNs[2])
	} else {
		e.first = e.StartInstance()
	}
	return e
}

// URL is the first instance's base address.
func (e *Env) URL() string { return e.first.URL }

// First is the instance Start started.
func (e *Env) First() *Instance { return e.first }

// Process is the instance that runs module: in the split topology that
// module's process, otherwise the first instance, which runs them all.
func (e *Env) Process(module string) *Instance {
	if in, ok := e.processes[module]; ok {
		return in
	}
	return e.first
}

// StartInstance starts another shipd on the same database, stopped when the
// test ends.
func (e *Env) StartInstance() *Instance {
	e.t.Helper()
	return e.startInstanceWith(e.Config)
}

// startInstanceWith starts a shipd of the given configuration.
func (e *Env) startInstanceWith(cfg config.Config) *Instance {
	e.t.Helper()
	own := &SyncBuffer{}
	cfg.LogWriter = io.MultiWriter(cfg.LogWriter, own)
	ctx, cancel := context.WithCancel(context.Background())
	app, cleanup, err := e.init(ctx, cfg, e.Clock)
	if err != nil {
		cancel()
		e.t.Fatalf("building app: %v", err)
	}
	if err := app.Migrate(ctx); err != nil {
		cancel()
		cleanup()
		e.t.Fatalf("migrating: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		cleanup()
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- app.Run(ctx, ln) }()
	select {
	case <-app.Running():
	case err := <-done:
		cancel()
		cleanup()
		e.t.Fatalf("app stopped at start: %v", err)
	case <-time.After(30 * time.Second):
		e.t.Fatal("app did not start within 30s")
	}
	var (
		once    sync.Once
		stopErr error
	)
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
				if errors.Is(stopErr, context.Canceled) {
					stopErr = nil
				}
			case <-time.After(20 * time.Second):
				stopErr = errors.New("app did not stop within 20s")
			}
			cleanup()
		})
		return stopErr
	}
	e.t.Cleanup(func() {
		if err := stop(); err != nil {
			e.t.Errorf("app stopped with error: %v", err)
		}
	})
	return &Instance{URL: "http://" + ln.Addr().String(), Logs: own, env: e, stop: stop}
}

// NewKey creates an API key for account (created when new) with perms (all
// when none) and returns it.
func (e *Env) NewKey(account string, perms ...auth.Permission) string {
	e.t.Helper()
	_, key, err := auth.NewStore(e.DB, clock.Real{}).CreateKey(context.Background(), auth.NewKeyRequest{
		AccountName: account, Permissions: perms, Plan: auth.PlanEnterprise, RateLimit: ptr(100000),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return key
}

// NewKeyWithLimit creates a key of an account limited to perMinute requests.
func (e *Env) NewKeyWithLimit(account string, perMinute int) string {
	e.t.Helper()
	_, key, err := auth.NewStore(e.DB, clock.Real{}).CreateKey(context.Background(), auth.NewKeyRequest{
		AccountName: account, Plan: auth.PlanStandard, RateLimit: ptr(perMinute),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return key
}

func ptr[T any](v T) *T { return &v }

// SyncBuffer is a bytes.Buffer safe for concurrent writers.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Stop shuts the first instance down gracefully (see Instance.Stop).
func (e *Env) Stop() error { return e.first.Stop() }

// NextSecond moves the instances' clock into its next second (a manual
// clock is advanced, the real one awaited). Lists sort records of one second
// by id, which is random (ADR 0011): a test that needs one record older
// than the next makes them a second apart.
func (e *Env) NextSecond() {
	e.t.Helper()
	if m, ok := e.Clock.(*clock.Manual); ok {
		m.Advance(time.Second)
		return
	}
	was := e.Clock.Now().Truncate(time.Second)
	Eventually(e.t, 3*time.Second, "the clock's next second", func() bool { return e.Clock.Now().Truncate(time.Second).After(was) })
}
