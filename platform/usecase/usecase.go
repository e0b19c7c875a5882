// Package usecase is the one shape every module's use cases take, and the
// decorators every one of them is wrapped in.
//
// A command changes state and answers only whether it did
// (CommandHandler); whoever needs the result reads it back through a query
// (QueryHandler), which reads the write model, so the caller sees its own
// write. Each module's app package builds its handlers with
// NewXHandler(deps...), which returns Command(h, obs) or Query(h, obs): the
// handler refused when a dependency is missing, then wrapped in tracing,
// metrics and logging, in that order from the inside out.
package usecase

import "context"

// CommandHandler carries out one kind of command.
type CommandHandler[C any] interface {
	Handle(ctx context.Context, cmd C) error
}

// QueryHandler answers one kind of query.
type QueryHandler[Q any, R any] interface {
	Handle(ctx context.Context, q Q) (R, error)
}

// Command checks h's dependencies and returns it decorated for obs. It
// panics when h has a nil dependency: a missing one is a wiring mistake,
// better found when the service starts than at the first request.
func Command[C any](h CommandHandler[C], obs Observer) CommandHandler[C] {
	name := nameOf[C]()
	mustHaveDependencies(name, h)
	obs.mustBeComplete(name)
	return commandLogging[C]{
		commandMetrics[C]{commandTracing[C]{h, name}, name, obs.Metrics},
		name, obs.Logger,
	}
}

// Query is Command for queries.
func Query[Q any, R any](h QueryHandler[Q, R], obs Observer) QueryHandler[Q, R] {
	name := nameOf[Q]()
	mustHaveDependencies(name, h)
	obs.mustBeComplete(name)
	return queryLogging[Q, R]{
		queryMetrics[Q, R]{queryTracing[Q, R]{h, name}, name, obs.Metrics},
		name, obs.Logger,
	}
}

// Page is what a list query answers: one page of records (as the read
// model stores them) and how many match in all.
type Page[T any] struct {
	Records []T
	Total   int
}
