// Package clock lets time be injected: production code asks a Clock, tests
// and demos move a Manual clock instead of sleeping.
package clock

import (
	"sync"
	"time"
)

// Clock tells the current time.
type Clock interface {
	Now() time.Time
}

// Real is the wall clock, in UTC, to whole seconds: every time the service
// stores is one the API shows, and the API shows whole seconds.
type Real struct{}

// Now returns the current UTC time, truncated to the second.
func (Real) Now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// Manual is a clock that moves only when told to.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a Manual clock set to start.
func NewManual(start time.Time) *Manual { return &Manual{now: start.UTC()} }

// Now returns the clock's current time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock forward by d.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	m.mu.Unlock()
}

// Set moves the clock to t.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	m.now = t.UTC()
	m.mu.Unlock()
}
