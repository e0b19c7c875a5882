package usecase

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"shipd/platform/fault"
)

// Observer is where the decorators report: a logger and the metrics of
// every use case run.
type Observer struct {
	Logger  *slog.Logger
	Metrics Metrics
}

// Metrics records one run of a use case: its name ("shipments.CreateShipment"),
// kind ("command" or "query"), outcome (see Outcome) and duration.
type Metrics interface {
	ObserveUseCase(name, kind, outcome string, took time.Duration)
}

func (o Observer) mustBeComplete(useCase string) {
	if o.Logger == nil || o.Metrics == nil {
		panic("usecase: " + useCase + " built without a logger and metrics to report to")
	}
}

// Outcome names how a run ended, for metrics and logs: "ok", the kind of
// fault the API answers with ("not_found", "validation", ...), "canceled"
// when its caller went away (a client that hung up, a worker stopped at
// shutdown: nothing to look into), or "error" for anything unexpected.
func Outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if errors.Is(err, context.Canceled) {
		return "canceled"
	}
	f, ok := fault.As(err)
	if !ok {
		return "error"
	}
	switch f.Kind {
	case fault.KindInvalid:
		return "invalid"
	case fault.KindNotFound:
		return "not_found"
	case fault.KindForbidden:
		return "forbidden"
	case fault.KindConflict:
		return "conflict"
	case fault.KindValidation:
		return "validation"
	case fault.KindUnavailable:
		return "unavailable"
	}
	return "error"
}

// outcomeIn is Outcome of a run under ctx: a failed run whose caller had
// gone by the time it ended is "canceled" whatever the error says, because
// a cancellation reaches it in other words too (PostgreSQL's "canceling
// statement due to user request", which lib/pq's cancel of a query can
// also deliver to the COMMIT after it).
func outcomeIn(ctx context.Context, err error) string {
	if err != nil && ctx.Err() != nil {
		return "canceled"
	}
	return Outcome(err)
}
