package ports

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/contract"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/server"
)

const (
	bookingLease       = 2 * time.Minute // outlasts a carrier call and label fetch
	maxBookingAttempts = 10
)

// BookingWorker calls carriers for pending shipments, outside any
// transaction: claim (short tx), call, record (short tx). A carrier that
// hangs holds one slot, never a transaction or another shipment.
type BookingWorker struct {
	app   app.Application
	queue command.BookingQueue
	loop  server.ClaimLoop[command.BookingClaim]
}

// NewBookingWorker books what the queue hands out, woken by commits on the
// shipments stream (wake) and else every WORKER_POLL_INTERVAL.
func NewBookingWorker(application app.Application, queue command.BookingQueue, wake *messaging.Wakeup, cfg config.Config) *BookingWorker {
	w := &BookingWorker{app: application, queue: queue}
	w.loop = server.ClaimLoop[command.BookingClaim]{
		Name: w.Name(), Every: cfg.WorkerPollInterval, Concurrency: cfg.BookingConcurrency,
		// A shipment is due for booking from the commit that requests it,
		// which publishes shipment.requested on the module's stream.
		Due: func() <-chan struct{} { return wake.Next(contract.Stream) },
		Claim: func(ctx context.Context, limit int) ([]command.BookingClaim, error) {
			return queue.Claim(ctx, limit, bookingLease)
		},
		Do:      w.book,
		Release: queue.Release,
		Drain:   cfg.ShutdownTimeout,
	}
	return w
}

// QueueDepth counts the shipments due for booking (for /metrics).
func (w *BookingWorker) QueueDepth(ctx context.Context) (int, error) { return w.queue.Due(ctx) }

// Name names the worker.
func (w *BookingWorker) Name() string { return "shipments.booking" }

// Run books shipments until ctx ends; calls in flight then get the shutdown
// timeout to finish, claims not started are released, and a call cut short
// keeps its lease until it expires, then another instance retries it.
func (w *BookingWorker) Run(ctx context.Context) error { return w.loop.Run(ctx) }

func (w *BookingWorker) book(ctx context.Context, c command.BookingClaim) {
	err := w.app.Commands.BookShipment.Handle(ctx, command.BookShipment{ShipmentID: c.ID, GiveUp: c.Attempt >= maxBookingAttempts, Retried: c.Attempt > 1})
	if err == nil || ctx.Err() != nil {
		return
	}
	if !errors.Is(err, command.ErrCarrierUnavailable) {
		slog.ErrorContext(ctx, "booking shipment", "shipment_id", c.ID, "attempt", c.Attempt, "err", err)
	}
	after := backoff(c.Attempt)
	var label *command.LabelNotReady
	if errors.As(err, &label) {
		after = backoff(label.Attempt) // the label step's own schedule (ADR 0041)
	}
	w.reschedule(ctx, c, after)
}

// reschedule gives the lease back and schedules the next attempt. When the
// database is what failed the booking, this fails too, so it keeps trying
// a while: a shipment caught by a short PostgreSQL outage is then booked
// seconds after PostgreSQL is back instead of when its 2 min lease runs out.
// The slot waits meanwhile, which costs nothing: no booking can be recorded
// without the database.
func (w *BookingWorker) reschedule(ctx context.Context, c command.BookingClaim, after time.Duration) {
	err := server.KeepTrying(ctx, server.GiveBackFor, func() error { return w.queue.Retry(ctx, c, after) })
	if err != nil && ctx.Err() == nil {
		slog.WarnContext(ctx, "rescheduling booking; it is retried when its lease runs out", "shipment_id", c.ID, "err", err)
	}
}

// backoff is the pause after a failed attempt: 1 s, 2 s, 4 s ... at most 5 min.
func backoff(attempt int) time.Duration {
	d := time.Second << min(max(attempt, 1)-1, 9)
	return min(d, 5*time.Minute)
}
