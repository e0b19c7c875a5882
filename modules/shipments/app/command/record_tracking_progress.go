package command

import (
	"context"
	"time"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// TrackingNews is news of one of a shipment's tracking parcels.
type TrackingNews struct {
	ShipmentID     string
	Parcel         domain.TrackedParcel
	CODCollectedAt *time.Time
}

// RecordTrackingProgress is a run of tracking news, in the order the
// tracking module published it: a consumer group's batch, or one news.
type RecordTrackingProgress struct {
	News []TrackingNews
}

// RecordTrackingProgressHandler keeps shipments in step with their tracking.
type RecordTrackingProgressHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewRecordTrackingProgressHandler builds what keeps shipments in step with
// the tracking module's news of their parcels.
func NewRecordTrackingProgressHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[RecordTrackingProgress] {
	return usecase.Command(RecordTrackingProgressHandler{repo: repo, clock: clk}, obs)
}

// Handle records the run as recording each news one after another would:
// each news that tells a shipment something new publishes shipment.updated,
// and shipment.status_changed when the status moved, so a shipment that
// moved twice in the run publishes both moves in order. Each shipment is
// written once (Repository.UpdateAll), in the transaction the context
// holds, if any (the consumer group's). News of a shipment deleted
// meanwhile is dropped.
func (h RecordTrackingProgressHandler) Handle(ctx context.Context, cmd RecordTrackingProgress) error {
	now := h.clock.Now()
	changes := make([]domain.Change, len(cmd.News))
	for i, news := range cmd.News {
		changes[i] = domain.Change{ID: news.ShipmentID, Apply: func(sh *domain.Shipment) []domain.Event {
			before := sh.Status()
			if !sh.TrackingProgress(news.Parcel, news.CODCollectedAt, now) {
				return nil
			}
			return withStatusChange([]domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}, sh, before, now)
		}}
	}
	return h.repo.UpdateAll(ctx, changes)
}
