package auth

import (
	"sync"
	"time"
)

// keyCacheTTL is how long a looked-up key is trusted without asking the
// database again. It is also the longest a revoked key keeps working on an
// instance that saw it just before (ADR 0013): a lookup per request was a
// fifth of the write path's database work.
const keyCacheTTL = 2 * time.Second

// keyCacheLimit bounds memory; past it the cache starts afresh.
const keyCacheLimit = 10_000

type cachedPrincipal struct {
	principal Principal
	expires   time.Time
}

// keyCache remembers principals of live keys by key hash.
type keyCache struct {
	mu      sync.Mutex
	entries map[string]cachedPrincipal
}

func (c *keyCache) get(hash []byte, now time.Time) (Principal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(hash)]
	if !ok || now.After(e.expires) {
		return Principal{}, false
	}
	return e.principal, true
}

func (c *keyCache) put(hash []byte, p Principal, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= keyCacheLimit {
		c.entries = map[string]cachedPrincipal{}
	}
	c.entries[string(hash)] = cachedPrincipal{principal: p, expires: now.Add(keyCacheTTL)}
}

// clear forgets everything: a key or account this instance changed is read
// afresh at once (other instances within keyCacheTTL).
func (c *keyCache) clear() {
	c.mu.Lock()
	c.entries = nil
	c.mu.Unlock()
}
