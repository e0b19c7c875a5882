package apptest

import (
	"context"
	"errors"
	"fmt"
	mathrand "math/rand/v2"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/config"
	"shipd/platform/messaging/natstest"
	"shipd/platform/postgres"
)

// Split reports whether the tests run against the split topology
// (SHIPD_TOPOLOGY=split, `make test-split`): each module its own process,
// NATS JetStream as the backbone, nginx in front (ADR 0033). Otherwise an
// Env is one shipd running every module on PostgreSQL alone.
func Split() bool { return os.Getenv("SHIPD_TOPOLOGY") == "split" }

// SkipInSplit skips a test that cannot hold in the split topology, saying
// why.
func SkipInSplit(t testing.TB, why string) {
	t.Helper()
	if Split() {
		t.Skip("not in the split topology: " + why)
	}
}

// moduleDatabase connects to dsn, module's database of its own, kept in
// e.moduleDBs, and returns dsn.
func (e *Env) moduleDatabase(module, dsn string) string {
	e.t.Helper()
	db, err := postgres.Open(context.Background(), dsn, postgres.Pool{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	if e.moduleDBs == nil {
		e.moduleDBs = map[string]*sqlx.DB{}
	}
	e.moduleDBs[module] = db
	return dsn
}

// ModuleDB is the database module keeps its tables in: DB, unless the
// split topology gave it one of its own.
func (e *Env) ModuleDB(module string) *sqlx.DB {
	if db, ok := e.moduleDBs[module]; ok {
		return db
	}
	return e.DB
}

// WantNoRows stops t unless table ("<module>.<table>", read in that
// module's database) holds no rows: what refused writes must leave. rows
// names them for the failure ("shipments from bad input").
func (e *Env) WantNoRows(t testing.TB, table, rows string) {
	t.Helper()
	module, _, _ := strings.Cut(table, ".")
	var n int
	if err := e.ModuleDB(module).Get(&n, `SELECT count(*) FROM `+table); err != nil || n != 0 {
		t.Fatalf("stored %d %s (%v)", n, rows, err)
	}
}

// startSplit starts a nats-server with JetStream, a process per module
// reading its streams from there, the shipments and tracking processes
// asking the channels process for channels, shipments, tracking and
// dispatch on databases of their own, and nginx routing
// deploy/nginx/shipd.conf to them. The returned Instance is the proxy; its
// Stop stops every process.
func (e *Env) startSplit(shipmentsDSN, trackingDSN, dispatchDSN string) *Instance {
	e.t.Helper()
	nats := natstest.Start(e.t)
	e.Config.EventBrokerURL = nats.URL
	// Three modules keep their data in databases of their own (ADR 0034);
	// channels and webhooks share the platform's.
	e.Config.ShipmentsDatabaseURL = e.moduleDatabase("shipments", shipmentsDSN)
	e.Config.TrackingDatabaseURL = e.moduleDatabase("tracking", trackingDSN)
	e.Config.DispatchDatabaseURL = e.moduleDatabase("dispatch", dispatchDSN)
	e.Config.InternalToken = "apptest-internal-token-0123456789abcdef"
	// The processes write links under the proxy's address (PUBLIC_BASE_URL;
	// they never take the Host header, ADR 0045), so it is chosen first.
	proxyAddr, release := reserveProxyAddr(e.t)
	if e.Config.PublicBaseURL == "" {
		e.Config.PublicBaseURL = "http://" + proxyAddr
	}
	processes := map[string]*Instance{}
	start := func(module string) {
		cfg := e.Config
		cfg.Modules = []string{module}
		processes[module] = e.startInstanceWith(cfg)
	}
	start("channels") // the others ask it for channels
	e.Config.ChannelsURL = processes["channels"].URL
	for _, m := range config.ModuleNames[1:] {
		start(m)
	}
	upstreams := map[string][]string{}
	for m, in := range processes {
		u, err := url.Parse(in.URL)
		if err != nil {
			e.t.Fatal(err)
		}
		upstreams[m] = []string{u.Host}
	}
	release() // the moment before nginx binds it
	proxy := StartProxyAt(e.t, upstreams, proxyAddr)
	e.processes = processes
	return &Instance{URL: proxy, Logs: e.Logs, env: e, stop: func() error {
		var errs []error
		for _, in := range processes {
			errs = append(errs, in.Stop())
		}
		return errors.Join(errs...)
	}}
}

// reserveProxyAddr picks the proxy's address before the processes behind it
// start, and holds it until release, the moment before nginx binds it. The
// port comes from below Linux's ephemeral range (32768 on), which the other
// tests' ":0" listeners draw from, so none of them takes it in that moment.
func reserveProxyAddr(t testing.TB) (addr string, release func()) {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 20000+mathrand.IntN(12000)))
		if err != nil {
			continue // taken: another try
		}
		return ln.Addr().String(), func() { _ = ln.Close() } // the port is what matters; the close cannot lose anything
	}
	t.Fatal("no free port for the proxy in 100 tries")
	return "", nil
}
