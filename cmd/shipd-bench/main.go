// Command shipd-bench measures the service on this machine and writes a
// markdown report: `make bench`. It starts a throwaway PostgreSQL (or uses
// DATABASE_URL), runs one shipd instance in-process on loopback and drives
// it over real HTTP.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

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
	flag.StringVar(&only, "only", "", "comma-separated parts to run (list, writes, tracking, webhooks, process); empty runs all")
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

func run(ctx context.Context, out string, rows, samples int, duration time.Duration, parcels, deliveries int) error {
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		cluster, err := localcluster.StartThrowaway(ctx, logf)
		if err != nil {
			return err
		}
		defer cluster.Close()
		dsn = cluster.DSN()
	}
	env, err := startService(ctx, dsn, nil)
	if err != nil {
		return err
	}
	defer env.stop()

	var report strings.Builder
	fmt.Fprintf(&report, "# Benchmarks\n\nWritten by `make bench` on %s: %d cores, %s, Go %s. shipd and PostgreSQL run on the same machine;\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), memTotal(), runtime.Version())
	fmt.Fprintf(&report, "requests go over real HTTP on loopback, one at a time for latencies.\n\n")

	parts := []struct {
		name string
		run  func() error
	}{
		// The process first, on a database without the others' backlog
		// (the writes bench leaves its shipments awaiting booking).
		{"process", func() error { return benchProcess(ctx, dsn, duration, &report) }},
		{"list", func() error { return benchShipmentList(ctx, env, rows, samples, &report) }},
		{"writes", func() error { return benchShipmentWrites(ctx, env, duration, &report) }},
		{"tracking", func() error { return benchTrackingChecks(ctx, env, dsn, parcels, &report) }},
		{"webhooks", func() error { return benchWebhooks(ctx, env, dsn, deliveries, samples, &report) }},
	}
	for _, p := range parts {
		if only != "" && !slices.Contains(strings.Split(only, ","), p.name) {
			continue
		}
		if err := p.run(); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(report.String())
	logf("report written to %s", out)
	return nil
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "shipd-bench: "+format+"\n", args...) }

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown memory"
	}
	var kb int64
	fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
	return fmt.Sprintf("%.0f GiB", float64(kb)/1024/1024)
}
