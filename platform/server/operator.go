package server

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"shipd/migrations"
	"shipd/platform/httpapi"
	"shipd/platform/metrics"
)

// addOperatorRoutes adds what an operator's probes and Prometheus ask,
// outside /v1 and without API keys: they say nothing about any account.
//   - /healthz: the process is up and serving (liveness; never touches the
//     database, so a database outage does not get the process restarted).
//   - /readyz: the database answers and its migrations are the ones this
//     build expects (readiness: send traffic here or not). With an event
//     broker, it also says whether the broker takes events; one that does
//     not leaves the instance ready, since writes keep committing to the
//     outbox, and says why under "event_broker".
//   - /metrics: Prometheus text format.
//     With a module database (ADR 0034) both databases are asked, and
//     "databases" names each.
func addOperatorRoutes(router *mux.Router, db *sqlx.DB, platform PlatformDB, reg *prometheus.Registry, broker BrokerWorker) {
	router.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}).Methods(http.MethodGet)
	router.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		answer := map[string]any{"status": "ok"}
		if platform.DB != db {
			answer["databases"] = map[string]string{"module": "ok", "platform": "ok"}
			if problem := readiness(r.Context(), platform.DB); problem != "" {
				httpapi.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "platform database: " + problem})
				return
			}
		}
		if problem := readiness(r.Context(), db); problem != "" {
			if platform.DB != db {
				problem = "module database: " + problem
			}
			httpapi.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": problem})
			return
		}
		if broker != nil {
			answer["event_broker"] = "ok"
			if problem := broker.Problem(); problem != "" {
				answer["event_broker"] = problem
			}
		}
		httpapi.WriteJSON(w, http.StatusOK, answer)
	}).Methods(http.MethodGet)
	router.Handle("/metrics", metrics.Handler(reg)).Methods(http.MethodGet)
}

// readiness returns why the instance should not take traffic, or "".
func readiness(ctx context.Context, db *sqlx.DB) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		return "the database does not answer"
	}
	pending, err := migrations.Pending(ctx, db.DB)
	switch {
	case err != nil:
		return "the database's migrations cannot be read"
	case pending:
		return "the database has migrations to apply (shipd migrate up)"
	}
	return ""
}
