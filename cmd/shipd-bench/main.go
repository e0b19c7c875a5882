// Command shipd-bench measures the service on this machine and writes a
// markdown report: `make bench`. It starts a PostgreSQL cluster of its own
// with PostgreSQL's default, durable settings (or uses DATABASE_URL), runs
// one shipd instance in-process on loopback and drives it over real HTTP.
// The report states the machine and the server's settings as read from it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"shipd/platform/postgres"
	"shipd/platform/postgres/localcluster"
)

func main() {
	out := flag.String("out", "architecture/benchmarks.md", "where to write the markdown report")
	rows := flag.Int("shipments", 1_000_000, "shipments seeded into the list read model")
	samples := flag.Int("samples", 300, "requests per list measurement")
	duration := flag.Duration("post-duration", 10*time.Second, "how long each write-throughput run lasts")
	parcels := flag.Int("tracking-parcels", 100_000, "due tracking parcels checked against the sandbox")
	deliveries := flag.Int("webhook-deliveries", 50_000, "webhook deliveries sent by shipd and by the bare-client baseline")
	flag.IntVar(&deliveryConcurrency, "webhook-concurrency", deliveryConcurrency, "WEBHOOK_CONCURRENCY of the delivering instance")
	flag.IntVar(&checkConcurrency, "tracking-concurrency", checkConcurrency, "TRACKING_CONCURRENCY of the checking instance")
	flag.BoolVar(&nonDurable, "non-durable", true, "also measure the writes with fsync, synchronous_commit and full_page_writes off (only on the bench's own cluster)")
	flag.IntVar(&lagRate, "lag-rate", lagRate, "writes/s offered while the shipd process's read-model lag is sampled")
	flag.DurationVar(&lagDuration, "lag-duration", lagDuration, "how long those writes are offered")
	flag.IntVar(&bookings, "bookings", bookings, "shipments created and then booked by the booking part")
	flag.DurationVar(&renderDuration, "render-duration", renderDuration, "how long each label-renderer measurement runs")
	flag.IntVar(&manifestRuns, "manifest-runs", manifestRuns, "timed manifests of each form in the manifest part")
	flag.IntVar(&manifestShipments, "manifest-shipments", manifestShipments, "shipments on each manifest of the manifest part")
	flag.StringVar(&only, "only", "", "comma-separated parts to run (process, broker, sweep, instances, soak, list, writes, tracking, webhooks, render, booking, manifest); empty runs all but soak")
	registerLoadFlags()
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "shipd-bench:", err)
			os.Exit(1)
		}
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *out, *rows, *samples, *duration, *parcels, *deliveries); err != nil {
		fmt.Fprintln(os.Stderr, "shipd-bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// only limits the run to some parts (-only).
var only string

// nonDurable adds the writes measured on a server that does not flush its
// commits, labelled as such (-non-durable).
var nonDurable bool

func run(ctx context.Context, out string, rows, samples int, duration time.Duration, parcels, deliveries int) error {
	dsn := os.Getenv("DATABASE_URL")
	owned := dsn == ""
	if owned {
		// PostgreSQL's own settings, as a user runs it: every commit is
		// flushed to disk before it is answered.
		cluster, err := localcluster.StartThrowawayWith(ctx, logf, localcluster.ThrowawayOptions{Durable: true, MaxConnections: 100})
		if err != nil {
			return err
		}
		defer cluster.Close()
		dsn = cluster.DSN()
	}
	loadBefore := loadAverage()
	var body strings.Builder
	// The soak takes 20 minutes: only when asked for by name (make soak).
	wants := func(part string) bool {
		return only == "" && part != "soak" || slices.Contains(strings.Split(only, ","), part)
	}
	settings, err := settingsOf(ctx, dsn)
	if err != nil {
		return err
	}
	// The process first, alone: the measured instance is the only one on
	// the database (no subscriber of another instance shares its consumer
	// groups), and the database has none of the other parts' backlog (the
	// writes bench leaves its shipments awaiting booking).
	if wants("process") {
		logf("process: starting, the only instance on the database")
		if err := benchProcess(ctx, dsn, duration, &body); err != nil {
			return fmt.Errorf("process: %w", err)
		}
	}
	if wants("broker") {
		logf("broker: starting, on a database of its own")
		if err := benchBroker(ctx, dsn, &body); err != nil {
			return fmt.Errorf("broker: %w", err)
		}
	}
	if err := benchLoads(ctx, dsn, wants, &body); err != nil {
		return err
	}
	if err := benchInProcess(ctx, dsn, owned, wants, rows, samples, duration, parcels, deliveries, &body); err != nil {
		return err
	}

	var report strings.Builder
	by := "make bench"
	if only == "soak" {
		by = "make soak"
	}
	fmt.Fprintf(&report, "# Benchmarks\n\nWritten by `%s` on %s: %s.\n", by, time.Now().UTC().Format("2006-01-02"), machine())
	fmt.Fprintf(&report, "shipd and PostgreSQL run on the same machine, which other work shares (load average %s at the start, %s at the end);\n", loadBefore, loadAverage())
	fmt.Fprintf(&report, "requests go over real HTTP on loopback, one at a time for latencies.\n\n")
	if owned {
		fmt.Fprintf(&report, "PostgreSQL: a cluster of its own started by the bench with PostgreSQL's default settings (durable: each\n"+
			"commit is flushed to disk before it is answered), its files on %s. ", storage(os.TempDir()))
	} else {
		fmt.Fprintf(&report, "PostgreSQL: the server at `DATABASE_URL`. ")
	}
	fmt.Fprintf(&report, "As read from the server: %s.\n\n", settings)
	report.WriteString(body.String())
	if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(report.String())
	logf("report written to %s", out)
	return nil
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "shipd-bench: "+format+"\n", args...) }

// benchInProcess runs the parts measured on a shipd instance in this
// process (list, writes, tracking, webhooks, render, booking, manifest),
// when any is asked for.
func benchInProcess(ctx context.Context, dsn string, owned bool, wants func(string) bool, rows, samples int, duration time.Duration,
	parcels, deliveries int, body *strings.Builder) error {
	if !slices.ContainsFunc([]string{"list", "writes", "tracking", "webhooks", "render", "booking", "manifest"}, wants) {
		return nil
	}
	env, err := startService(ctx, dsn, nil)
	if err != nil {
		return err
	}
	defer env.stop()

	parts := []struct {
		name string
		run  func() error
	}{
		{"list", func() error { return benchShipmentList(ctx, env, rows, samples, body) }},
		{"writes", func() error { return benchShipmentWrites(ctx, env, duration, owned && nonDurable, body) }},
		{"tracking", func() error { return benchTrackingChecks(ctx, env, dsn, parcels, body) }},
		{"webhooks", func() error { return benchWebhooks(ctx, env, dsn, deliveries, samples, body) }},
		{"render", func() error { return benchRender(body) }},
		{"booking", func() error { return benchBooking(ctx, env, dsn, bookings, body) }},
		{"manifest", func() error { return benchManifest(ctx, env, dsn, body) }},
	}
	for _, p := range parts {
		if !wants(p.name) {
			continue
		}
		// Each part starts once the events of the ones before it are
		// handled: a backlog left over would be measured as this part's.
		settled, err := awaitNoEventLagWithin(ctx, env, 30*time.Minute)
		if err != nil {
			return fmt.Errorf("before %s: %w", p.name, err)
		}
		quiet, err := awaitQuietDatabase(ctx, env, 3*time.Minute)
		if err != nil {
			return fmt.Errorf("before %s: %w", p.name, err)
		}
		logf("%s: starting (waited %s for the events before it to be handled, then %s for autovacuum to finish)",
			p.name, settled.Round(time.Millisecond), quiet.Round(time.Millisecond))
		if err := p.run(); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return nil
}

// settingsOf reads the server's settings on a connection of its own.
func settingsOf(ctx context.Context, dsn string) (string, error) {
	db, err := postgres.Open(ctx, dsn, postgres.Pool{})
	if err != nil {
		return "", err
	}
	defer db.Close()
	return serverSettings(ctx, db)
}
