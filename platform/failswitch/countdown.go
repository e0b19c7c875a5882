// Package failswitch holds the switches tests fail their fakes by (a
// carrier's fake, a label merger) without a lock of their own.
package failswitch

import "sync"

// Countdown is a fake's switch that makes the next n of some answers fail
// (e.g. the labels a carrier's printing, down, does not give): armed with
// n, its next n Takes are true and the rest false. Its zero value is
// disarmed; it is safe for concurrent use, with or without the fake's own
// lock held.
type Countdown struct {
	mu sync.Mutex
	n  int
}

// Arm makes the next n Takes true (0 disarms).
func (c *Countdown) Arm(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = n
}

// Take reports whether this answer is to fail, using up one if so.
func (c *Countdown) Take() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return false
	}
	c.n--
	return true
}
