package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/apidoc"
	"shipd/platform/auth"
	"shipd/platform/config"
	"shipd/platform/httpapi"
	"shipd/platform/idempotency"
	"shipd/platform/messaging"
	"shipd/platform/metrics"
	"shipd/platform/projection"
	"shipd/platform/ratelimit"
)

// App is one running instance of the service.
type App struct {
	cfg      config.Config
	db       *sqlx.DB
	platform PlatformDB
	logger   *slog.Logger
	bus      *messaging.Bus
	modules  []Module
	workers  []Worker
	handler  http.Handler
	router   *mux.Router
}

// NewApp assembles routes, middleware, handlers and workers.
func NewApp(cfg config.Config, db *sqlx.DB, platform PlatformDB, logger *slog.Logger, bus *messaging.Bus, keys *auth.Store,
	limiter *ratelimit.Limiter, idem *idempotency.Store, modules []Module, frontends []Frontend, workers []Worker, reg *prometheus.Registry) (*App, error) {
	a := &App{cfg: cfg, db: db, platform: platform, logger: logger, bus: bus, modules: modules, workers: workers}
	router := httpapi.NewRouter()
	a.router = router
	var broker BrokerWorker
	for _, w := range workers {
		if b, ok := w.(BrokerWorker); ok {
			broker = b
		}
	}
	addOperatorRoutes(router, db, platform, reg, broker)
	var entries []homeLink
	if cfg.RunsAllModules() {
		// A frontend calls every module's /v1 routes in process (ADR 0027),
		// so only a process that runs them all can serve it (ADR 0033).
		for _, f := range frontends {
			f.Register(router, router)
			if e, ok := f.(EntryFrontend); ok {
				name, path, what := e.Entry()
				entries = append(entries, homeLink{Name: name, Path: path, What: what})
			}
		}
	}
	addHome(router, entries, cfg.PublicBaseURL)
	// Public documentation: before the /v1 subrouter, so no API key.
	router.Handle("/v1/openapi.json", apidoc.Handler()).Methods(http.MethodGet)
	// The API reference page renders that document with vendored, embedded
	// assets; it is not part of the /v1 API (ADR 0026).
	router.Handle(apidoc.PagePath, apidoc.PageHandler()).Methods(http.MethodGet)
	router.Handle(apidoc.AssetsPath+"{file}", apidoc.AssetHandler()).Methods(http.MethodGet)
	v1 := router.PathPrefix("/v1").Subrouter()
	// Order matters: who you are, then how often, then whether this POST
	// was seen before. Rate-limited and unauthenticated answers are never
	// stored as idempotent results.
	v1.Use(auth.Middleware(keys, limiter.FailedKeys()), ratelimit.Middleware(limiter), httpapi.RequireJSON, idempotency.Middleware(idem))
	v1.NotFoundHandler = router.NotFoundHandler
	v1.MethodNotAllowedHandler = router.MethodNotAllowedHandler
	var internal *mux.Router
	if cfg.InternalToken != "" {
		internal = router.PathPrefix("/internal").Subrouter()
		internal.Use(requireInternalToken(cfg.InternalToken))
	}
	for _, m := range modules {
		if !cfg.Runs(m.Name()) {
			continue // another process runs it (SHIPD_MODULES)
		}
		if im, ok := m.(InternalModule); ok && internal != nil {
			im.RegisterInternalRoutes(internal)
		}
		if wm, ok := m.(WorkerModule); ok {
			a.workers = append(a.workers, wm.Workers()...)
		}
		m.RegisterRoutes(v1)
		if err := m.RegisterHandlers(bus); err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Name(), err)
		}
	}
	queues := metrics.NewWorkerQueues(reg)
	for _, w := range a.workers {
		if q, ok := w.(QueueWorker); ok {
			queues.Add(w.Name(), q.QueueDepth)
		}
	}
	lag := metrics.NewEventHandlerLag(reg, db)
	if n := bus.Partitions(); n > 1 {
		lag.Partitioned(messaging.PartitionSQL(n))
	}
	lag.AlsoFrom(func(ctx context.Context) ([]metrics.HandlerLag, error) {
		groups, err := bus.BrokerLag(ctx)
		out := make([]metrics.HandlerLag, len(groups))
		for i, g := range groups {
			out[i] = metrics.HandlerLag{Group: g.Group, Topic: g.Stream, Messages: g.Messages, Seconds: g.Seconds}
		}
		return out, err
	})
	requests := metrics.NewHTTPRequests(reg)
	trusted, err := cfg.TrustedProxyPrefixes()
	if err != nil {
		return nil, err
	}
	// The origin first, so every layer, the access log included, sees the
	// same client address and scheme (ADR 0045).
	a.handler = httpapi.WithOrigin(trusted, cfg.PublicBaseURL)(httpapi.WithRequestID(httpapi.WithAccessLog(logger, requests.Observe)(httpapi.WithRecovery(httpapi.WithBodyLimit(router)))))
	return a, nil
}

// Route is one method and path template the router serves, and the
// permission its handler asks of a key ("" for none).
type Route struct{ Method, Path, Permission string }

// Routes lists every method and path template the router serves, operator
// endpoints included, sorted.
func (a *App) Routes() []Route {
	var out []Route
	_ = a.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error { // Walk fails only with what this returns: nil
		path, err := route.GetPathTemplate()
		if err != nil {
			return nil
		}
		methods, err := route.GetMethods()
		if err != nil {
			return nil // a subrouter prefix, or a route taking every method
		}
		perm := ""
		if g, ok := route.GetHandler().(auth.Guarded); ok {
			perm = string(g.RequiredPermission())
		}
		for _, m := range methods {
			out = append(out, Route{Method: m, Path: path, Permission: perm})
		}
		return nil
	})
	slices.SortFunc(out, func(x, y Route) int { return cmp.Or(cmp.Compare(x.Path, y.Path), cmp.Compare(x.Method, y.Method)) })
	return out
}

// Handler is the whole HTTP API.
func (a *App) Handler() http.Handler { return a.handler }

// Migrate brings the database up to date for this build.
func (a *App) Migrate(ctx context.Context) error {
	if a.platform.DB != a.db {
		// Every database holds every schema (ADR 0034); the platform's is
		// also some other process's module database.
		if err := Migrate(ctx, a.platform.DB, Streams(a.modules)); err != nil {
			return fmt.Errorf("the platform database: %w", err)
		}
	}
	return Migrate(ctx, a.db, Streams(a.modules))
}

// Projections is every module's read models, to list and rebuild.
func (a *App) Projections() *projection.Catalog {
	var all []projection.Projection
	for _, m := range a.modules {
		if pm, ok := m.(ProjectionModule); ok && a.cfg.Runs(m.Name()) {
			all = append(all, pm.Projections()...)
		}
	}
	return projection.NewCatalog(a.db, all)
}

// Run serves on ln and runs the event handlers and workers until ctx ends,
// then shuts down gracefully: in-flight requests finish, handlers and
// workers stop.
func (a *App) Run(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	var wg sync.WaitGroup
	errs := make(chan error, 2+len(a.workers))
	wg.Go(func() {
		// Only a failure while running counts; what the bus reports once ctx
		// has ended (stopped while still subscribing, handlers that outlived
		// the close timeout) is part of the shutdown.
		if err := a.bus.Run(ctx); err != nil && ctx.Err() == nil {
			errs <- fmt.Errorf("event bus: %w", err)
			cancel()
		} else if err != nil {
			a.logger.Warn("event bus shutdown", "err", err)
		}
	})
	for _, w := range a.workers {
		wg.Go(func() {
			if err := w.Run(ctx); err != nil {
				errs <- fmt.Errorf("worker %s: %w", w.Name(), err)
				cancel()
			}
		})
	}
	wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs <- fmt.Errorf("http: %w", err)
			cancel()
		}
	})
	select {
	case <-ctx.Done():
	case <-a.bus.Running():
		a.logger.Info("shipd serving", "addr", ln.Addr().String())
		<-ctx.Done()
	}
	a.logger.Info("shipd shutting down: finishing in-flight requests and handlers")
	shutdownCtx, stop := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer stop()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		a.logger.Warn("http shutdown", "err", err)
	}
	if err := a.bus.Close(); err != nil {
		a.logger.Warn("event bus shutdown", "err", err)
	}
	wg.Wait()
	close(errs)
	a.logger.Info("shipd stopped")
	return errors.Join(collect(errs)...)
}

// Running is closed once every event handler is subscribed.
func (a *App) Running() chan struct{} { return a.bus.Running() }

func collect(ch chan error) []error {
	var out []error
	for err := range ch {
		out = append(out, err)
	}
	return out
}
