package server_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"shipd/platform/apptest"
	"shipd/platform/server"
)

// At shutdown the loop stops claiming, lets the items in flight finish
// within Drain (their context still alive), and releases every item it
// claimed but never started; no item is both done and released.
func TestClaimLoopShutdownFinishesInFlightAndReleasesQueued(t *testing.T) {
	t.Parallel() // no database
	const concurrency = 2
	var (
		mu       sync.Mutex
		next     int
		done     []int
		released []int
	)
	started := make(chan int, 100)
	loop := server.ClaimLoop[int]{
		Name: "test", Every: 10 * time.Millisecond, Concurrency: concurrency, Drain: 5 * time.Second,
		Claim: func(_ context.Context, limit int) ([]int, error) {
			mu.Lock()
			defer mu.Unlock()
			items := make([]int, limit)
			for i := range items {
				next++
				items[i] = next
			}
			return items, nil
		},
		Do: func(ctx context.Context, item int) {
			started <- item
			select {
			case <-time.After(300 * time.Millisecond): // a slow carrier call
			case <-ctx.Done():
				t.Errorf("item %d: context ended while draining: %v", item, ctx.Err())
				return
			}
			mu.Lock()
			done = append(done, item)
			mu.Unlock()
		},
		Release: func(ctx context.Context, items []int) error {
			if ctx.Err() != nil {
				t.Errorf("release got an ended context: %v", ctx.Err())
			}
			mu.Lock()
			released = append(released, items...)
			mu.Unlock()
			return nil
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan error, 1)
	go func() { finished <- loop.Run(ctx) }()
	for range concurrency { // both slots busy
		<-started
	}
	// The claimer refills the queue behind them: a first claim of a full
	// queue, then one of the room the busy slots made.
	apptest.Eventually(t, 5*time.Second, "the queue refilled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return next == 2*concurrency+concurrency
	})
	cancel()
	select {
	case err := <-finished:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not stop")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(done) != concurrency {
		t.Errorf("done %v: want the %d items in flight finished", done, concurrency)
	}
	if len(released) == 0 {
		t.Error("nothing released: the queued items keep their leases")
	}
	for _, r := range released {
		if slices.Contains(done, r) {
			t.Errorf("item %d was done and released", r)
		}
	}
	// Every claimed item is accounted for: done, released, or never claimed.
	for item := 1; item <= next; item++ {
		if !slices.Contains(done, item) && !slices.Contains(released, item) {
			t.Errorf("item %d was claimed but neither done nor released (claimed %d, done %v, released %v)", item, next, done, released)
		}
	}
}

// Without Drain, items in flight see their context end at shutdown.
func TestClaimLoopWithoutDrainCancelsInFlight(t *testing.T) {
	t.Parallel() // no database
	cancelled := make(chan struct{})
	started := make(chan struct{})
	var once sync.Once
	loop := server.ClaimLoop[int]{
		Name: "test", Every: 10 * time.Millisecond, Concurrency: 1,
		Claim: func(context.Context, int) ([]int, error) { return []int{1}, nil },
		Do: func(ctx context.Context, _ int) {
			once.Do(func() { close(started) })
			<-ctx.Done()
			select {
			case <-cancelled:
			default:
				close(cancelled)
			}
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = loop.Run(ctx) }()
	<-started
	cancel()
	select {
	case <-cancelled:
	case <-time.After(2 * time.Second):
		t.Fatal("the item in flight kept running after shutdown")
	}
}

// Work that becomes due when other work ends is claimed when Wake says so,
// long before the next tick.
func TestClaimLoopClaimsAtOnceWhenWoken(t *testing.T) {
	t.Parallel() // no database
	var (
		mu  sync.Mutex
		due []int
	)
	wake := make(chan struct{}, 1)
	done := make(chan int, 10)
	claimed := make(chan struct{}, 10) // a claim returned
	loop := server.ClaimLoop[int]{
		Name: "test", Every: time.Hour, Concurrency: 1, Wake: wake,
		Claim: func(_ context.Context, limit int) ([]int, error) {
			mu.Lock()
			defer mu.Unlock()
			n := min(limit, len(due))
			items := due[:n]
			due = due[n:]
			claimed <- struct{}{}
			return items, nil
		},
		Do: func(_ context.Context, item int) { done <- item },
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished := make(chan error, 1)
	go func() { finished <- loop.Run(ctx) }()
	for i := range 3 {
		// The loop's latest claim, the first or the one that took item i-1,
		// left it dry: it waits for its hourly tick, or a wake.
		select {
		case <-claimed:
		case <-time.After(5 * time.Second):
			t.Fatalf("no claim before item %d", i)
		}
		mu.Lock()
		due = append(due, i)
		mu.Unlock()
		wake <- struct{}{}
		select {
		case got := <-done:
			if got != i {
				t.Fatalf("did %d, want %d", got, i)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("item %d not claimed when the loop was woken", i)
		}
	}
	cancel()
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
}
