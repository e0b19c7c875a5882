package postgres

import (
	"errors"
	"time"
)

// Pool sizes a connection pool. Zero values get the defaults of
// DefaultPool.
type Pool struct {
	// MaxConns bounds the connections open at once; a request that needs one
	// more waits for one to come free.
	MaxConns int
	// MaxIdleConns bounds the connections kept open while unused; zero keeps
	// as many as MaxConns.
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

// MinInstanceConns is the least pool an instance's modules can run on: its
// presence lock, an event subscriber's transaction and its handler's
// write, and one request.
const MinInstanceConns = 4

func (p Pool) withDefaults() Pool {
	if p.MaxConns == 0 {
		p.MaxConns = DefaultPool.MaxConns
	}
	if p.MaxIdleConns == 0 {
		p.MaxIdleConns = p.MaxConns
	}
	if p.ConnMaxLifetime == 0 {
		p.ConnMaxLifetime = DefaultPool.ConnMaxLifetime
	}
	if p.ConnMaxIdleTime == 0 {
		p.ConnMaxIdleTime = DefaultPool.ConnMaxIdleTime
	}
	return p
}

// WithDefaults is p with DefaultPool's values where p has none.
func (p Pool) WithDefaults() Pool { return p.withDefaults() }

// Sized is p bounded to n connections, keeping at most as many idle.
func (p Pool) Sized(n int) Pool {
	p = p.withDefaults()
	p.MaxConns = n
	p.MaxIdleConns = min(p.MaxIdleConns, n)
	return p
}

// Validate reports settings no pool can work with. What an instance needs
// of DATABASE_MAX_CONNS and its kin is config.Validate's to say, in their
// names.
func (p Pool) Validate() error {
	var errs []error
	if p.MaxConns < 0 || p.MaxConns > 1000 {
		errs = append(errs, errors.New("a pool opens from 1 to 1000 connections"))
	}
	if p.MaxIdleConns < 0 || (p.MaxConns != 0 && p.MaxIdleConns > p.MaxConns) {
		errs = append(errs, errors.New("a pool keeps from 0 to its maximum connections idle"))
	}
	if p.ConnMaxLifetime < 0 || p.ConnMaxIdleTime < 0 {
		errs = append(errs, errors.New("a pool's connection lifetime and idle time must not be negative"))
	}
	return errors.Join(errs...)
}

// SubscriberTransactions is how many event subscriber transactions may be
// open at once in a pool of these settings: half of it, so the other half
// serves the subscribers' handlers, the API and the workers.
func (p Pool) SubscriberTransactions() int {
	return max(1, p.withDefaults().MaxConns/2)
}
