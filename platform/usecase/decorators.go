package usecase

import (
	"context"
	"log/slog"
	"runtime/trace"
	"time"
)

// The decorators, one type per concern and kind of handler. Each kind's
// variant only adapts its signature to the shared function that does the
// work (traced, measured, logged).

type commandTracing[C any] struct {
	next CommandHandler[C]
	name string
}

func (d commandTracing[C]) Handle(ctx context.Context, cmd C) error {
	return traced(ctx, d.name, func(ctx context.Context) error { return d.next.Handle(ctx, cmd) })
}

type queryTracing[Q any, R any] struct {
	next QueryHandler[Q, R]
	name string
}

func (d queryTracing[Q, R]) Handle(ctx context.Context, q Q) (r R, err error) {
	err = traced(ctx, d.name, func(ctx context.Context) error { r, err = d.next.Handle(ctx, q); return err })
	return r, err
}

type commandMetrics[C any] struct {
	next    CommandHandler[C]
	name    string
	metrics Metrics
}

func (d commandMetrics[C]) Handle(ctx context.Context, cmd C) error {
	return measured(ctx, d.metrics, d.name, "command", func() error { return d.next.Handle(ctx, cmd) })
}

type queryMetrics[Q any, R any] struct {
	next    QueryHandler[Q, R]
	name    string
	metrics Metrics
}

func (d queryMetrics[Q, R]) Handle(ctx context.Context, q Q) (r R, err error) {
	err = measured(ctx, d.metrics, d.name, "query", func() error { r, err = d.next.Handle(ctx, q); return err })
	return r, err
}

type commandLogging[C any] struct {
	next   CommandHandler[C]
	name   string
	logger *slog.Logger
}

func (d commandLogging[C]) Handle(ctx context.Context, cmd C) error {
	return logged(ctx, d.logger, d.name, "command", func() error { return d.next.Handle(ctx, cmd) })
}

type queryLogging[Q any, R any] struct {
	next   QueryHandler[Q, R]
	name   string
	logger *slog.Logger
}

func (d queryLogging[Q, R]) Handle(ctx context.Context, q Q) (r R, err error) {
	err = logged(ctx, d.logger, d.name, "query", func() error { r, err = d.next.Handle(ctx, q); return err })
	return r, err
}

// traced makes each run a task of the Go execution tracer (runtime/trace):
// `go tool trace` then shows every use case with its goroutines, blocking
// and the outcome, at no cost while no trace is being taken.
func traced(ctx context.Context, name string, run func(context.Context) error) error {
	ctx, task := trace.NewTask(ctx, name)
	defer task.End()
	err := run(ctx)
	trace.Log(ctx, "outcome", outcomeIn(ctx, err))
	return err
}

func measured(ctx context.Context, m Metrics, name, kind string, run func() error) error {
	start := time.Now()
	err := run()
	m.ObserveUseCase(name, kind, outcomeIn(ctx, err), time.Since(start))
	return err
}

// logged writes one line per run. The command or query itself is never
// logged: some carry carrier credentials or webhook secrets. Every fault
// (the client's mistake, or a carrier that cannot be reached) is debug: the
// client got its answer, and a carrier that is down shows in
// shipd_carrier_calls_total, where a line per parcel check would flood the
// log. Anything unexpected is an error.
func logged(ctx context.Context, logger *slog.Logger, name, kind string, run func() error) error {
	start := time.Now()
	err := run()
	outcome := outcomeIn(ctx, err)
	level := slog.LevelDebug
	if outcome == "error" {
		level = slog.LevelError
	}
	if !logger.Enabled(ctx, level) {
		return err
	}
	attrs := []slog.Attr{slog.String("use_case", name), slog.String("kind", kind),
		slog.String("outcome", outcome), slog.Duration("took", time.Since(start))}
	if err != nil {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	logger.LogAttrs(ctx, level, "use case", attrs...)
	return err
}
