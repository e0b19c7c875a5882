//go:build faults

package faults

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd/platform/postgres/localcluster"
)

// Three instances at the default pool settings on a PostgreSQL of the
// default max_connections (100, 3 of them kept for superusers), under writes
// and list reads spread over all three: PostgreSQL refuses no connection, no
// answer is a 5xx, each instance stays within its pool, and once the load
// stops each falls back to the few connections its pollers use.
func TestThreeInstancesFitDefaultPostgres(t *testing.T) {
	cfg := localcluster.Config{Dir: filepath.Join(workDir, "pg100"), Database: "faults_pool", MaxConnections: 100}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn, err := localcluster.Ensure(ctx, cfg)
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = localcluster.Stop(ctx, cfg)
	})
	db, err := sql.Open("postgres", dsn+" application_name=faults")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	var maxConns int
	if err := db.QueryRow(`SELECT current_setting('max_connections')::int`).Scan(&maxConns); err != nil || maxConns != 100 {
		t.Fatalf("max_connections = %d (%v), want PostgreSQL's default 100", maxConns, err)
	}

	acc := newAccount(t, dsn, "pool", 1_000_000)
	// Default pool settings, but idle connections close after 3 s instead
	// of a minute, so the test sees the instances settle.
	var instances []*instance
	for _, name := range []string{"shipd-a", "shipd-b", "shipd-c"} {
		instances = append(instances, startInstance(t, name, dsn+" application_name="+name, "DATABASE_CONN_MAX_IDLE_TIME=3s"))
	}
	clients := []client{instances[0].client(acc), instances[1].client(acc), instances[2].client(acc)}
	channel := sandboxChannel(t, clients[0], "Pool main", true)
	spares := []string{sandboxChannel(t, clients[1], "Pool spare", false)}

	sampler := sampleConnections(db)
	load := startWriteLoad(clients, channel, "POOL", spares)
	reads := startListReads(clients, 6)
	time.Sleep(10 * time.Second) // the load runs this long: the peaks are sampled under it
	load.halt()
	readAnswers := reads.halt()
	peaks, peakTotal := sampler.peaks()

	var failed []string
	for _, a := range append(load.allAnswers(), readAnswers...) {
		if a.err != nil || a.status >= 500 {
			failed = append(failed, a.String())
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d requests failed under load: %s", len(failed), summarise(failed))
	}
	for _, in := range instances {
		if lines := in.LogLines("53300"); len(lines) > 0 {
			t.Errorf("%s met a refused connection: %s", in.name, lines[0])
		}
		// DATABASE_MAX_CONNS bounds the pool and the connection that
		// LISTENs for commits together (ADR 0029).
		if peaks[in.name] > 25 {
			t.Errorf("%s held %d connections, more than DATABASE_MAX_CONNS (25), its listener included", in.name, peaks[in.name])
		}
	}
	if peakTotal > maxConns-3 {
		t.Errorf("%d connections at the peak, beyond the %d PostgreSQL grants", peakTotal, maxConns-3)
	}

	// Idle: each instance closes what it no longer uses.
	var idle map[string]int
	eventually(t, 30*time.Second, "the instances' connections settle once idle", func() string {
		time.Sleep(time.Second) // a pool closes idle connections at its own pace: look again a second on
		idle = sampler.now()
		for _, in := range instances {
			if idle[in.name] >= peaks[in.name] || idle[in.name] > 20 {
				return fmt.Sprintf("%s holds %d (peak %d)", in.name, idle[in.name], peaks[in.name])
			}
		}
		return ""
	})
	sampler.stop()
	t.Logf("pool: 3 instances on max_connections %d: %d writes (%s), %d list reads (%s)", maxConns,
		len(load.allAnswers()), outcomes(load.allAnswers()), len(readAnswers), outcomes(readAnswers))
	t.Logf("pool: connections at the peak %s (all backends %d of %d); idle afterwards %s",
		byName(peaks), peakTotal, maxConns, byName(idle))
}

// An instance whose pool wants more connections than PostgreSQL grants it
// answers 503 with Retry-After when a connection is refused, never 500, and
// says so in one warning, not one per request.
func TestRefusedConnectionsAnswer503(t *testing.T) {
	dsn, db := newDatabase(t, "faults_pool_admin")
	// A role of its own: connection limits do not bind superusers.
	for _, stmt := range []string{
		`DROP DATABASE IF EXISTS faults_pool_limited`, `DROP ROLE IF EXISTS pool_limited`,
		`CREATE ROLE pool_limited LOGIN CONNECTION LIMIT 12`, `CREATE DATABASE faults_pool_limited OWNER pool_limited`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	limited := strings.Replace(dsn, "dbname=faults_pool_admin", "dbname=faults_pool_limited", 1) + " user=pool_limited"
	acc := newAccount(t, limited, "limited", 1_000_000)
	in := startInstance(t, "shipd-limited", limited)
	c := in.client(acc)
	channel := sandboxChannel(t, c, "Limited main", true)

	// 60 requests at once want more than 12 connections.
	var mu sync.Mutex
	var answers []answer
	var wg sync.WaitGroup
	for round := range 5 {
		for i := range 60 {
			wg.Go(func() {
				var a answer
				if i%2 == 0 {
					a = c.call(http.MethodPost, "/v1/shipments", shipmentBody(channel, fmt.Sprintf("LIMITED-%d-%d", round, i)))
				} else {
					a = c.call(http.MethodGet, "/v1/shipments?per_page=5", nil)
				}
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	refused, other := 0, []string{}
	for _, a := range answers {
		switch {
		case a.ok():
		case a.status == http.StatusServiceUnavailable && a.header.Get("Retry-After") == "1" && a.errorCode() == "service_unavailable":
			refused++
		default:
			other = append(other, a.String())
		}
	}
	if refused == 0 {
		t.Fatalf("no request met a refused connection (%s): the limit was not reached", outcomes(answers))
	}
	if len(other) > 0 {
		t.Errorf("answers other than 2xx or 503 with Retry-After: %s", summarise(other))
	}
	warnings := in.LogLines("no connection slot left")
	if len(warnings) != 1 {
		t.Errorf("%d warnings for %d refused requests, want 1", len(warnings), refused)
	}
	if n := len(in.LogLines(`"level":"ERROR"`, "request failed")); n > 0 {
		t.Errorf("%d requests logged as failed (500)", n)
	}
	t.Logf("pool beyond the limit: %d requests (%s); %d warning lines", len(answers), outcomes(answers), len(warnings))
}

// connectionSampler counts each application's connections in
// pg_stat_activity every 50 ms and keeps the peaks.
type connectionSampler struct {
	db   *sql.DB
	done chan struct{}
	wg   sync.WaitGroup

	mu        sync.Mutex
	peak      map[string]int
	peakTotal int
}

func sampleConnections(db *sql.DB) *connectionSampler {
	s := &connectionSampler{db: db, done: make(chan struct{}), peak: map[string]int{}}
	s.wg.Go(func() {
		for {
			select {
			case <-s.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			counts := s.now()
			total := 0
			s.mu.Lock()
			for name, n := range counts {
				s.peak[name] = max(s.peak[name], n)
				total += n
			}
			s.peakTotal = max(s.peakTotal, total)
			s.mu.Unlock()
		}
	})
	return s
}

// now counts the client connections of each application name.
func (s *connectionSampler) now() map[string]int {
	out := map[string]int{}
	rows, err := s.db.Query(`SELECT application_name, count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1`)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var n int
		if rows.Scan(&name, &n) == nil {
			out[name] = n
		}
	}
	return out
}

func (s *connectionSampler) peaks() (map[string]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.peak {
		out[k] = v
	}
	return out, s.peakTotal
}

func (s *connectionSampler) stop() {
	close(s.done)
	s.wg.Wait()
}

func byName(m map[string]int) string { return joinCounts(m, " ") }

// listReads are readers paging the shipment list on every instance in turn,
// as fast as they are answered.
type listReads struct {
	stop chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	answers []answer
}

func startListReads(targets []client, readers int) *listReads {
	r := &listReads{stop: make(chan struct{})}
	for i := range readers {
		r.wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-r.stop:
					return
				default:
				}
				a := targets[(i+n)%len(targets)].call(http.MethodGet, fmt.Sprintf("/v1/shipments?per_page=20&page=%d", 1+n%3), nil)
				r.mu.Lock()
				r.answers = append(r.answers, a)
				r.mu.Unlock()
			}
		})
	}
	return r
}

func (r *listReads) halt() []answer {
	close(r.stop)
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.answers
}
