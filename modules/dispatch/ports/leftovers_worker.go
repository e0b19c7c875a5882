package ports

import (
	"context"
	"log/slog"
	"time"

	"shipd/modules/dispatch/app"
	"shipd/modules/dispatch/app/command"
)

// leftoversEvery is how often the worker looks for pickups and manifests a
// process left half-way: they are rare (a crash, a kill), and each waits
// twice the carrier timeout first anyway.
const leftoversEvery = 15 * time.Second

// LeftoversWorker settles what a process that ended while it asked a
// carrier left behind: pickups being ordered are resumed or made
// unconfirmed (ResolvePickups), manifests being created are forgotten
// (ReleaseManifests). Every instance runs one; the pickups' and manifests'
// locks keep two from settling one item twice.
type LeftoversWorker struct {
	app app.Application
}

// NewLeftoversWorker runs the application's settling commands.
func NewLeftoversWorker(application app.Application) *LeftoversWorker {
	return &LeftoversWorker{app: application}
}

// Name names the worker in logs.
func (w *LeftoversWorker) Name() string { return "dispatch leftovers" }

// Run settles leftovers until ctx ends.
func (w *LeftoversWorker) Run(ctx context.Context) error {
	t := time.NewTicker(leftoversEvery)
	defer t.Stop()
	for {
		w.settle(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (w *LeftoversWorker) settle(ctx context.Context) {
	if err := w.app.Commands.ResolvePickups.Handle(ctx, command.ResolvePickups{Limit: 100}); err != nil && ctx.Err() == nil {
		slog.WarnContext(ctx, "settling pickups left being ordered", "err", err)
	}
	if err := w.app.Commands.ReleaseManifests.Handle(ctx, command.ReleaseManifests{Limit: 100}); err != nil && ctx.Err() == nil {
		slog.WarnContext(ctx, "releasing manifests left being created", "err", err)
	}
}
