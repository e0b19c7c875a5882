package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/carrier"
)

// CarrierCalls counts and times the calls made to carriers, by provider,
// operation of the port and outcome (ok, rejected, unavailable, error).
type CarrierCalls struct {
	count    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewCarrierCalls registers the carrier call metrics on reg.
func NewCarrierCalls(reg prometheus.Registerer) *CarrierCalls {
	c := &CarrierCalls{
		count: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "carrier_calls_total",
			Help: "Calls to carriers, by provider, operation and outcome (ok, rejected, unavailable, error)."},
			[]string{"provider", "operation", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "carrier_call_duration_seconds",
			Help: "Time carrier calls took, by provider and operation.", Buckets: latencyBuckets}, []string{"provider", "operation"}),
	}
	reg.MustRegister(c.count, c.duration)
	return c
}

// Observe is a carrier.Observer.
func (c *CarrierCalls) Observe(provider, operation string, took time.Duration, outcome string) {
	c.count.WithLabelValues(provider, operation, outcome).Inc()
	c.duration.WithLabelValues(provider, operation).Observe(took.Seconds())
}

var _ carrier.Observer = (*CarrierCalls)(nil).Observe

// WebhookAttempts counts and times webhook POSTs by outcome: the answer's
// status class (2xx, 3xx, 4xx, 5xx) or "no_answer" (refused, timed out,
// blocked address).
type WebhookAttempts struct {
	count    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewWebhookAttempts registers the webhook attempt metrics on reg.
func NewWebhookAttempts(reg prometheus.Registerer) *WebhookAttempts {
	w := &WebhookAttempts{
		count: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_attempts_total",
			Help: "Webhook delivery attempts, by outcome: the answer's status class, or no_answer."}, []string{"outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "webhook_attempt_duration_seconds",
			Help: "Time webhook attempts took, by outcome.", Buckets: latencyBuckets}, []string{"outcome"}),
	}
	reg.MustRegister(w.count, w.duration)
	return w
}

// Observe records one attempt; status 0 means no answer came.
func (w *WebhookAttempts) Observe(status int, took time.Duration) {
	outcome := "no_answer"
	if status >= 100 && status < 600 {
		outcome = string(rune('0'+status/100)) + "xx"
	}
	w.count.WithLabelValues(outcome).Inc()
	w.duration.WithLabelValues(outcome).Observe(took.Seconds())
}
