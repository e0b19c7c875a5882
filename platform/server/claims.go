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
// (the claims ran back to back).
//
// At shutdown the loop stops claiming, items in flight get Drain to finish,
// and the items still queued are handed to Release, so another instance
// takes them at once instead of when their leases run out.
type ClaimLoop[T any] struct {
	// Name names the loop in logs.
	Name string
	// Every is how often the loop asks for due work when it found none and
	// no signal came: the safety net under Due.
	Every time.Duration
	// Due, when set, returns a channel closed when new work is signalled
	// (a Wakeup's Next), so an idle loop claims at once rather than at its
	// next tick.
	Due func() <-chan struct{}
	// Concurrency is how many items run at once; 0 leaves the work to other
	// instances.
	Concurrency int
	// Claim leases up to limit due items.
	Claim func(ctx context.Context, limit int) ([]T, error)
	// Do handles one item; it records its own outcome.
	Do func(ctx context.Context, item T)
	// Release gives back the leases of items claimed but never started.
	// Optional: without it they wait for their leases to run out.
	Release func(ctx context.Context, items []T) error
	// Drain is how long items in flight may go on once shutdown starts;
	// then their context ends. 0 ends it at once.
	Drain time.Duration
	// Wake, when set, asks for a claim at once instead of at the next tick:
	// for work that becomes due when other work ends, not when time passes
	// (a webhook first attempt held back by the one before it). Optional.
	Wake <-chan struct{}
}

// releaseTimeout bounds the Release call at shutdown.
const releaseTimeout = 5 * time.Second

// Run claims and does work until ctx ends, then shuts down as the type says.
func (l ClaimLoop[T]) Run(ctx context.Context) error {
	if l.Concurrency == 0 {
		<-ctx.Done()
		return nil
	}
	// Items in flight outlive ctx by Drain.
	doCtx, stopDoing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopDoing()
	stopDrain := context.AfterFunc(ctx, func() { time.AfterFunc(l.Drain, stopDoing) })
	defer stopDrain()

	queue := make(chan T, 2*l.Concurrency)
	taken := make(chan struct{}, 1) // a slot took an item: the queue has room
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		unstarted []T // taken from the queue after shutdown began
	)
	for range l.Concurrency {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case item := <-queue:
					if ctx.Err() != nil { // select picks at random among ready cases
						mu.Lock()
						unstarted = append(unstarted, item)
						mu.Unlock()
						return
					}
					select {
					case taken <- struct{}{}:
					default:
					}
					l.Do(doCtx, item)
				}
			}
		})
	}
	l.claimUntilDone(ctx, queue, taken)
	wg.Wait()
	close(queue)
	for item := range queue {
		unstarted = append(unstarted, item)
	}
	l.release(ctx, unstarted)
	return nil
}

// claimUntilDone keeps the queue filled while work is due, until ctx ends.
func (l ClaimLoop[T]) claimUntilDone(ctx context.Context, queue chan T, taken chan struct{}) {
	t := time.NewTicker(l.Every)
	defer t.Stop()
	for {
		signal := l.due() // taken before the claim, so a signal during it counts
		dry := false      // nothing more is due now
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
		wake, due := (<-chan time.Time)(nil), (<-chan struct{})(nil)
		if dry {
			wake, due = t.C, signal
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-due:
		case <-l.Wake:
		case <-taken:
			if dry {
				// Room grew, but nothing was due a moment ago: wait for the
				// tick or a signal.
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				case <-signal:
				case <-l.Wake:
				}
			}
		}
	}
}

// due is closed when new work is signalled; never, without a signal.
func (l ClaimLoop[T]) due() <-chan struct{} {
	if l.Due == nil {
		return nil
	}
	return l.Due()
}

func (l ClaimLoop[T]) release(ctx context.Context, items []T) {
	if len(items) == 0 || l.Release == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := l.Release(rctx, items); err != nil {
		slog.WarnContext(ctx, "releasing claimed work at shutdown; it is taken again when its leases run out",
			"worker", l.Name, "items", len(items), "err", err)
		return
	}
	slog.InfoContext(ctx, "released claimed work at shutdown", "worker", l.Name, "items", len(items))
}
