package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/carrier"
)

// CarrierCalls counts and times the calls made to carriers, by provider,
// operation of the port and outcome (ok, rejected, unavailable, error).
type CarrierCalls struct{ timedCalls }

// NewCarrierCalls registers the carrier call metrics on reg.
func NewCarrierCalls(reg prometheus.Registerer) *CarrierCalls {
	return &CarrierCalls{newTimedCalls(reg,
		callMetric{"carrier_calls_total", "Calls to carriers, by provider, operation and outcome (ok, rejected, unavailable, error).",
			[]string{"provider", "operation", "outcome"}},
		callMetric{"carrier_call_duration_seconds", "Time carrier calls took, by provider and operation.", []string{"provider", "operation"}})}
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
type WebhookAttempts struct{ timedCalls }

// NewWebhookAttempts registers the webhook attempt metrics on reg.
func NewWebhookAttempts(reg prometheus.Registerer) *WebhookAttempts {
	labels := []string{"outcome"}
	return &WebhookAttempts{newTimedCalls(reg,
		callMetric{"webhook_attempts_total", "Webhook delivery attempts, by outcome: the answer's status class, or no_answer.", labels},
		callMetric{"webhook_attempt_duration_seconds", "Time webhook attempts took, by outcome.", labels})}
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
