package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/httpapi"
)

// HTTPRequests counts and times the API's requests by method, route
// template and status: the template, never the path, so ids do not make a
// series per resource.
type HTTPRequests struct{ timedCalls }

// NewHTTPRequests registers the request metrics on reg.
func NewHTTPRequests(reg prometheus.Registerer) *HTTPRequests {
	labels := []string{"method", "route", "status"}
	return &HTTPRequests{newTimedCalls(reg,
		callMetric{"http_requests_total", "HTTP requests answered, by method, route template and status.", labels},
		callMetric{"http_request_duration_seconds", "Time to answer HTTP requests, by method, route template and status.", labels})}
}

// Observe records one answered request; it is an httpapi.RequestObserver.
func (h *HTTPRequests) Observe(r httpapi.RequestSummary) {
	route := r.Route
	if route == "" {
		route = "unmatched" // 404s of arbitrary paths share one series
	}
	labels := prometheus.Labels{"method": method(r.Method), "route": route, "status": strconv.Itoa(r.Status)}
	h.count.With(labels).Inc()
	h.duration.With(labels).Observe(r.Duration.Seconds())
}

// method keeps the method label to the known verbs: a client can send any
// token as a method, and each would otherwise be a new series.
func method(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return m
	}
	return "other"
}
