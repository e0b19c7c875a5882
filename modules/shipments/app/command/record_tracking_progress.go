package command

import (
	"context"
	"time"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// RecordTrackingProgress is news of one of a shipment's tracking parcels.
type RecordTrackingProgress struct {
	ShipmentID     string
	Parcel         domain.TrackedParcel
	CODCollectedAt *time.Time
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

// Handle records the news (in the message handler's transaction) and
// publishes shipment.updated, and shipment.status_changed when the status
// moved. News of a shipment deleted meanwhile is dropped.
func (h RecordTrackingProgressHandler) Handle(ctx context.Context, cmd RecordTrackingProgress) error {
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, cmd.ShipmentID, func(sh *domain.Shipment) ([]domain.Event, error) {
		before := sh.Status()
		if !sh.TrackingProgress(cmd.Parcel, cmd.CODCollectedAt, now) {
			return nil, nil
		}
		return withStatusChange([]domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}, sh, before, now), nil
	})
	if fault.Is(err, fault.KindNotFound) {
		return nil
	}
	return err
}
