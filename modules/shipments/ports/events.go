package ports

import (
	"context"

	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/messaging"

	tracking "shipd/modules/tracking/contract"
)

// EventHandlers are the module's handlers of other modules' events.
type EventHandlers struct {
	app app.Application
}

// NewEventHandlers turns the tracking module's events into the shipments
// module's commands.
func NewEventHandlers(application app.Application) EventHandlers {
	return EventHandlers{app: application}
}

// Register subscribes the handlers: one consumer group on the tracking
// stream, which brings one parcel's news in order. Every
// tracking_parcel.status_changed comes with an updated event of the same
// version, which carries the whole record (the COD collection too), so
// status_changed itself is not needed here. The shipment still keeps only
// the newest version it saw: a redelivered batch brings older ones again.
func (h EventHandlers) Register(bus *messaging.Bus) error {
	return bus.AddGroup("shipments.tracking_progress",
		messaging.On(func(ctx context.Context, e *tracking.TrackingParcelCreated) error {
			return h.progress(ctx, e.TrackingParcelEvent)
		}),
		messaging.On(func(ctx context.Context, e *tracking.TrackingParcelUpdated) error {
			return h.progress(ctx, e.TrackingParcelEvent)
		}),
	)
}

func (h EventHandlers) progress(ctx context.Context, e tracking.TrackingParcelEvent) error {
	tp := e.TrackingParcel
	if tp.ShipmentID == nil {
		return nil
	}
	return h.app.Commands.RecordTrackingProgress.Handle(ctx, command.RecordTrackingProgress{ShipmentID: *tp.ShipmentID,
		Parcel:         domain.TrackedParcel{ID: tp.ID, TrackingNumber: tp.TrackingNumber, Status: carrier.TrackingStatus(tp.Status), Version: e.Version},
		CODCollectedAt: tp.CODCollectedAt})
}
