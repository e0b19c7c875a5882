package apptest

import (
	"errors"
	"net/url"
	"os"
	"testing"

	"shipd/platform/config"
	"shipd/platform/messaging/natstest"
)

// Split reports whether the tests run against the split topology
// (SHIPD_TOPOLOGY=split, `make test-split`): each module its own process,
// NATS JetStream as the backbone, nginx in front (ADR 0033). Otherwise an
// Env is one shipd running every module on PostgreSQL alone.
func Split() bool { return os.Getenv("SHIPD_TOPOLOGY") == "split" }

// SkipInSplit skips a test that cannot hold in the split topology, saying
// why.
func SkipInSplit(t testing.TB, why string) {
	t.Helper()
	if Split() {
		t.Skip("not in the split topology: " + why)
	}
}

// startSplit starts a nats-server with JetStream, a process per module
// reading its streams from there, the shipments and tracking processes
// asking the channels process for channels, and nginx routing
// deploy/nginx/shipd.conf to them. The returned Instance is the proxy; its
// Stop stops every process.
func (e *Env) startSplit() *Instance {
	e.t.Helper()
	nats := natstest.Start(e.t)
	e.Config.EventBrokerURL = nats.URL
	e.Config.InternalToken = "apptest-internal-token-0123456789abcdef"
	processes := map[string]*Instance{}
	start := func(module string) {
		cfg := e.Config
		cfg.Modules = []string{module}
		processes[module] = e.startInstanceWith(cfg)
	}
	start("channels") // the others ask it for channels
	e.Config.ChannelsURL = processes["channels"].URL
	for _, m := range config.ModuleNames[1:] {
		start(m)
	}
	upstreams := map[string]string{}
	for m, in := range processes {
		u, err := url.Parse(in.URL)
		if err != nil {
			e.t.Fatal(err)
		}
		upstreams[m] = u.Host
	}
	proxy := startProxy(e.t, upstreams)
	return &Instance{URL: proxy, env: e, stop: func() error {
		var errs []error
		for _, in := range processes {
			errs = append(errs, in.Stop())
		}
		return errors.Join(errs...)
	}}
}
