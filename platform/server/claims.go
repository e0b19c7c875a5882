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
type ClaimLoop[T any] struct {
	// Name names the loop in logs.
	Name string
	// Every is how often the loop asks for due work.
	Every time.Duration
	// Concurrency is how many items run at once; 0 leaves the work to other
	// instances.
	Concurrency int
	// Claim leases up to limit due items.
	Claim func(ctx context.Context, limit int) ([]T, error)
	// Do handles one item; it records its own outcome.
	Do func(ctx context.Context, item T)
}

// Run claims and does work until ctx ends. Items in flight then see their
// context end; their leases expire and another instance takes them.
func (l ClaimLoop[T]) Run(ctx context.Context) error {
	if l.Concurrency == 0 {
		<-ctx.Done()
		return nil
	}
	slots := make(chan struct{}, l.Concurrency)
	freed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(l.Every)
	defer t.Stop()
	for {
		busy := false // every slot is taken: more may be due
		if free := l.Concurrency - len(slots); free > 0 {
			items, err := l.Claim(ctx, free)
			if err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "claiming work", "worker", l.Name, "err", err)
			}
			for _, item := range items {
				slots <- struct{}{}
				wg.Go(func() {
					defer func() {
						<-slots
						select {
						case freed <- struct{}{}:
						default:
						}
					}()
					l.Do(ctx, item)
				})
			}
			busy = len(items) == free
		} else {
			busy = true
		}
		if busy {
			select { // claim again as soon as a slot frees
			case <-ctx.Done():
				return nil
			case <-freed:
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
