// Package metrics is what shipd tells Prometheus at GET /metrics: HTTP
// requests by route template, event handler runs and lag per consumer group,
// outbound carrier calls and webhook attempts, and worker queues.
//
// Every collector registers on one Registry per running instance (not the
// global default), so tests that start several instances in one process do
// not collide and each instance reports only its own figures.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric shipd defines.
const namespace = "shipd"

// NewRegistry returns a registry with the Go runtime and process collectors
// (memory, goroutines, open files, CPU) already on it.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves the registry in the Prometheus text format. A collector
// that fails (the database is down while the lag is asked) is reported in
// the answer and the rest is still served.
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Registry: reg})
}

// latencyBuckets suit calls from 1 ms to a 30 s carrier timeout.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// timedCalls is a counter of calls and a histogram of their durations, the
// pair every kind of call shipd reports (requests, carrier calls, webhook
// attempts). The histogram may leave out some of the counter's labels.
type timedCalls struct {
	count    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// callMetric names one of the pair, its help text and labels.
type callMetric struct {
	name, help string
	labels     []string
}

// newTimedCalls registers the counter and the histogram on reg.
func newTimedCalls(reg prometheus.Registerer, count, duration callMetric) timedCalls {
	c := timedCalls{
		count: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: count.name, Help: count.help}, count.labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: duration.name,
			Help: duration.help, Buckets: latencyBuckets}, duration.labels),
	}
	reg.MustRegister(c.count, c.duration)
	return c
}
