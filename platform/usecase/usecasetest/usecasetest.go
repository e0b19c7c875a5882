// Package usecasetest gives tests and tools that build a module's handlers
// outside the service an observer of their own.
package usecasetest

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/metrics"
	"shipd/platform/usecase"
)

// Observer reports to a registry of its own and drops the log lines, so
// the handlers run decorated exactly as in the service.
func Observer() usecase.Observer {
	return usecase.Observer{Logger: slog.New(slog.DiscardHandler), Metrics: metrics.NewUseCases(prometheus.NewRegistry())}
}
