package postgres

import (
	"errors"
	"time"
)

// Pool sizes an instance's connection pool. Zero values get the defaults of
// DefaultPool.
type Pool struct {
	// MaxConns bounds the connections open at once; a request that needs one
	// more waits for one to come free.
	MaxConns int
	// MaxIdleConns bounds the connections kept open while unused.
	MaxIdleConns int
	// ConnMaxLifetime closes a connection this old when it is next free.
	ConnMaxLifetime time.Duration
	// ConnMaxIdleTime closes a connection unused this long.
	ConnMaxIdleTime time.Duration
}

// DefaultPool lets three instances and a migration share a PostgreSQL of the
// default max_connections (100, of which 3 are kept for superusers) with
// more than 20 to spare.
var DefaultPool = Pool{MaxConns: 25, MaxIdleConns: 25, ConnMaxLifetime: 30 * time.Minute, ConnMaxIdleTime: 10 * time.Second}

// minConns is the least an instance can run on: its presence lock, an event
// subscriber's transaction and its handler's write, and one request.
const minConns = 4

func (p Pool) withDefaults() Pool {
	if p.MaxConns == 0 {
		p.MaxConns = DefaultPool.MaxConns
	}
	if p.MaxIdleConns == 0 {
		p.MaxIdleConns = min(p.MaxConns, DefaultPool.MaxIdleConns)
	}
	if p.ConnMaxLifetime == 0 {
		p.ConnMaxLifetime = DefaultPool.ConnMaxLifetime
	}
	if p.ConnMaxIdleTime == 0 {
		p.ConnMaxIdleTime = DefaultPool.ConnMaxIdleTime
	}
	return p
}

// Validate reports settings that cannot work.
func (p Pool) Validate() error {
	var errs []error
	if p.MaxConns != 0 && (p.MaxConns < minConns || p.MaxConns > 1000) {
		errs = append(errs, errors.New("DATABASE_MAX_CONNS must be from 4 to 1000"))
	}
	if p.MaxIdleConns < 0 || (p.MaxConns != 0 && p.MaxIdleConns > p.MaxConns) {
		errs = append(errs, errors.New("DATABASE_MAX_IDLE_CONNS must be from 0 to DATABASE_MAX_CONNS"))
	}
	if p.ConnMaxLifetime < 0 || p.ConnMaxIdleTime < 0 {
		errs = append(errs, errors.New("DATABASE_CONN_MAX_LIFETIME and DATABASE_CONN_MAX_IDLE_TIME must not be negative"))
	}
	return errors.Join(errs...)
}

// SubscriberTransactions is how many event subscriber transactions may be
// open at once in a pool of these settings: half of it, so the other half
// serves the subscribers' handlers, the API and the workers.
func (p Pool) SubscriberTransactions() int {
	return max(1, p.withDefaults().MaxConns/2)
}
