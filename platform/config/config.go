// Package config reads the service's settings from the environment, the same
// way for every shipd subcommand.
package config

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"time"

	"github.com/caarlos0/env/v11"
)

// Config is everything shipd reads from its environment.
type Config struct {
	// DatabaseURL empty means local mode: shipd runs its own cluster under DataDir.
	DatabaseURL string `env:"DATABASE_URL" help:"PostgreSQL connection URL" unset:"a local cluster under SHIPD_DATA_DIR/postgres"`
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:"127.0.0.1:8080" help:"listen address of serve"`
	// SecretKey derives the key that encrypts secret settings at rest.
	SecretKey     string `env:"SECRET_KEY" help:"at least 32 characters; encrypts secret settings at rest" unset:"local mode generates one into SHIPD_DATA_DIR; required with DATABASE_URL"`
	PublicBaseURL string `env:"PUBLIC_BASE_URL" help:"absolute base of meta.path and links in answers; https makes cookies Secure always" unset:"the address the connection came to (never the Host header)"`
	// TrustedProxies are the peers whose X-Forwarded-For and
	// X-Forwarded-Proto shipd believes (ADR 0045); from anyone else those
	// headers are ignored.
	TrustedProxies []string `env:"TRUSTED_PROXIES" envSeparator:"," help:"comma-separated addresses or CIDRs of proxies whose X-Forwarded-For and X-Forwarded-Proto are believed" unset:"none: the connection's own address and TLS"`
	// WebhookAllowPrivateNetworks lets deliveries reach loopback and private addresses.
	WebhookAllowPrivateNetworks bool    `env:"WEBHOOK_ALLOW_PRIVATE_NETWORKS" envDefault:"false" help:"let webhooks reach loopback and private addresses (local receivers, tests)"`
	SandboxTimeScale            float64 `env:"SANDBOX_TIME_SCALE" envDefault:"1" help:"sandbox carrier seconds per real second"`
	// SandboxJournal is a file where the sandbox carrier keeps its
	// bookings, so they outlive a restart and every process sharing the
	// file sees them.
	SandboxJournal string `env:"SANDBOX_JOURNAL" help:"a file where the sandbox carrier keeps its bookings, pickup orders and cancels, so they outlive a restart and every instance sharing it sees them" unset:"in memory only"`
	// SandboxFailLabelsFor makes the sandbox's label service fail for this
	// long after the start (the fault suite's label outage).
	SandboxFailLabelsFor time.Duration `env:"SANDBOX_FAIL_LABELS_FOR" envDefault:"0s" help:"the sandbox's label service fails for this long after the start, for trying the label step (0s never)"`
	LogLevel             string        `env:"LOG_LEVEL" envDefault:"info" help:"debug, info, warn or error (JSON logs on standard error)"`
	// DataDir holds the local cluster and the generated secret key in local mode.
	DataDir string `env:"SHIPD_DATA_DIR" envDefault:".data" help:"where local mode keeps its cluster and secret key"`
	// DatabaseMaxConns bounds every connection an instance opens to
	// PostgreSQL, its pools and its event listener together, in all its
	// databases (ServePools). The default lets three instances and a
	// migration share a PostgreSQL of the default max_connections (100)
	// with room to spare; idle connections close after
	// DATABASE_CONN_MAX_IDLE_TIME, so an idle instance keeps only the few
	// its pollers use.
	DatabaseMaxConns int `env:"DATABASE_MAX_CONNS" envDefault:"25" help:"connections one instance opens to PostgreSQL in all, pools and event listener together (5-1000; 6 with a module database)"`
	// DatabaseMaxIdleConns unset keeps as many idle as a pool may open, so
	// DATABASE_MAX_CONNS can be set alone.
	DatabaseMaxIdleConns    *int          `env:"DATABASE_MAX_IDLE_CONNS" help:"connections kept open while unused (1 to DATABASE_MAX_CONNS)" unset:"DATABASE_MAX_CONNS"`
	DatabaseConnMaxLifetime time.Duration `env:"DATABASE_CONN_MAX_LIFETIME" envDefault:"30m" help:"a connection this old is closed when next free"`
	DatabaseConnMaxIdleTime time.Duration `env:"DATABASE_CONN_MAX_IDLE_TIME" envDefault:"10s" help:"a connection unused this long is closed"`
	// EventBrokerURL, when set, is a NATS server with JetStream
	// (nats://host:port) that every module stream is forwarded to from its
	// PostgreSQL outbox (ADR 0032). Unset, events stay on PostgreSQL.
	EventBrokerURL string `env:"EVENT_BROKER_URL" help:"a NATS server with JetStream (nats://host:port) the module streams are forwarded to" unset:"events stay on PostgreSQL"`
	// Modules are the modules this process runs (SHIPD_MODULES, or serve
	// --modules): their routes, handlers and workers. Empty runs them all.
	Modules []string `env:"SHIPD_MODULES" envSeparator:"," help:"comma-separated modules this process runs (channels, shipments, tracking, webhooks, dispatch); serve --modules says the same" unset:"all five"`
	// ChannelsURL is where a process that runs shipments or tracking
	// without channels asks the channels process for a channel (its
	// internal route, authenticated by InternalToken; ADR 0033).
	ChannelsURL string `env:"CHANNELS_URL" help:"where a process running shipments or tracking without channels asks the channels process for a channel" unset:"required in such a process"`
	// InternalToken authenticates calls between shipd processes on
	// /internal/; unset, no process serves /internal/.
	InternalToken string `env:"INTERNAL_TOKEN" help:"at least 32 characters; authenticates calls between shipd processes on /internal/" unset:"no /internal/"`
	// The module databases: a module given one keeps its tables, its
	// stream and its consumers' positions there, apart from DATABASE_URL,
	// which keeps the platform tables every process shares (ADR 0034).
	ChannelsDatabaseURL  string `env:"CHANNELS_DATABASE_URL" help:"a database of the channels module's own (needs EVENT_BROKER_URL)" unset:"DATABASE_URL"`
	ShipmentsDatabaseURL string `env:"SHIPMENTS_DATABASE_URL" help:"a database of the shipments module's own (needs EVENT_BROKER_URL)" unset:"DATABASE_URL"`
	TrackingDatabaseURL  string `env:"TRACKING_DATABASE_URL" help:"a database of the tracking module's own (needs EVENT_BROKER_URL)" unset:"DATABASE_URL"`
	WebhooksDatabaseURL  string `env:"WEBHOOKS_DATABASE_URL" help:"a database of the webhooks module's own (needs EVENT_BROKER_URL)" unset:"DATABASE_URL"`
	DispatchDatabaseURL  string `env:"DISPATCH_DATABASE_URL" help:"a database of the dispatch module's own (needs EVENT_BROKER_URL)" unset:"DATABASE_URL"`
	// MessagePollInterval is how long an idle event subscriber waits for a
	// commit on its stream to be notified before it asks PostgreSQL anyway:
	// the safety net under LISTEN/NOTIFY, not what read models trail by.
	MessagePollInterval time.Duration `env:"MESSAGE_POLL_INTERVAL" envDefault:"1s" help:"how long an idle event subscriber waits for a notified commit before it asks anyway"`
	// EventPartitions is how many partitions every consumer group reads its
	// stream in, by aggregate: each partition is a reader of its own, so
	// instances share a group's work (ADR 0050). Every instance must run
	// the same number; to change it, stop the writes, let every group
	// drain, and restart every instance with the new one.
	EventPartitions int `env:"EVENT_PARTITIONS" envDefault:"1" help:"partitions each event consumer group reads its stream in, by aggregate, so instances share its work (1-64; the same in every instance; change it only after every group drained)"`
	// WorkerPollInterval is how often outbound workers look for due work
	// when no signal of new work came (new bookings and deliveries signal).
	WorkerPollInterval time.Duration `env:"WORKER_POLL_INTERVAL" envDefault:"1s" help:"how often an idle worker looks for due bookings, checks and deliveries"`
	// BookingConcurrency is how many carrier bookings one instance runs at
	// once; 0 leaves booking to other instances (an API-only instance). A
	// booking mostly waits (the carrier, its commits), so it takes many in
	// flight to keep up: with 8 the bookings fell minutes behind at 200
	// writes/s on the bench's 2 cores (issue 32). A booking holds a
	// database connection only for its short transactions.
	BookingConcurrency int `env:"BOOKING_CONCURRENCY" envDefault:"32" help:"carrier bookings in flight per instance (0: this instance books nothing)"`
	// CarrierTimeout bounds one call to a carrier (a booking, a tracking
	// check, a pickup order, a manifest); a carrier slower than that counts
	// as unavailable. A pickup or manifest a stopped process left half-way
	// is settled once twice this has passed (the fault suite shortens it).
	CarrierTimeout time.Duration `env:"CARRIER_TIMEOUT" envDefault:"30s" help:"longest wait for one carrier call; at most 1m"`
	// TrackingConcurrency is how many tracking checks one instance runs at
	// once; 0 leaves checking to other instances. 4 keeps the list read
	// model current while a burst of checks against the instant sandbox runs
	// on two cores (make bench); slow real carriers allow more.
	TrackingConcurrency int `env:"TRACKING_CONCURRENCY" envDefault:"4" help:"tracking checks in flight per instance (0: this instance checks nothing)"`
	// WebhookConcurrency is how many webhook deliveries one instance sends at
	// once; 0 leaves delivering to other instances. Receivers are slow
	// (tens to hundreds of ms) and attempts are recorded in group commits,
	// so many in flight cost little.
	WebhookConcurrency int `env:"WEBHOOK_CONCURRENCY" envDefault:"64" help:"webhook attempts in flight per instance (0: this instance delivers nothing)"`
	// WebhookTimeout bounds one delivery attempt (connect, send, answer).
	WebhookTimeout time.Duration `env:"WEBHOOK_TIMEOUT" envDefault:"10s" help:"longest wait for one delivery attempt; at most 1m"`
	// WebhookPurgeInterval is how often delivery logs older than 30 days
	// are deleted.
	WebhookPurgeInterval time.Duration `env:"WEBHOOK_PURGE_INTERVAL" envDefault:"1h" help:"how often delivery logs older than 30 days are purged"`
	// ShutdownTimeout bounds the graceful shutdown of serve.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"15s" help:"graceful shutdown limit"`
	// TestClockFile, for fault tests only, makes serve's clock the real one
	// plus an offset read from this file (clock.FromFile), so a test can
	// move a running instance through hours of retries in seconds.
	TestClockFile string `env:"SHIPD_TEST_CLOCK_FILE" help:"fault tests only: serve's clock is the wall clock plus the duration in this file" unset:"the wall clock"`
	// TestFailpoint, for fault tests only, arms a failpoint
	// (platform/failpoint): "name=share" kills the process at that point.
	TestFailpoint string `env:"SHIPD_TEST_FAILPOINT" help:"fault tests only: name=share kills the process at that failpoint in that share of passes" unset:"nothing armed"`
	// TestAllegroURL, for process tests only, sends every call of the
	// Allegro adapter (its REST and OAuth hosts, sandbox and production)
	// to this URL: a vendor-shaped fake on loopback.
	TestAllegroURL string `env:"SHIPD_TEST_ALLEGRO_URL" help:"process tests only: every call of the Allegro adapter goes to this URL (a fake on loopback)" unset:"Allegro's own hosts"`
	// LogWriter receives the JSON log; nil means standard error. Tests set it
	// to read what the service logs.
	LogWriter io.Writer `env:"-"`
}

// Load reads the environment and checks the result.
func Load() (Config, error) {
	cfg, err := env.ParseAs[Config]()
	if err != nil {
		return Config{}, fmt.Errorf("reading environment: %w", err)
	}
	return cfg, cfg.Validate()
}

// LocalMode reports whether shipd manages its own PostgreSQL cluster.
func (c Config) LocalMode() bool { return c.DatabaseURL == "" }

// DefaultEventPartitions is EVENT_PARTITIONS' default, and what a Config
// built in code without it runs.
// One until the read models keep creation order across partitions: with
// more, the shipment list numbers rows in the order its partitions' readers
// see them (ADR 0015), and a partition that waited for a subscriber slot
// under load listed a shipment seconds older as the newest (ADR 0050).
const DefaultEventPartitions = 1

// Partitions is EVENT_PARTITIONS, or its default for a Config built in
// code.
func (c Config) Partitions() int {
	if c.EventPartitions == 0 {
		return DefaultEventPartitions
	}
	return c.EventPartitions
}

// Validate checks values a typo could make dangerous or useless.
func (c Config) Validate() error {
	var errs []error
	if c.SecretKey != "" && len(c.SecretKey) < 32 {
		errs = append(errs, errors.New("SECRET_KEY must be at least 32 characters"))
	}
	if !c.LocalMode() && c.SecretKey == "" {
		errs = append(errs, errors.New("SECRET_KEY is required when DATABASE_URL is set (only local mode generates one)"))
	}
	if c.PublicBaseURL != "" {
		u, err := url.Parse(c.PublicBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("PUBLIC_BASE_URL must be an absolute http(s) URL"))
		}
	}
	if _, err := c.TrustedProxyPrefixes(); err != nil {
		errs = append(errs, err)
	}
	if c.TestAllegroURL != "" {
		u, err := url.Parse(c.TestAllegroURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("SHIPD_TEST_ALLEGRO_URL must be an absolute http(s) URL"))
		}
	}
	if c.SandboxTimeScale <= 0 {
		errs = append(errs, errors.New("SANDBOX_TIME_SCALE must be greater than 0"))
	}
	if c.SandboxFailLabelsFor < 0 {
		errs = append(errs, errors.New("SANDBOX_FAIL_LABELS_FOR must not be negative"))
	}
	if _, err := c.SlogLevel(); err != nil {
		errs = append(errs, err)
	}
	if c.BookingConcurrency < 0 || c.BookingConcurrency > 1000 {
		errs = append(errs, errors.New("BOOKING_CONCURRENCY must be from 0 to 1000"))
	}
	if c.CarrierTimeout <= 0 || c.CarrierTimeout > time.Minute {
		errs = append(errs, errors.New("CARRIER_TIMEOUT must be more than 0 and at most 1m (the work leases outlast it)"))
	}
	if c.TrackingConcurrency < 0 || c.TrackingConcurrency > 1000 {
		errs = append(errs, errors.New("TRACKING_CONCURRENCY must be from 0 to 1000"))
	}
	if c.WebhookConcurrency < 0 || c.WebhookConcurrency > 1000 {
		errs = append(errs, errors.New("WEBHOOK_CONCURRENCY must be from 0 to 1000"))
	}
	if c.WebhookTimeout <= 0 || c.WebhookTimeout > time.Minute {
		errs = append(errs, errors.New("WEBHOOK_TIMEOUT must be more than 0 and at most 1m (the delivery lease outlasts it)"))
	}
	if c.WebhookPurgeInterval <= 0 {
		errs = append(errs, errors.New("WEBHOOK_PURGE_INTERVAL must be positive"))
	}
	if c.MessagePollInterval <= 0 || c.WorkerPollInterval <= 0 {
		errs = append(errs, errors.New("MESSAGE_POLL_INTERVAL and WORKER_POLL_INTERVAL must be positive"))
	}
	if c.EventPartitions < 0 || c.EventPartitions > 64 {
		errs = append(errs, errors.New("EVENT_PARTITIONS must be from 1 to 64"))
	}
	errs = append(errs, c.validatePool()...)
	errs = append(errs, c.validateModules()...)
	if c.EventBrokerURL != "" {
		if err := validateBrokerURL(c.EventBrokerURL); err != nil {
			errs = append(errs, fmt.Errorf("EVENT_BROKER_URL: %w", err))
		}
	}
	return errors.Join(errs...)
}

// SlogLevel turns LOG_LEVEL into a slog level.
func (c Config) SlogLevel() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("LOG_LEVEL %q: use debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// validateBrokerURL says what is wrong with an event broker's URL, or nil.
func validateBrokerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	if u.Scheme != "nats" && u.Scheme != "tls" {
		return fmt.Errorf("the scheme is %q; a NATS server is nats://host:port (or tls://host:port)", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("no host: a NATS server is nats://host:port")
	}
	return nil
}
