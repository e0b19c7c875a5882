package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"shipd/platform/postgres"
)

// databaseTrouble says once, not once per request, that the database cannot
// serve: while PostgreSQL restarts or refuses connections every request
// meets the same cause, and a line each would bury everything else in the
// log. It logs the first request of an episode and then at most once a
// minute, counting the requests answered 503 meanwhile.
type databaseTrouble struct {
	mu         sync.Mutex
	lastLogged time.Time
	since      int // requests answered 503 since the last line
}

var troubleLog = &databaseTrouble{}

const troubleLogEvery = time.Minute

func (d *databaseTrouble) report(ctx context.Context, err error, requestID string) {
	d.mu.Lock()
	now := time.Now()
	if !d.lastLogged.IsZero() && now.Sub(d.lastLogged) < troubleLogEvery {
		d.since++
		d.mu.Unlock()
		return
	}
	earlier := d.since
	d.lastLogged, d.since = now, 0
	d.mu.Unlock()
	msg := "requests failing: database unavailable; answering 503 with Retry-After"
	if postgres.IsTooManyConnections(err) {
		msg = "requests failing: PostgreSQL has no connection slot left (max_connections or a connection limit; lower DATABASE_MAX_CONNS or raise the limit); answering 503 with Retry-After"
	}
	slog.WarnContext(ctx, msg, "err", err, "request_id", requestID, "answered_503_since_last_line", earlier,
		"next_line_at_most_in", troubleLogEvery.String())
}

// writeDatabaseUnavailable answers a request that met an unavailable
// database: 503, Retry-After, and a message that says which trouble it is.
func writeDatabaseUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	troubleLog.report(r.Context(), err, RequestID(r.Context()))
	w.Header().Set("Retry-After", "1")
	msg := "The service is temporarily unavailable (its database cannot be reached). Try again shortly."
	if postgres.IsTooManyConnections(err) {
		msg = "The service is temporarily unavailable (its database has no free connection). Try again shortly."
	}
	WriteErrorBody(w, r, http.StatusServiceUnavailable, "service_unavailable", msg, nil)
}
