package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// ModuleNames are the bounded contexts a process can run (SHIPD_MODULES).
var ModuleNames = []string{"channels", "shipments", "tracking", "webhooks", "dispatch"}

// Runs reports whether this process runs the module: every module unless
// SHIPD_MODULES (or serve --modules) names some.
func (c Config) Runs(module string) bool {
	return len(c.Modules) == 0 || slices.Contains(c.Modules, module)
}

// RunsAllModules reports whether this process runs every module (the
// monolith).
func (c Config) RunsAllModules() bool {
	for _, m := range ModuleNames {
		if !c.Runs(m) {
			return false
		}
	}
	return true
}

// AsksChannelsRemotely reports whether this process runs a module that
// needs the channels module's facade without running the channels module
// itself: it asks the channels process at CHANNELS_URL (ADR 0033).
func (c Config) AsksChannelsRemotely() bool {
	return !c.Runs("channels") && (c.Runs("shipments") || c.Runs("tracking") || c.Runs("dispatch"))
}

// moduleDatabaseURL is the database a module keeps its data in: its own
// (<MODULE>_DATABASE_URL), or DATABASE_URL.
func (c Config) moduleDatabaseURL(module string) string {
	own := map[string]string{"channels": c.ChannelsDatabaseURL, "shipments": c.ShipmentsDatabaseURL,
		"tracking": c.TrackingDatabaseURL, "webhooks": c.WebhooksDatabaseURL, "dispatch": c.DispatchDatabaseURL}[module]
	if own != "" {
		return own
	}
	return c.DatabaseURL
}

// ModuleDatabaseURL is the database of the modules this process runs,
// which Validate makes sure is one: their tables, streams, consumer
// positions and idempotency keys. Empty means local mode, as DATABASE_URL.
func (c Config) ModuleDatabaseURL() string {
	for _, m := range ModuleNames {
		if c.Runs(m) {
			return c.moduleDatabaseURL(m)
		}
	}
	return c.DatabaseURL
}

// HasModuleDatabase reports whether this process's modules keep their data
// apart from the platform database (DATABASE_URL).
func (c Config) HasModuleDatabase() bool { return c.ModuleDatabaseURL() != c.DatabaseURL }

// validateModules checks SHIPD_MODULES and what a split process needs.
func (c Config) validateModules() []error {
	var errs []error
	var first string
	for _, m := range ModuleNames {
		if !c.Runs(m) {
			continue
		}
		if first == "" {
			first = m
		} else if c.moduleDatabaseURL(m) != c.moduleDatabaseURL(first) {
			errs = append(errs, fmt.Errorf("modules %s and %s keep their data in different databases (%s_DATABASE_URL); run them as separate processes (SHIPD_MODULES)",
				first, m, strings.ToUpper(m)))
			break
		}
	}
	if c.HasModuleDatabase() {
		if c.LocalMode() {
			errs = append(errs, errors.New("a module database (<MODULE>_DATABASE_URL) needs DATABASE_URL for the platform tables: local mode has one database"))
		}
		if c.EventBrokerURL == "" {
			errs = append(errs, errors.New("a module database (<MODULE>_DATABASE_URL) needs EVENT_BROKER_URL: the module's events reach the others through the broker"))
		}
	}
	for _, m := range c.Modules {
		if !slices.Contains(ModuleNames, m) {
			errs = append(errs, fmt.Errorf("SHIPD_MODULES: no module %q; the modules are %s", m, strings.Join(ModuleNames, ", ")))
		}
	}
	if c.InternalToken != "" && len(c.InternalToken) < 32 {
		errs = append(errs, errors.New("INTERNAL_TOKEN must be at least 32 characters"))
	}
	if c.ChannelsURL != "" {
		u, err := url.Parse(c.ChannelsURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("CHANNELS_URL must be an absolute http(s) URL"))
		}
	}
	if c.AsksChannelsRemotely() && (c.ChannelsURL == "" || c.InternalToken == "") {
		errs = append(errs, errors.New("CHANNELS_URL and INTERNAL_TOKEN are required when this process runs shipments, tracking or dispatch without channels: they ask the channels process for a channel's carrier settings"))
	}
	return errs
}
