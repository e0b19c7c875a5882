package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"

	"shipd/platform/messaging/natstest"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// backbone is what carries the events of the processes under load.
type backbone struct {
	name   string
	flag   string // its name in -backbones
	broker bool   // NATS JetStream (EVENT_BROKER_URL, ADR 0032); else PostgreSQL alone
}

var backbones = []backbone{{name: "PostgreSQL", flag: "postgresql"}, {name: "NATS JetStream", flag: "nats", broker: true}}

// loadDatabase is the database of every load run, made anew for each.
const loadDatabase = "shipd_load"

// instance is one `shipd serve` process and a client of it.
type instance struct {
	*service
	pid int
}

// fleet is the shipd processes of one load run, on a fresh database (and,
// on the broker backbone, a fresh JetStream), with one merchant: its key,
// its sandbox channel and its webhook subscription to shipment.created at
// receiver.
type fleet struct {
	instances []instance
	receiver  *createdReceiver
	closers   []func() // in the order they were made
	// postmaster is the PostgreSQL server's process, for its CPU time; 0
	// when the server runs elsewhere.
	postmaster int
}

// startFleet starts n processes of bin with the default configuration, the
// second and later ones once the first has migrated the database. Each
// takes the merchant's requests with the first one's key and channel.
func startFleet(ctx context.Context, bin, dsn string, bb backbone, n int) (_ *fleet, err error) {
	f := &fleet{}
	defer func() {
		if err != nil {
			f.stop()
		}
	}()
	admin, err := postgres.Open(ctx, dsn, postgres.Pool{})
	if err != nil {
		return nil, err
	}
	f.closers = append(f.closers, func() {
		// The next run starts on an empty server: no autovacuum of this one's tables.
		_, _ = admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+loadDatabase+` WITH (FORCE)`)
		admin.Close()
	})
	if err := recreateDatabase(ctx, admin, loadDatabase); err != nil {
		return nil, err
	}
	if pid, err := postmasterPID(ctx, admin); err == nil {
		f.postmaster = pid
	}
	// Deliveries go to the receiver on loopback, which the default refuses.
	env := []string{"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true"}
	if bb.broker {
		dir, err := os.MkdirTemp("", "shipd-bench-nats-")
		if err != nil {
			return nil, err
		}
		f.closers = append(f.closers, func() { os.RemoveAll(dir) })
		nats, err := natstest.Launch(dir)
		if err != nil {
			return nil, err
		}
		f.closers = append(f.closers, nats.Stop)
		env = append(env, "EVENT_BROKER_URL="+nats.URL)
	}
	for i := range n {
		s, cmd, stop, err := startProcess(ctx, bin, pgtest.WithDatabase(dsn, loadDatabase), env...)
		if err != nil {
			return nil, fmt.Errorf("instance %d: %w", i+1, err)
		}
		f.closers = append(f.closers, func() { stop(); s.db.Close() })
		if i > 0 {
			s.key, s.channel = f.instances[0].key, f.instances[0].channel
		}
		f.instances = append(f.instances, instance{service: s, pid: cmd.Process.Pid})
	}
	if f.receiver, err = startCreatedReceiver(); err != nil {
		return nil, err
	}
	f.closers = append(f.closers, f.receiver.close)
	first := f.instances[0]
	if _, err := first.call(http.MethodPost, "/v1/webhook-subscriptions", fmt.Sprintf(
		`{"name":"bench load","url":%q,"events":["shipment.created"],"secret":"bench-load-webhook-secret-0123456789","active":true}`,
		f.receiver.url)); err != nil {
		return nil, err
	}
	// The load starts on a settled system: the set-up's own events handled.
	if _, err := awaitNoEventLag(ctx, first.service); err != nil {
		return nil, err
	}
	return f, nil
}

// cpu reads the CPU the fleet, its database server and the bench used so far.
func (f *fleet) cpu() cpuReading {
	pids := make([]int, len(f.instances))
	for i, in := range f.instances {
		pids[i] = in.pid
	}
	return readCPU(pids, f.postmaster)
}

// stop ends what startFleet made, the last made first.
func (f *fleet) stop() {
	for _, c := range slices.Backward(f.closers) {
		c()
	}
	f.closers = nil
}
