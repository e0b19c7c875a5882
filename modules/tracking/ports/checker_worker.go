package ports

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/platform/config"
	"shipd/platform/server"
)

// checkLease outlasts a carrier call (30 s), the wait of a claimed parcel
// for a slot (at most one call: the loop queues twice its slots), and
// recording the answer.
const checkLease = 2 * time.Minute

// CheckerWorker checks tracking parcels whose check is due, outside any
// transaction: claim (short tx), ask the carrier, record (short tx, shared
// by the checks that finish meanwhile). A carrier that hangs holds one slot
// until its timeout, nothing else.
type CheckerWorker struct {
	app   app.Application
	queue command.CheckQueue
	loop  server.ClaimLoop[command.DueCheck]
}

// NewCheckerWorker makes the scheduled checks, TRACKING_CONCURRENCY at a
// time, claiming every WORKER_POLL_INTERVAL at most.
func NewCheckerWorker(application app.Application, queue command.CheckQueue, cfg config.Config) *CheckerWorker {
	w := &CheckerWorker{app: application, queue: queue}
	w.loop = server.ClaimLoop[command.DueCheck]{
		Name: w.Name(), Every: cfg.WorkerPollInterval, Concurrency: cfg.TrackingConcurrency,
		Claim: func(ctx context.Context, limit int) ([]command.DueCheck, error) {
			return application.Queries.ClaimDueChecks.Handle(ctx, query.ClaimDueChecks{Limit: limit, Lease: checkLease})
		},
		Do:      w.check,
		Release: func(ctx context.Context, due []command.DueCheck) error { return queue.Release(ctx, parcelIDs(due)) },
		Drain:   cfg.ShutdownTimeout,
	}
	return w
}

// QueueDepth counts the parcels whose check is due (for /metrics).
func (w *CheckerWorker) QueueDepth(ctx context.Context) (int, error) { return w.queue.Due(ctx) }

// Name names the worker.
func (w *CheckerWorker) Name() string { return "tracking.checker" }

// Run checks parcels until ctx ends. First it brings forward the checks a
// time-scaled carrier's parcels had planned on a slower clock (the sandbox,
// when SANDBOX_TIME_SCALE was raised since they were planned); should that
// fail, they are checked when planned, as before.
func (w *CheckerWorker) Run(ctx context.Context) error {
	if err := w.app.Commands.BringScaledChecksForward.Handle(ctx, command.BringScaledChecksForward{}); err != nil && ctx.Err() == nil {
		slog.WarnContext(ctx, "bringing tracking checks forward to the time scale failed; they are made when planned", "err", err)
	}
	return w.loop.Run(ctx)
}

func (w *CheckerWorker) check(ctx context.Context, d command.DueCheck) {
	id := d.Parcel.ID
	err := w.app.Commands.CheckDueParcels.Handle(ctx, d)
	switch {
	case err == nil, ctx.Err() != nil:
	case errors.Is(err, command.ErrCheckFailed):
		// Kept on the parcel (last_check_error); one line per parcel would
		// flood the log while a carrier is down.
		slog.DebugContext(ctx, "tracking check failed", "tracking_parcel_id", id, "err", err)
	default:
		slog.ErrorContext(ctx, "checking tracking parcel", "tracking_parcel_id", id, "err", err)
		// Nothing is recorded (the channel could not be read, most likely):
		// give the parcel back so it is checked again soon, not when its
		// lease runs out.
		err := server.KeepTrying(ctx, server.GiveBackFor, func() error { return w.queue.Release(ctx, []string{id}) })
		if err != nil && ctx.Err() == nil {
			slog.WarnContext(ctx, "giving a tracking check back; it is made again when its lease runs out", "tracking_parcel_id", id, "err", err)
		}
	}
}

func parcelIDs(due []command.DueCheck) []string {
	ids := make([]string, len(due))
	for i, d := range due {
		ids[i] = d.Parcel.ID
	}
	return ids
}
