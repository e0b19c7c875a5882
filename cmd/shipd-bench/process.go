package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/postgres"
)

// benchProcess runs the real `shipd serve` binary as its own process, so its
// memory is its own: idle after start, then under a write load (bookings
// with the sandbox carrier and label rendering included) with list reads,
// while the read-model lag of the writes is sampled.
func benchProcess(ctx context.Context, dsn string, d time.Duration, report *strings.Builder) error {
	dir, err := os.MkdirTemp("", "shipd-bench-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "shipd")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/shipd").CombinedOutput(); err != nil {
		return fmt.Errorf("building shipd: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dsn, "HTTP_ADDR="+addr, "SECRET_KEY="+benchSecretKey, "LOG_LEVEL=error")
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()

	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	limit := 1_000_000_000
	_, key, err := auth.NewStore(db, clock.Real{}).CreateKey(ctx, auth.NewKeyRequest{
		AccountName: "bench-process", Plan: auth.PlanEnterprise, RateLimit: &limit})
	if err != nil {
		return err
	}
	s := &service{url: "http://" + addr, db: db, key: key, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}}
	if err := awaitHealthy(ctx, s.url+"/healthz"); err != nil {
		return err
	}
	ch, err := s.call(http.MethodPost, "/v1/shipping-channels", `{"name":"bench process","provider":"sandbox","settings":{"clientId":"a","clientSecret":"b"}}`)
	if err != nil {
		return err
	}
	s.channel = ch["data"].(map[string]any)["id"].(string)
	if _, err := s.call(http.MethodPost, "/v1/shipping-channels/"+s.channel+"/validate", ""); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	time.Sleep(10 * time.Second) // let start-up garbage be collected
	idle, err := rssMiB(pid)
	if err != nil {
		return err
	}
	logf("shipd idle: %.1f MiB RSS", idle)

	var peak atomic.Int64 // KiB
	stopSampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				if kib, err := rssKiB(pid); err == nil && kib > peak.Load() {
					peak.Store(kib)
				}
			}
		}
	})
	var seq atomic.Int64
	seq.Store(1 << 40) // references of their own, apart from the in-process run's
	var lags []time.Duration
	var lagErr error
	var lagger sync.WaitGroup
	lagger.Go(func() { lags, lagErr = sampleShipmentListLag(s, d, &seq) })
	writes, err := throughput(d, func() error {
		status, body, err := s.do(http.MethodPost, "/v1/shipments", shipmentJSON(s.channel, seq.Add(1)))
		if err == nil && status != http.StatusCreated {
			err = fmt.Errorf("POST /v1/shipments: %d %s", status, body)
		}
		return err
	})
	lagger.Wait()
	close(stopSampling)
	sampler.Wait()
	if err != nil {
		return err
	}
	if lagErr != nil {
		return lagErr
	}
	end, err := rssMiB(pid)
	if err != nil {
		return err
	}
	slices.Sort(lags)
	loaded := float64(peak.Load()) / 1024
	logf("shipd under load: %.0f writes/s, peak %.1f MiB RSS, lag p50 %s", writes, loaded, pct(lags, 50))

	fmt.Fprintf(report, "## The `shipd serve` process: memory and read-model lag\n\n")
	fmt.Fprintf(report, "The real binary, started by the bench as its own process with the default configuration (booking, tracking and\n"+
		"webhook workers on, `BOOKING_CONCURRENCY=8`), on the same database. Idle: 10 s after start. Under load: %d writers\n"+
		"`POST /v1/shipments` for %s, each shipment then booked with the sandbox carrier (label rendered), while one client\n"+
		"writes a shipment every 100 ms and polls `GET /v1/shipments?search=<its reference>` until the list shows it.\n\n", writers, d)
	fmt.Fprintf(report, "| figure | value |\n|---|---|\n")
	fmt.Fprintf(report, "| RSS idle | %.1f MiB |\n", idle)
	fmt.Fprintf(report, "| RSS under load: peak (sampled every 100 ms) / after the load | %.1f MiB / %.1f MiB |\n", loaded, end)
	fmt.Fprintf(report, "| `POST /v1/shipments` with bookings running | %.0f requests/s |\n", writes)
	fmt.Fprintf(report, "| read-model lag: 201 to the list showing it (%d samples) | p50 %s, p99 %s, max %s |\n\n",
		len(lags), ms(pct(lags, 50)), ms(pct(lags, 99)), ms(pct(lags, 100)))
	return nil
}

// sampleShipmentListLag writes a shipment every 100 ms for d and measures how long
// after its 201 the list read model shows it.
func sampleShipmentListLag(s *service, d time.Duration, seq *atomic.Int64) ([]time.Duration, error) {
	var lags []time.Duration
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		n := seq.Add(1)
		status, body, err := s.do(http.MethodPost, "/v1/shipments", shipmentJSON(s.channel, n))
		if err != nil || status != http.StatusCreated {
			return nil, fmt.Errorf("POST /v1/shipments: %d %s %v", status, body, err)
		}
		acked := time.Now()
		for {
			m, err := s.call(http.MethodGet, "/v1/shipments?search=BENCH-"+strconv.FormatInt(n, 10), "")
			if err != nil {
				return nil, err
			}
			if m["meta"].(map[string]any)["total"].(float64) >= 1 {
				break
			}
			if time.Since(acked) > 30*time.Second {
				return nil, fmt.Errorf("shipment BENCH-%d not listed after 30 s", n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		lags = append(lags, time.Since(acked))
		time.Sleep(100 * time.Millisecond)
	}
	return lags, nil
}

func awaitHealthy(ctx context.Context, url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer within 60 s", url)
}

// rssKiB reads a process's resident set size from /proc.
func rssKiB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS for process %d", pid)
}

func rssMiB(pid int) (float64, error) {
	kib, err := rssKiB(pid)
	return float64(kib) / 1024, err
}
