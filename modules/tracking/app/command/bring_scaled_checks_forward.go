package command

import (
	"context"
	"log/slog"
	"time"

	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// BringScaledChecksForward asks that every parcel of a carrier whose clock
// runs faster than real time (the sandbox under SANDBOX_TIME_SCALE, ADR 0017)
// be checked on that clock: one whose next check is further ahead than its
// check delay divided by the scale is checked then instead. The checker runs
// it when the service starts, so that checks planned at one scale (six real
// hours at 1) do not outlast a restart at another (six seconds at 3600).
type BringScaledChecksForward struct{}

// BringScaledChecksForwardHandler moves such checks forward, in batches.
type BringScaledChecksForwardHandler struct {
	repo      domain.Repository
	queue     CheckQueue
	providers *carrier.Registry
	clock     clock.Clock
}

// bringForwardBatch is how many parcels one transaction reschedules.
const bringForwardBatch = 256

// NewBringScaledChecksForwardHandler needs the parcels, the queue that
// finds their schedules and the carriers that say their time scale.
func NewBringScaledChecksForwardHandler(repo domain.Repository, queue CheckQueue, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[BringScaledChecksForward] {
	if repo == nil || queue == nil {
		panic("tracking: rescheduling checks needs the repository and the check queue")
	}
	return usecase.Command(BringScaledChecksForwardHandler{repo: repo, queue: queue, providers: providers, clock: clk}, obs)
}

// Handle reschedules, for each time-scaled carrier, the checks planned
// beyond its scale.
func (h BringScaledChecksForwardHandler) Handle(ctx context.Context, _ BringScaledChecksForward) error {
	for _, code := range h.providers.Codes() {
		p, _ := h.providers.Get(code)
		scaled, ok := p.(carrier.TimeScaled)
		if !ok || scaled.TimeScale() <= 0 {
			continue
		}
		scale := scaled.TimeScale()
		ids, err := h.queue.ScheduledBeyond(ctx, code, scale)
		if err != nil {
			return err
		}
		now := h.clock.Now()
		moved := 0
		for start := 0; start < len(ids); start += bringForwardBatch {
			batch := ids[start:min(start+bringForwardBatch, len(ids))]
			changes := make([]domain.Change, len(batch))
			for i, id := range batch {
				changes[i] = domain.Change{ID: id, Apply: func(p *domain.Parcel) []domain.Event {
					if p.BringCheckForward(now.Add(time.Duration(float64(p.CheckDelay()) / scale))) {
						moved++
					}
					return nil
				}}
			}
			if err := h.repo.UpdateAll(ctx, changes); err != nil {
				return err
			}
		}
		if moved > 0 {
			slog.InfoContext(ctx, "tracking checks brought forward to the carrier's time scale", "provider", code, "time_scale", scale, "parcels", moved)
		}
	}
	return nil
}
