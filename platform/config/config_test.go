package config_test

import (
	"cmp"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/platform/config"
	"shipd/platform/postgres"
)

const goodSecret = "0123456789abcdef0123456789abcdef"

// unsetEnv removes every variable Config reads for the duration of t
// (the test runner itself sets DATABASE_URL).
func unsetEnv(t *testing.T) {
	t.Helper()
	for _, st := range config.Settings() {
		k := st.Name
		t.Setenv(k, "") // restores the old value when t ends
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadDefaults(t *testing.T) {
	unsetEnv(t)
	cfg, err := config.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := config.Config{
		HTTPAddr:             "127.0.0.1:8080",
		SandboxTimeScale:     1,
		LogLevel:             "info",
		DataDir:              ".data",
		MessagePollInterval:  time.Second,
		WorkerPollInterval:   time.Second,
		ShutdownTimeout:      15 * time.Second,
		BookingConcurrency:   32,
		TrackingConcurrency:  4,
		CarrierTimeout:       30 * time.Second,
		WebhookConcurrency:   64,
		WebhookTimeout:       10 * time.Second,
		WebhookPurgeInterval: time.Hour,
		EventPartitions:      config.DefaultEventPartitions,
		// The pool's defaults are postgres.DefaultPool's (checked below).
		DatabaseMaxConns: 25,
		// DATABASE_MAX_IDLE_CONNS unset: as many as the pool may open.
		DatabaseConnMaxLifetime: 30 * time.Minute,
		DatabaseConnMaxIdleTime: 10 * time.Second,
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load() =\n %+v\nwant\n %+v", cfg, want)
	}
	if !cfg.LocalMode() {
		t.Error("no DATABASE_URL, yet LocalMode() = false")
	}
	if cfg.DatabasePool() != postgres.DefaultPool {
		t.Errorf("the environment's default pool %+v is not postgres.DefaultPool %+v", cfg.DatabasePool(), postgres.DefaultPool)
	}
}

func TestLoadReadsEnvironment(t *testing.T) {
	unsetEnv(t)
	t.Setenv("DATABASE_URL", "postgres://u@db/shipd")
	t.Setenv("SECRET_KEY", goodSecret)
	t.Setenv("HTTP_ADDR", ":9090")
	t.Setenv("PUBLIC_BASE_URL", "https://api.example.com")
	t.Setenv("WEBHOOK_ALLOW_PRIVATE_NETWORKS", "true")
	t.Setenv("SANDBOX_TIME_SCALE", "60")
	t.Setenv("LOG_LEVEL", "debug")
	t.Setenv("MESSAGE_POLL_INTERVAL", "5ms")

	cfg, err := config.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.DatabaseURL != "postgres://u@db/shipd" || cfg.SecretKey != goodSecret || cfg.HTTPAddr != ":9090" ||
		cfg.PublicBaseURL != "https://api.example.com" || !cfg.WebhookAllowPrivateNetworks ||
		cfg.SandboxTimeScale != 60 || cfg.LogLevel != "debug" || cfg.MessagePollInterval != 5*time.Millisecond {
		t.Errorf("Load() = %+v", cfg)
	}
	if cfg.LocalMode() {
		t.Error("DATABASE_URL set, yet LocalMode() = true")
	}
	if l, err := cfg.SlogLevel(); err != nil || l != slog.LevelDebug {
		t.Errorf("SlogLevel() = %v, %v", l, err)
	}
}

func TestLoadRejects(t *testing.T) {
	tests := map[string]map[string]string{
		"unparsable duration": {"MESSAGE_POLL_INTERVAL": "soon"},
		"unparsable scale":    {"SANDBOX_TIME_SCALE": "fast"},
		"invalid value":       {"LOG_LEVEL": "loud"},
	}
	for name, env := range tests {
		t.Run(name, func(t *testing.T) {
			unsetEnv(t)
			for k, v := range env {
				t.Setenv(k, v)
			}
			if _, err := config.Load(); err == nil {
				t.Fatalf("Load with %v succeeded", env)
			}
		})
	}
}

// valid is a configuration Validate accepts; each case breaks one thing.
func valid() config.Config {
	return config.Config{
		HTTPAddr:             "127.0.0.1:8080",
		SandboxTimeScale:     1,
		LogLevel:             "info",
		MessagePollInterval:  50 * time.Millisecond,
		WorkerPollInterval:   200 * time.Millisecond,
		CarrierTimeout:       30 * time.Second,
		WebhookTimeout:       10 * time.Second,
		WebhookPurgeInterval: time.Hour,
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*config.Config)
		wantErr string // "" means valid
	}{
		{"defaults", func(*config.Config) {}, ""},
		{"bound of 5", func(c *config.Config) { c.DatabaseMaxConns = 5; c.DatabaseMaxIdleConns = ptr(2) }, ""},
		{"bound too small for a pool and the listener", func(c *config.Config) { c.DatabaseMaxConns = 4 }, "DATABASE_MAX_CONNS (4) must be from 5"},
		{"bound too large", func(c *config.Config) { c.DatabaseMaxConns = 1001 }, "DATABASE_MAX_CONNS"},
		{"more idle than open", func(c *config.Config) { c.DatabaseMaxConns = 10; c.DatabaseMaxIdleConns = ptr(11) },
			"DATABASE_MAX_IDLE_CONNS (11) must be from 1 to DATABASE_MAX_CONNS (10)"},
		{"more idle than the default bound", func(c *config.Config) { c.DatabaseMaxIdleConns = ptr(26) }, "DATABASE_MAX_CONNS (25)"},
		{"no idle", func(c *config.Config) { c.DatabaseMaxIdleConns = ptr(0) }, "DATABASE_MAX_IDLE_CONNS (0)"},
		{"bound too small beside a module database", func(c *config.Config) {
			c.DatabaseURL, c.SecretKey, c.EventBrokerURL = "postgres://db/platform", goodSecret, "nats://nats:4222"
			c.Modules, c.WebhooksDatabaseURL, c.DatabaseMaxConns = []string{"webhooks"}, "postgres://db/webhooks", 5
		}, "DATABASE_MAX_CONNS (5) must be from 6"},
		{"bound of 6 beside a module database", func(c *config.Config) {
			c.DatabaseURL, c.SecretKey, c.EventBrokerURL = "postgres://db/platform", goodSecret, "nats://nats:4222"
			c.Modules, c.WebhooksDatabaseURL, c.DatabaseMaxConns = []string{"webhooks"}, "postgres://db/webhooks", 6
		}, ""},
		{"negative idle time", func(c *config.Config) { c.DatabaseConnMaxIdleTime = -time.Second }, "DATABASE_CONN_MAX_IDLE_TIME"},
		{"database with secret", func(c *config.Config) { c.DatabaseURL = "postgres://db"; c.SecretKey = goodSecret }, ""},
		{"warn level", func(c *config.Config) { c.LogLevel = "warn" }, ""},
		{"webhook timeout too long", func(c *config.Config) { c.WebhookTimeout = 2 * time.Minute }, "WEBHOOK_TIMEOUT"},
		{"negative webhook concurrency", func(c *config.Config) { c.WebhookConcurrency = -1 }, "WEBHOOK_CONCURRENCY"},
		{"zero purge interval", func(c *config.Config) { c.WebhookPurgeInterval = 0 }, "WEBHOOK_PURGE_INTERVAL"},
		{"http base URL", func(c *config.Config) { c.PublicBaseURL = "http://localhost:8080" }, ""},
		{"short secret", func(c *config.Config) { c.SecretKey = goodSecret[:31] }, "SECRET_KEY must be at least 32"},
		{"database without secret", func(c *config.Config) { c.DatabaseURL = "postgres://db" }, "SECRET_KEY is required"},
		{"base URL without scheme", func(c *config.Config) { c.PublicBaseURL = "api.example.com" }, "PUBLIC_BASE_URL"},
		{"base URL with other scheme", func(c *config.Config) { c.PublicBaseURL = "ftp://api.example.com" }, "PUBLIC_BASE_URL"},
		{"base URL without host", func(c *config.Config) { c.PublicBaseURL = "https://" }, "PUBLIC_BASE_URL"},
		{"trusted proxies", func(c *config.Config) { c.TrustedProxies = []string{"10.0.0.0/8", " 192.168.1.7", "::1", ""} }, ""},
		{"trusted proxy not an address", func(c *config.Config) { c.TrustedProxies = []string{"10.0.0.1", "proxy.local"} }, `TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR`},
		{"trusted proxy CIDR too long", func(c *config.Config) { c.TrustedProxies = []string{"10.0.0.0/33"} }, `TRUSTED_PROXIES: "10.0.0.0/33"`},
		{"test Allegro URL without scheme", func(c *config.Config) { c.TestAllegroURL = "127.0.0.1:9" }, "SHIPD_TEST_ALLEGRO_URL"},
		{"base URL unparsable", func(c *config.Config) { c.PublicBaseURL = "http://[::1" }, "PUBLIC_BASE_URL"},
		{"bad log level", func(c *config.Config) { c.LogLevel = "verbose" }, "LOG_LEVEL"},
		{"zero time scale", func(c *config.Config) { c.SandboxTimeScale = 0 }, "SANDBOX_TIME_SCALE"},
		{"negative time scale", func(c *config.Config) { c.SandboxTimeScale = -1 }, "SANDBOX_TIME_SCALE"},
		{"negative label outage", func(c *config.Config) { c.SandboxFailLabelsFor = -time.Second }, "SANDBOX_FAIL_LABELS_FOR"},
		{"zero message poll", func(c *config.Config) { c.MessagePollInterval = 0 }, "MESSAGE_POLL_INTERVAL"},
		{"one event partition", func(c *config.Config) { c.EventPartitions = 1 }, ""},
		{"negative event partitions", func(c *config.Config) { c.EventPartitions = -1 }, "EVENT_PARTITIONS"},
		{"too many event partitions", func(c *config.Config) { c.EventPartitions = 65 }, "EVENT_PARTITIONS"},
		{"negative worker poll", func(c *config.Config) { c.WorkerPollInterval = -time.Second }, "WORKER_POLL_INTERVAL"},
		{"zero carrier timeout", func(c *config.Config) { c.CarrierTimeout = 0 }, "CARRIER_TIMEOUT"},
		{"event broker", func(c *config.Config) { c.EventBrokerURL = "nats://127.0.0.1:4222" }, ""},
		{"event broker over TLS", func(c *config.Config) { c.EventBrokerURL = "tls://nats.example.test:4222" }, ""},
		{"event broker without scheme", func(c *config.Config) { c.EventBrokerURL = "localhost:4222" }, "EVENT_BROKER_URL"},
		{"event broker over HTTP", func(c *config.Config) { c.EventBrokerURL = "http://localhost:4222" }, "EVENT_BROKER_URL"},
		{"event broker without host", func(c *config.Config) { c.EventBrokerURL = "nats://" }, "EVENT_BROKER_URL"},
		{"event broker unparsable", func(c *config.Config) { c.EventBrokerURL = "nats://[::1" }, "EVENT_BROKER_URL"},
		{"carrier timeout past the leases", func(c *config.Config) { c.CarrierTimeout = 2 * time.Minute }, "CARRIER_TIMEOUT"},
		{"negative tracking concurrency", func(c *config.Config) { c.TrackingConcurrency = -1 }, "TRACKING_CONCURRENCY"},
		{"one module", func(c *config.Config) { c.Modules = []string{"webhooks"} }, ""},
		{"channels and shipments", func(c *config.Config) { c.Modules = []string{"channels", "shipments"} }, ""},
		{"no such module", func(c *config.Config) { c.Modules = []string{"shipment"} }, `no module "shipment"`},
		{"shipments without channels or their address", func(c *config.Config) { c.Modules = []string{"shipments"} }, "CHANNELS_URL and INTERNAL_TOKEN"},
		{"tracking without the internal token", func(c *config.Config) {
			c.Modules, c.ChannelsURL = []string{"tracking"}, "http://channels:8081"
		}, "CHANNELS_URL and INTERNAL_TOKEN"},
		{"shipments asking channels", func(c *config.Config) {
			c.Modules, c.ChannelsURL, c.InternalToken = []string{"shipments"}, "http://channels:8081", goodSecret
		}, ""},
		{"channels URL without scheme", func(c *config.Config) { c.ChannelsURL = "channels:8081" }, "CHANNELS_URL"},
		{"short internal token", func(c *config.Config) { c.InternalToken = "short" }, "INTERNAL_TOKEN must be at least 32"},
		{"a module database", func(c *config.Config) {
			c.DatabaseURL, c.SecretKey, c.EventBrokerURL = "postgres://db/platform", goodSecret, "nats://nats:4222"
			c.Modules, c.ShipmentsDatabaseURL = []string{"shipments", "channels"}, "postgres://db/shipments"
		}, "modules channels and shipments keep their data in different databases"},
		{"a module database on its own", func(c *config.Config) {
			c.DatabaseURL, c.SecretKey, c.EventBrokerURL = "postgres://db/platform", goodSecret, "nats://nats:4222"
			c.Modules, c.WebhooksDatabaseURL = []string{"webhooks"}, "postgres://db/webhooks"
		}, ""},
		{"a module database without the broker", func(c *config.Config) {
			c.DatabaseURL, c.SecretKey = "postgres://db/platform", goodSecret
			c.Modules, c.WebhooksDatabaseURL = []string{"webhooks"}, "postgres://db/webhooks"
		}, "needs EVENT_BROKER_URL"},
		{"a module database in local mode", func(c *config.Config) {
			c.EventBrokerURL = "nats://nats:4222"
			c.Modules, c.WebhooksDatabaseURL = []string{"webhooks"}, "postgres://db/webhooks"
		}, "needs DATABASE_URL"},
		{"a module database another process uses", func(c *config.Config) {
			c.Modules, c.WebhooksDatabaseURL = []string{"channels"}, "postgres://db/webhooks"
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid()
			tt.change(&cfg)
			err := cfg.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("Validate() = nil, want an error mentioning %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("Validate() = %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// DATABASE_MAX_CONNS set alone works: the idle bound follows it. A pair
// that contradicts itself is refused naming both.
func TestMaxConnsAlone(t *testing.T) {
	unsetEnv(t)
	t.Setenv("DATABASE_MAX_CONNS", "6")
	cfg, err := config.Load()
	if err != nil {
		t.Fatalf("DATABASE_MAX_CONNS=6 alone: %v", err)
	}
	if p := cfg.DatabasePool(); p.MaxConns != 6 || p.MaxIdleConns != 6 {
		t.Errorf("DatabasePool() = %+v, want 6 open and 6 idle at most", p)
	}

	t.Setenv("DATABASE_MAX_IDLE_CONNS", "7")
	_, err = config.Load()
	if err == nil || !strings.Contains(err.Error(), "DATABASE_MAX_IDLE_CONNS (7)") || !strings.Contains(err.Error(), "DATABASE_MAX_CONNS (6)") {
		t.Errorf("DATABASE_MAX_CONNS=6 DATABASE_MAX_IDLE_CONNS=7: %v, want a refusal naming both", err)
	}
	t.Setenv("DATABASE_MAX_IDLE_CONNS", "2")
	cfg, err = config.Load()
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.DatabasePool(); p.MaxIdleConns != 2 {
		t.Errorf("DatabasePool() = %+v, want 2 idle at most", p)
	}
}

// serve's pools and its listener add up to DATABASE_MAX_CONNS, in one
// database or two (ADR 0029).
func TestServePoolsShareTheBound(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		maxConns             int
		moduleDatabase       bool
		wantModule, wantPlat int
	}{
		{"default, one database", 0, false, 24, 0},
		{"6, one database", 6, false, 5, 0},
		{"6, a module database", 6, true, 4, 1},
		{"25, a module database", 25, true, 18, 6},
		{"100, a module database", 100, true, 74, 25},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid()
			cfg.DatabaseMaxConns = tt.maxConns
			cfg.DatabaseMaxIdleConns = ptr(3)
			if tt.moduleDatabase {
				cfg.DatabaseURL, cfg.SecretKey, cfg.EventBrokerURL = "postgres://db/platform", goodSecret, "nats://nats:4222"
				cfg.Modules, cfg.TrackingDatabaseURL, cfg.ChannelsURL, cfg.InternalToken = []string{"tracking"}, "postgres://db/tracking", "http://channels", goodSecret
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			module, platform := cfg.ServePools()
			if module.MaxConns != tt.wantModule || platform.MaxConns != tt.wantPlat {
				t.Errorf("ServePools() = module %d, platform %d; want %d and %d", module.MaxConns, platform.MaxConns, tt.wantModule, tt.wantPlat)
			}
			bound := cmp.Or(tt.maxConns, 25)
			if module.MaxConns+platform.MaxConns+1 != bound {
				t.Errorf("module %d + platform %d + the listener = %d, want DATABASE_MAX_CONNS %d", module.MaxConns, platform.MaxConns,
					module.MaxConns+platform.MaxConns+1, bound)
			}
			if module.MaxIdleConns != 3 || (tt.moduleDatabase && platform.MaxIdleConns != min(3, tt.wantPlat)) {
				t.Errorf("idle bounds: module %d, platform %d; want DATABASE_MAX_IDLE_CONNS (3) or the pool's size", module.MaxIdleConns, platform.MaxIdleConns)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	cfg := valid()
	cfg.SecretKey = "short"
	cfg.LogLevel = "loud"
	cfg.SandboxTimeScale = 0
	err := cfg.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	for _, want := range []string{"SECRET_KEY", "LOG_LEVEL", "SANDBOX_TIME_SCALE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %q, does not mention %s", err, want)
		}
	}
}

// TRUSTED_PROXIES reads as prefixes: an address is one host, a CIDR its
// network, an IPv4-mapped IPv6 address the IPv4 host it is.
func TestTrustedProxyPrefixes(t *testing.T) {
	c := config.Config{TrustedProxies: []string{"10.1.2.3/8", "192.168.1.7", "::ffff:172.16.0.1", "fd00::/64"}}
	got, err := c.TrustedProxyPrefixes()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.168.1.7/32", "172.16.0.1/32", "fd00::/64"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("entry %d: got %s, want %s", i, got[i], want[i])
		}
	}
}
