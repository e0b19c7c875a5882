package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// QueueDepth tells how many items of a worker's queue are due now, whether
// or not a worker holds them.
type QueueDepth func(ctx context.Context) (int, error)

// WorkerQueues reports each outbound worker's due items, asked of the
// database at scrape time.
type WorkerQueues struct {
	depths map[string]QueueDepth
	desc   *prometheus.Desc
}

// NewWorkerQueues registers the worker queue metrics on reg.
func NewWorkerQueues(reg prometheus.Registerer) *WorkerQueues {
	q := &WorkerQueues{
		depths: map[string]QueueDepth{},
		desc: prometheus.NewDesc(namespace+"_worker_queue_depth",
			"Items due now in a worker's queue (all instances together, claimed or not), by worker.", []string{"worker"}, nil),
	}
	reg.MustRegister(q)
	return q
}

// Add makes worker's queue depth part of every scrape. Call it before the
// first scrape.
func (q *WorkerQueues) Add(worker string, depth QueueDepth) { q.depths[worker] = depth }

// Describe implements prometheus.Collector.
func (q *WorkerQueues) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

// Collect asks every queue for its depth; one that cannot answer (the
// database is down) is left out of the scrape and logged.
func (q *WorkerQueues) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for worker, depth := range q.depths {
		n, err := depth(ctx)
		if err != nil {
			slog.Warn("metrics: worker queue depth", "worker", worker, "err", err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n), worker)
	}
}
