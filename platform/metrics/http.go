package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/httpapi"
)

// HTTPRequests counts and times the API's requests by method, route
// template and status: the template, never the path, so ids do not make a
// series per resource.
type HTTPRequests struct {
	count    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewHTTPRequests registers the request metrics on reg.
func NewHTTPRequests(reg prometheus.Registerer) *HTTPRequests {
	h := &HTTPRequests{
		count: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by method, route template and status."}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
			Help: "Time to answer HTTP requests, by method, route template and status.", Buckets: latencyBuckets},
			[]string{"method", "route", "status"}),
	}
	reg.MustRegister(h.count, h.duration)
	return h
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
