package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
	"shipd/platform/messaging/natstest"
	"shipd/platform/postgres/pgtest"
)

// DATABASE_MAX_CONNS bounds every connection an instance opens, its pool
// and its LISTEN connection together (ADR 0029): an operator behind
// PgBouncer or a managed PostgreSQL plans by that number. Under writes,
// bookings, tracking checks, webhook deliveries and list reads, the
// instance's backends in pg_stat_activity never outnumber it.
func TestMaxConnsBoundsEveryConnection(t *testing.T) {
	apptest.SkipInSplit(t, "counts one instance's connections")
	t.Parallel()
	const bound, app = 6, "shipd-bound-one"
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) {
		c.DatabaseURL = withApplicationName(c.DatabaseURL, app)
		c.DatabaseMaxConns = bound
		c.DatabaseConnMaxIdleTime = time.Minute // kept open, so the peak shows what the pool holds
	}))
	key := env.NewKey("bound")
	ch := env.ActiveSandboxChannel(key, "Bound", nil)
	var delivered atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		delivered.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key, Body: map[string]any{
		"name": "all", "url": receiver.URL, "events": []string{"shipment.created", "shipment.updated", "tracking_parcel.created", "tracking_parcel.updated"},
	}}); res.Status != http.StatusCreated {
		t.Fatalf("subscribing: %d %s", res.Status, res.Body)
	}

	sampler := sampleBackends(t, env.DB, app)
	answers := loadInstance(t, env, key, ch, 8, 6*time.Second)
	peak := sampler.stop()
	checkLoad(t, answers)
	if delivered.Load() == 0 {
		t.Error("no webhook delivered under the load: the load did not reach the workers")
	}
	t.Logf("DATABASE_MAX_CONNS=%d: %d requests, %d webhooks delivered, at most %d connections of the instance at once", bound, len(answers), delivered.Load(), peak)
	if peak > bound {
		t.Errorf("the instance held %d connections at once, more than DATABASE_MAX_CONNS=%d", peak, bound)
	}
	if peak < bound-1 {
		t.Errorf("the instance held at most %d connections: the load did not fill its pool, so the count proves little", peak)
	}
}

// With a module database of its own (ADR 0034) the process opens two pools
// and its listener; DATABASE_MAX_CONNS bounds the three together, in both
// databases.
func TestMaxConnsBoundsBothDatabases(t *testing.T) {
	apptest.SkipInSplit(t, "counts one process's connections")
	t.Parallel()
	const bound, app = 6, "shipd-bound-two"
	moduleDSN := pgtest.NewDatabase(t)
	nats := natstest.Start(t)
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) {
		c.DatabaseURL = withApplicationName(c.DatabaseURL, app)
		c.ChannelsDatabaseURL = withApplicationName(moduleDSN, app)
		c.EventBrokerURL = nats.URL
		c.Modules = []string{"channels"}
		c.DatabaseMaxConns = bound
		c.DatabaseConnMaxIdleTime = time.Minute
	}))
	key := env.NewKey("bound")

	sampler := sampleBackends(t, env.DB, app)
	var answers []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(5 * time.Second)
	for w := range 8 {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				var res *apptest.Response
				if i%3 == 0 {
					res = env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key,
						Body: channel(fmt.Sprintf("Bound %d-%d", w, i))})
				} else {
					res = env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: key})
				}
				mu.Lock()
				answers = append(answers, res.Status)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	peak := sampler.stop()
	checkLoad(t, answers)
	var databases int
	if err := env.DB.Get(&databases, `SELECT count(DISTINCT datname) FROM pg_stat_activity WHERE application_name = $1`, app); err != nil {
		t.Fatal(err)
	}
	t.Logf("DATABASE_MAX_CONNS=%d with a module database: %d requests, at most %d connections at once, in %d databases now", bound, len(answers), peak, databases)
	if databases != 2 {
		t.Errorf("the process has connections in %d databases, want the module's and the platform's: the count does not see both", databases)
	}
	if peak > bound {
		t.Errorf("the process held %d connections at once in its two databases, more than DATABASE_MAX_CONNS=%d", peak, bound)
	}
}

// loadInstance runs workers clients for d against the instance: shipments
// created (booked by the worker, their parcels then tracked and checked),
// changed, refreshed and listed. It returns every answer's status.
func loadInstance(t *testing.T, env *apptest.Env, key, channelID string, workers int, d time.Duration) []int {
	t.Helper()
	var (
		mu      sync.Mutex
		answers []int
		wg      sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	for w := range workers {
		wg.Go(func() {
			var last string
			for i := 0; time.Now().Before(deadline); i++ {
				var res *apptest.Response
				switch {
				case i%4 == 0 || last == "":
					body := shipment(channelID)
					body["reference_number"] = fmt.Sprintf("BOUND-%d-%d", w, i)
					res = env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: body})
					if res.Status == http.StatusCreated {
						last, _ = res.Data(t)["id"].(string)
					}
				case i%4 == 1:
					res = env.Do(apptest.Request{Method: http.MethodPatch, Path: "/v1/shipments/" + last, Key: key,
						Body: map[string]any{"reference_number": fmt.Sprintf("BOUND-%d-%d-B", w, i)}})
				case i%4 == 2:
					res = env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels", Key: key})
				default:
					res = env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments?status=created", Key: key})
				}
				mu.Lock()
				answers = append(answers, res.Status)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return answers
}

// checkLoad fails t when an answer was a 5xx or the load made no request.
func checkLoad(t *testing.T, answers []int) {
	t.Helper()
	if len(answers) == 0 {
		t.Fatal("the load made no request")
	}
	for _, s := range answers {
		if s >= 500 {
			t.Errorf("an answer under load was %d", s)
			return
		}
	}
}

// backendSampler counts, every few milliseconds, the backends whose
// application_name is the instance's, in every database of the cluster.
type backendSampler struct {
	done chan struct{}
	peak chan int
}

func sampleBackends(t *testing.T, db *sqlx.DB, app string) *backendSampler {
	t.Helper()
	s := &backendSampler{done: make(chan struct{}), peak: make(chan int, 1)}
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer conn.Close()
		peak := 0
		for {
			var n int
			// A snapshot of pg_stat_activity is kept for a transaction;
			// each query here is one.
			if err := conn.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err == nil {
				peak = max(peak, n)
			}
			select {
			case <-s.done:
				s.peak <- peak
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return s
}

// stop ends the sampling and returns the most connections seen at once.
func (s *backendSampler) stop() int {
	close(s.done)
	return <-s.peak
}

// withApplicationName names dsn's connections app in pg_stat_activity.
func withApplicationName(dsn, app string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("application_name", app)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(dsn) + " application_name=" + app
}
