package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// ClaimLoop is the shape of every outbound worker: claim due work (a short
// transaction that leases rows), then do each item outside any transaction,
// at most Concurrency at once. A slow item holds one slot, nothing else.
//
// Work is claimed a slot-load at a time into a queue of twice Concurrency,
// not one item per freed slot: one claiming goroutine asking for a single
// row each time an item finished capped webhook deliveries at about 900/s
// (the claims ran back to back). Queued items hold their leases a moment
// longer; at shutdown they, like the items in flight, are left to expire.
type ClaimLoop[T any] struct {
	// Name names the loop in logs.
	Name string
	// Every is how often the loop asks for due work when it found none.
	Every time.Duration
	// Concurrency is how many items run at once; 0 leaves the work to other
	// instances.
	Concurrency int
	// Claim leases up to limit due items.
	Claim func(ctx context.Context, limit int) ([]T, error)
	// Do handles one item; it records its own outcome.
	Do func(ctx context.Context, item T)
}

// Run claims and does work until ctx ends. Items queued or in flight then
// see their context end; their leases expire and another instance takes them.
func (l ClaimLoop[T]) Run(ctx context.Context) error {
	if l.Concurrency == 0 {
		<-ctx.Done()
		return nil
	}
	queue := make(chan T, 2*l.Concurrency)
	taken := make(chan struct{}, 1) // a slot took an item: the queue has room
	var wg sync.WaitGroup
	defer wg.Wait()
	for range l.Concurrency {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case item := <-queue:
					select {
					case taken <- struct{}{}:
					default:
					}
					l.Do(ctx, item)
				}
			}
		})
	}
	t := time.NewTicker(l.Every)
	defer t.Stop()
	for {
		dry := false // nothing more is due now
		if room := cap(queue) - len(queue); room >= l.Concurrency {
			items, err := l.Claim(ctx, room)
			if err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "claiming work", "worker", l.Name, "err", err)
			}
			for _, item := range items {
				queue <- item // only this goroutine adds, so there is room
			}
			dry = len(items) < room
		}
		wake := (<-chan time.Time)(nil)
		if dry {
			wake = t.C
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-taken:
			if dry {
				// Room grew, but nothing was due a moment ago: wait for the tick.
				select {
				case <-ctx.Done():
					return nil
				case <-t.C:
				}
			}
		}
	}
}
