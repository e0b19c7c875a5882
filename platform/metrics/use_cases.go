package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/usecase"
)

// UseCases counts and times every run of a module's commands and queries,
// by use case ("shipments.CreateShipment"), kind and outcome (ok, or the
// fault the API answered with, or error).
type UseCases struct{ timedCalls }

// NewUseCases registers the use case metrics on reg.
func NewUseCases(reg prometheus.Registerer) *UseCases {
	return &UseCases{newTimedCalls(reg,
		callMetric{"use_case_runs_total", "Runs of the modules' commands and queries, by use case, kind and outcome.",
			[]string{"use_case", "kind", "outcome"}},
		callMetric{"use_case_duration_seconds", "Time the modules' commands and queries took, by use case and kind.",
			[]string{"use_case", "kind"}})}
}

// ObserveUseCase is usecase.Metrics.
func (u *UseCases) ObserveUseCase(name, kind, outcome string, took time.Duration) {
	u.count.WithLabelValues(name, kind, outcome).Inc()
	u.duration.WithLabelValues(name, kind).Observe(took.Seconds())
}

var _ usecase.Metrics = (*UseCases)(nil)
