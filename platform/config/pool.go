package config

import (
	"errors"
	"fmt"

	"shipd/platform/postgres"
)

// listenerConns is what serve opens beside its pools: the connection that
// LISTENs for commits and wakes idle subscribers (messaging.Wakeup, ADR
// 0030). It counts against DATABASE_MAX_CONNS like every other (ADR 0029).
const listenerConns = 1

// platformShare is the part of DATABASE_MAX_CONNS the platform database's
// pool gets when this process's modules keep their data apart (ADR 0034):
// a quarter, at least one. Each request reads a key there (cached) and
// counts against its rate limit, one short query; the module database
// serves the request itself, the subscribers and the workers.
func platformShare(maxConns int) int { return max(1, maxConns/4) }

// maxConns is DATABASE_MAX_CONNS, or the default of a Config built in code.
func (c Config) maxConns() int {
	if c.DatabaseMaxConns == 0 {
		return postgres.DefaultPool.MaxConns
	}
	return c.DatabaseMaxConns
}

// DatabasePool is DATABASE_MAX_CONNS and its kin as one pool: what a
// subcommand that opens one database and no listener uses (migrate, keys,
// projections).
func (c Config) DatabasePool() postgres.Pool {
	p := postgres.Pool{MaxConns: c.maxConns(), ConnMaxLifetime: c.DatabaseConnMaxLifetime, ConnMaxIdleTime: c.DatabaseConnMaxIdleTime}
	p.MaxIdleConns = p.MaxConns
	if c.DatabaseMaxIdleConns != nil {
		p.MaxIdleConns = *c.DatabaseMaxIdleConns
	}
	return p.WithDefaults()
}

// ServePools shares DATABASE_MAX_CONNS among what serve opens, so that the
// bound is what the process holds in all, as pg_stat_activity counts it:
// the event listener's connection; when this process's modules keep their
// data apart, the platform database's pool (platformShare); and the module
// database's pool, the rest. platform is the zero Pool when the two
// databases are one.
func (c Config) ServePools() (module, platform postgres.Pool) {
	all := c.DatabasePool()
	rest := all.MaxConns - listenerConns
	if c.HasModuleDatabase() {
		share := platformShare(all.MaxConns)
		platform = all.Sized(share)
		rest -= share
	}
	return all.Sized(rest), platform
}

// minMaxConns is the least DATABASE_MAX_CONNS serve can run on, and what
// it is made of.
func (c Config) minMaxConns() (int, string) {
	least := postgres.MinInstanceConns + listenerConns
	if !c.HasModuleDatabase() {
		return least, fmt.Sprintf("a pool of %d and the event listener", postgres.MinInstanceConns)
	}
	// platformShare(n) is 1 for every n below 8.
	return least + 1, fmt.Sprintf("a pool of %d for the module database, 1 for the platform database and the event listener", postgres.MinInstanceConns)
}

// validatePool checks DATABASE_MAX_CONNS and its kin, naming them.
func (c Config) validatePool() []error {
	var errs []error
	least, parts := c.minMaxConns()
	if n := c.maxConns(); n < least || n > 1000 {
		errs = append(errs, fmt.Errorf("DATABASE_MAX_CONNS (%d) must be from %d to 1000: it bounds every connection the process opens (%s)", n, least, parts))
	}
	if idle := c.DatabaseMaxIdleConns; idle != nil && (*idle < 1 || *idle > c.maxConns()) {
		errs = append(errs, fmt.Errorf("DATABASE_MAX_IDLE_CONNS (%d) must be from 1 to DATABASE_MAX_CONNS (%d); unset, it is DATABASE_MAX_CONNS", *idle, c.maxConns()))
	}
	if c.DatabaseConnMaxLifetime < 0 || c.DatabaseConnMaxIdleTime < 0 {
		errs = append(errs, errors.New("DATABASE_CONN_MAX_LIFETIME and DATABASE_CONN_MAX_IDLE_TIME must not be negative"))
	}
	return errs
}
