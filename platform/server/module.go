// Package server assembles the running service: HTTP routes and middleware,
// the event bus and background workers of every module, and their start-up
// and graceful shutdown.
package server

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// Module is a bounded context as the server sees it.
type Module interface {
	Name() string
	// RegisterRoutes adds routes to the /v1 router; requests there are
	// authenticated, rate-limited and idempotent already.
	RegisterRoutes(r *mux.Router)
	// RegisterHandlers subscribes the module's event and command handlers.
	RegisterHandlers(bus *messaging.Bus) error
	// Streams are the streams the module writes: its event stream and its
	// command stream, as it has them.
	Streams() []string
}

// InternalModule is a module that answers other shipd processes on
// /internal (ADR 0033).
type InternalModule interface {
	RegisterInternalRoutes(r *mux.Router)
}

// Frontend is a driving adapter beside the modules (the dashboard): routes
// of its own outside /v1 that reach the modules only through the /v1 API,
// called in process (ADR 0027). The composition root hands it in, so the
// platform imports no product UI.
type Frontend interface {
	// Register adds its routes to r. api serves /v1 with its middleware
	// (the same router), for the frontend's in-process calls.
	Register(r *mux.Router, api http.Handler)
}

// WorkerModule is a module with background loops of its own.
type WorkerModule interface {
	Workers() []Worker
}

// ProjectionModule is a module with read models built from events, which
// `shipd projections rebuild` can rebuild.
type ProjectionModule interface {
	Projections() []projection.Projection
}

// Worker is a background loop (outbound calls, purges). Run returns when ctx
// ends; it must release what it holds before returning.
type Worker interface {
	Name() string
	Run(ctx context.Context) error
}

// BrokerWorker is the worker that forwards events to the event broker;
// /readyz reports its Problem.
type BrokerWorker interface {
	Worker
	Problem() string
}

// QueueWorker is a worker whose due items wait in the database; /metrics
// reports how many are due.
type QueueWorker interface {
	Worker
	QueueDepth(ctx context.Context) (int, error)
}

// Streams returns every stream the modules write.
func Streams(modules []Module) []string {
	var out []string
	for _, m := range modules {
		out = append(out, m.Streams()...)
	}
	return out
}
