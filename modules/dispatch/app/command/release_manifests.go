package command

import (
	"context"
	"time"

	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// ReleaseManifests forgets manifests left being created by a process that
// ended on the way (at most Limit), so their shipments can be handed over
// again: a manifest is stored whole with its document, or not at all.
type ReleaseManifests struct {
	Limit int
}

// ReleaseManifestsHandler forgets such manifests.
type ReleaseManifestsHandler struct {
	manifests manifest.Repository
	clock     clock.Clock
	timeout   time.Duration
}

// NewReleaseManifestsHandler takes a creation as left behind once it is
// older than twice timeout, the longest a live request asks the carrier.
func NewReleaseManifestsHandler(manifests manifest.Repository, clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[ReleaseManifests] {
	return usecase.Command(ReleaseManifestsHandler{manifests: manifests, clock: clk, timeout: timeout}, obs)
}

// Handle forgets each one.
func (h ReleaseManifestsHandler) Handle(ctx context.Context, cmd ReleaseManifests) error {
	stale, err := h.manifests.Stale(ctx, h.clock.Now().Add(-2*h.timeout), cmd.Limit)
	if err != nil {
		return err
	}
	for _, id := range stale {
		if err := h.manifests.Forget(ctx, id); err != nil {
			return err
		}
	}
	return nil
}
