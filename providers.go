package shipd

import (
	"time"

	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/google/wire"
	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"shipd/adapters/carriers/allegro"
	"shipd/adapters/carriers/dhlexpress"
	"shipd/adapters/carriers/dhlparcelde"
	"shipd/adapters/carriers/dpdpl"
	"shipd/adapters/carriers/gls"
	"shipd/adapters/carriers/inpost"
	"shipd/adapters/carriers/packeta"
	"shipd/adapters/carriers/ppl"
	"shipd/adapters/carriers/sandbox"
	"shipd/adapters/labels"
	"shipd/dashboard"
	"shipd/modules/channels"
	channelscontract "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/remote"
	channelsports "shipd/modules/channels/ports"
	"shipd/modules/dispatch"
	"shipd/modules/shipments"
	"shipd/modules/shipments/app/command"
	"shipd/modules/tracking"
	"shipd/modules/webhooks"
	"shipd/platform/auth"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/metrics"
	"shipd/platform/postgres"
	"shipd/platform/ratelimit"
	"shipd/platform/secrets"
	"shipd/platform/server"
	"shipd/platform/usecase"
)

// platformSet provides the shared infrastructure every module uses.
var platformSet = wire.NewSet(
	server.Logger,
	databaseURL,
	database,
	platformDatabase,
	keyStore,
	rateLimiter,
	wakeup,
	server.SecretBox,
	postgres.NewPresence,
	eventBroker,
	bus,
	outbox,
	newLabelMerger,
	wire.Bind(new(command.LabelMerger), new(labelMerger)),
	metrics.NewRegistry,
	wire.Bind(new(prometheus.Registerer), new(*prometheus.Registry)),
	metrics.NewCarrierCalls,
	metrics.NewWebhookAttempts,
	metrics.NewUseCases,
	useCaseObserver,
	channelsFacade,
)

// useCaseObserver is where every module's commands and queries report:
// the server's logger and /metrics.
func useCaseObserver(logger *slog.Logger, runs *metrics.UseCases) usecase.Observer {
	return usecase.Observer{Logger: logger, Metrics: runs}
}

// dsn is where the database is: DATABASE_URL, or the local cluster, started.
type dsn string

// It is this process's modules' database (ADR 0034).
func databaseURL(ctx context.Context, cfg config.Config) (dsn, error) {
	url, err := server.ModuleDatabaseURL(ctx, cfg)
	return dsn(url), err
}

// platformDatabase is where the platform tables are: the module database,
// or DATABASE_URL when this process's modules have one of their own.
func platformDatabase(ctx context.Context, cfg config.Config, db *sqlx.DB) (server.PlatformDB, func(), error) {
	if !cfg.HasModuleDatabase() {
		return server.PlatformDB{DB: db}, func() {}, nil
	}
	_, pool := cfg.ServePools()
	platform, err := postgres.Open(ctx, cfg.DatabaseURL, pool)
	if err != nil {
		return server.PlatformDB{}, nil, fmt.Errorf("the platform database: %w", err)
	}
	return server.PlatformDB{DB: platform}, func() { platform.Close() }, nil
}

// keyStore and rateLimiter keep their tables in the platform database,
// which every process shares: a key works on every route, and a limit
// counts an account's requests whichever process serves them.
func keyStore(platform server.PlatformDB, clk clock.Clock) *auth.Store {
	return auth.NewStore(platform.DB, clk)
}

func rateLimiter(platform server.PlatformDB, clk clock.Clock) *ratelimit.Limiter {
	return ratelimit.New(platform.DB, clk)
}

// database is the module database's pool: DATABASE_MAX_CONNS less the
// listener and, when apart, the platform database's share (ADR 0029).
func database(ctx context.Context, url dsn, cfg config.Config) (*sqlx.DB, func(), error) {
	pool, _ := cfg.ServePools()
	db, err := postgres.Open(ctx, string(url), pool)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// wakeup listens for commits on the event streams on a connection of its
// own, so idle subscribers sleep until there is something to read; that
// connection is counted in DATABASE_MAX_CONNS (config.ServePools).
func wakeup(url dsn, logger *slog.Logger) (*messaging.Wakeup, func(), error) {
	w, err := messaging.NewWakeup(string(url), logger)
	if err != nil {
		return nil, nil, err
	}
	return w, func() { _ = w.Close() }, nil
}

func bus(db *sqlx.DB, wake *messaging.Wakeup, broker *messaging.Broker, cfg config.Config, logger *slog.Logger, reg prometheus.Registerer) (*messaging.Bus, error) {
	pool, _ := cfg.ServePools()
	return messaging.NewBus(db, messaging.BusConfig{PollInterval: cfg.MessagePollInterval, Metrics: reg, Wakeup: wake,
		MaxOpenTransactions: pool.SubscriberTransactions(), Broker: broker, Partitions: cfg.Partitions()}, logger)
}

// eventBroker connects to EVENT_BROKER_URL (ADR 0032); nil without it.
func eventBroker(cfg config.Config, logger *slog.Logger) (*messaging.Broker, func(), error) {
	if cfg.EventBrokerURL == "" {
		return nil, func() {}, nil
	}
	broker, err := messaging.ConnectBroker(cfg.EventBrokerURL, logger)
	if err != nil {
		return nil, nil, err
	}
	return broker, broker.Close, nil
}

func outbox(logger *slog.Logger) *messaging.Outbox {
	return messaging.NewOutbox(messaging.WatermillLogger(logger))
}

// carriers is every carrier this build offers. The sandbox tells its
// tracking journeys by the service's clock, SANDBOX_TIME_SCALE times faster;
// the real carriers talk to their vendors' documented hosts (each channel's
// sandboxMode picks the vendor's test or production host). Every call is
// counted and timed for /metrics.
func carriers(cfg config.Config, clk clock.Clock, calls *metrics.CarrierCalls) *carrier.Registry {
	providers := []carrier.Provider{
		sandbox.NewWithConfig(sandbox.Config{Clock: clk, TimeScale: cfg.SandboxTimeScale, Journal: cfg.SandboxJournal,
			FailLabelsUntil: sandboxLabelOutage(cfg.SandboxFailLabelsFor)}),
		ppl.New(ppl.Config{}),
		dhlparcelde.New(dhlparcelde.Config{}),
		gls.New(gls.Config{}),
		inpost.New(inpost.Config{}),
		allegro.New(allegroConfig(cfg)),
		dhlexpress.New(dhlexpress.Config{}),
		dpdpl.New(dpdpl.Config{}),
		packeta.New(packeta.Config{}),
	}
	for i, p := range providers {
		providers[i] = carrier.Observe(p, calls.Observe)
	}
	return carrier.NewRegistry(providers...)
}

// allegroConfig is Allegro's documented hosts, or, for process tests, the
// fake every call goes to (SHIPD_TEST_ALLEGRO_URL), said loudly as the
// test clock is.
func allegroConfig(cfg config.Config) allegro.Config {
	u := cfg.TestAllegroURL
	if u == "" {
		return allegro.Config{}
	}
	fmt.Fprintf(os.Stderr, "shipd: TEST CARRIER HOST: every Allegro call goes to %s (process tests only)\n", u)
	return allegro.Config{ProductionURL: u, SandboxURL: u, ProductionAuthURL: u, SandboxAuthURL: u}
}

// channelsFacade is how shipments and tracking ask for a channel: the
// channels module in this process, or, when another process runs it, that
// process over HTTP (CHANNELS_URL; ADR 0033).
func channelsFacade(cfg config.Config, local *channelsports.Facade, box *secrets.Box) channelscontract.Channels {
	if cfg.AsksChannelsRemotely() {
		return remote.New(cfg.ChannelsURL, cfg.InternalToken, box)
	}
	return local
}

// modules lists the bounded contexts the server runs.
func modules(ch *channels.Module, sh *shipments.Module, tr *tracking.Module, wh *webhooks.Module, di *dispatch.Module) []server.Module {
	return []server.Module{ch, sh, tr, wh, di}
}

// frontends are the driving adapters beside the modules' API: the
// dashboard's pages. The server mounts them only where every module runs.
func frontends(keys *auth.Store, limiter *ratelimit.Limiter, box *secrets.Box) []server.Frontend {
	return []server.Frontend{dashboard.New(keys, limiter, box)}
}

// labelMerger joins per-parcel labels for the shipments module.
type labelMerger struct{}

func (labelMerger) Merge(format string, parts [][]byte) ([]byte, error) {
	return labels.Merge(format, parts)
}
func (labelMerger) MIMEType(format string) string { return labels.MIMEType(format) }

func newLabelMerger() labelMerger { return labelMerger{} }

// workers lists the background loops every instance runs, the forwarder
// to the event broker among them when there is one.
func workers(j *server.Janitor, p *postgres.Presence, fw *messaging.Forwarder) []server.Worker {
	out := []server.Worker{j, p}
	if fw != nil {
		out = append(out, fw)
	}
	return out
}

// forwarder moves the modules' streams to the event broker (ADR 0032);
// nil without one.
func forwarder(db *sqlx.DB, wake *messaging.Wakeup, broker *messaging.Broker, cfg config.Config, mods []server.Module, logger *slog.Logger) *messaging.Forwarder {
	if broker == nil {
		return nil
	}
	return messaging.NewForwarder(db, messaging.BusConfig{PollInterval: cfg.MessagePollInterval, Wakeup: wake, Partitions: cfg.Partitions()}, broker, server.Streams(mods), logger)
}

// sandboxLabelOutage is when a label outage of d from now ends; zero for
// none.
func sandboxLabelOutage(d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}
