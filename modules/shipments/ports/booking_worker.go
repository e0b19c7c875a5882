package ports

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/platform/config"
)

const (
	bookingLease       = 2 * time.Minute // outlasts a carrier call and label fetch
	maxBookingAttempts = 10
)

// BookingWorker calls carriers for pending shipments, outside any
// transaction: claim (short tx), call, record (short tx). A carrier that
// hangs holds one slot, never a transaction or another shipment.
type BookingWorker struct {
	app         app.Application
	queue       command.BookingQueue
	every       time.Duration
	concurrency int // carrier calls in flight on this instance
}

// NewBookingWorker returns the worker.
func NewBookingWorker(application app.Application, queue command.BookingQueue, cfg config.Config) *BookingWorker {
	return &BookingWorker{app: application, queue: queue, every: cfg.WorkerPollInterval, concurrency: cfg.BookingConcurrency}
}

// Name names the worker.
func (w *BookingWorker) Name() string { return "shipments.booking" }

// Run books shipments until ctx ends; calls in flight then are abandoned and
// their leases expire, so another instance (or the next start) retries them.
func (w *BookingWorker) Run(ctx context.Context) error {
	if w.concurrency == 0 {
		<-ctx.Done() // booking is left to other instances
		return nil
	}
	slots := make(chan struct{}, w.concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		free := w.concurrency - len(slots)
		if free > 0 {
			claims, err := w.queue.Claim(ctx, free, bookingLease)
			if err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "claiming bookings", "err", err)
			}
			for _, c := range claims {
				slots <- struct{}{}
				wg.Go(func() {
					defer func() { <-slots }()
					w.book(ctx, c)
				})
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (w *BookingWorker) book(ctx context.Context, c command.BookingClaim) {
	err := w.app.Commands.BookShipment.Handle(ctx, c.ID, c.Attempt >= maxBookingAttempts)
	if err == nil || ctx.Err() != nil {
		return
	}
	if !errors.Is(err, command.ErrCarrierUnavailable) {
		slog.ErrorContext(ctx, "booking shipment", "shipment_id", c.ID, "attempt", c.Attempt, "err", err)
	}
	if err := w.queue.Retry(ctx, c.ID, backoff(c.Attempt)); err != nil {
		slog.WarnContext(ctx, "rescheduling booking", "shipment_id", c.ID, "err", err)
	}
}

// backoff is the pause after a failed attempt: 1 s, 2 s, 4 s ... at most 5 min.
func backoff(attempt int) time.Duration {
	d := time.Second << min(attempt-1, 9)
	return min(d, 5*time.Minute)
}
