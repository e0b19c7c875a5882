package server

import (
	"context"
	"time"
)

// GiveBackFor is how long a worker keeps trying to give a claim back after a
// failure, well inside every lease, so it never frees a claim that expired
// and was taken by another instance meanwhile.
const GiveBackFor = 30 * time.Second

// KeepTrying calls fn every second until it succeeds, ctx ends or within
// has passed, and returns fn's last error. A worker whose item failed
// because the database was down uses it to give the item back: that fails
// too until PostgreSQL is back, and giving up at once would strand the item
// until its lease runs out (found by the fault suite, make faults).
func KeepTrying(ctx context.Context, within time.Duration, fn func() error) error {
	giveUp := time.Now().Add(within)
	for {
		err := fn()
		if err == nil || ctx.Err() != nil || time.Now().After(giveUp) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}
