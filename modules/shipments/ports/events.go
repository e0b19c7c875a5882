package ports

import (
	"context"
	"errors"

	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/messaging"
	"shipd/platform/usecase"

	dispatch "shipd/modules/dispatch/contract"
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

// trackingProgressGroup is the consumer group that keeps shipments in step
// with their tracking parcels.
const trackingProgressGroup = "shipments.tracking_progress"

// Register subscribes the handlers: one consumer group on the tracking
// stream, which brings one parcel's news in order. Every
// tracking_parcel.status_changed comes with an updated event of the same
// version, which carries the whole record (the COD collection too), so
// status_changed itself is not needed here.
//
// The group records a subscriber transaction's news as one run, in that
// transaction, committed with the acknowledgement (messaging.SubscribeChanges,
// ADR 0048): each shipment of the run is locked and written once. A run whose
// write fails is read again and recorded a news at a time, so a news that
// cannot be recorded is set aside alone. The shipment keeps only the newest
// version of each parcel it saw, so news read again changes nothing.
func (h EventHandlers) Register(bus *messaging.Bus) error {
	return errors.Join(
		messaging.SubscribeChanges(bus, trackingProgressGroup,
			[]messaging.EventKind{messaging.Takes[tracking.TrackingParcelCreated](), messaging.Takes[tracking.TrackingParcelUpdated]()},
			func() messaging.Batch { return &trackingNews{record: h.app.Commands.RecordTrackingProgress} }),
		// The dispatch stream, in a group of its own, the same way: each
		// shipment shows the pickup that collects it and the manifest it
		// was handed over on (ADR 0054).
		messaging.SubscribeChanges(bus, dispatchNewsGroup,
			[]messaging.EventKind{messaging.Takes[dispatch.PickupCreated](), messaging.Takes[dispatch.PickupCancelled](),
				messaging.Takes[dispatch.ManifestCreated]()},
			func() messaging.Batch { return &dispatchNews{record: h.app.Commands.RecordDispatchNews} }),
	)
}

// dispatchNewsGroup is the consumer group that shows on shipments their
// pickups and manifests.
const dispatchNewsGroup = "shipments.dispatch_news"

// dispatchNews is one subscriber transaction's run of dispatch news.
type dispatchNews struct {
	record usecase.CommandHandler[command.RecordDispatchNews]
	run    command.RecordDispatchNews
}

// Add keeps a news per shipment a pickup or manifest names.
func (b *dispatchNews) Add(e messaging.Event) {
	switch e := e.(type) {
	case *dispatch.PickupCreated:
		for _, id := range e.Pickup.ShipmentIDs {
			b.run.News = append(b.run.News, command.DispatchNews{ShipmentID: id, PickupID: e.Pickup.ID})
		}
	case *dispatch.PickupCancelled:
		for _, id := range e.Pickup.ShipmentIDs {
			b.run.News = append(b.run.News, command.DispatchNews{ShipmentID: id, CancelledPickupID: e.Pickup.ID})
		}
	case *dispatch.ManifestCreated:
		for _, id := range e.Manifest.ShipmentIDs {
			b.run.News = append(b.run.News, command.DispatchNews{ShipmentID: id, ManifestID: e.Manifest.ID})
		}
	}
}

// Write records the run in the subscriber's transaction (ctx holds it).
func (b *dispatchNews) Write(ctx context.Context, _ *sqlx.Tx) error {
	if len(b.run.News) == 0 {
		return nil
	}
	return b.record.Handle(ctx, b.run)
}

// trackingNews is one subscriber transaction's run of tracking news.
type trackingNews struct {
	record usecase.CommandHandler[command.RecordTrackingProgress]
	run    command.RecordTrackingProgress
}

// Add keeps the news of a parcel of a shipment; a parcel tracked on its
// own is no shipment's business.
func (b *trackingNews) Add(e messaging.Event) {
	var ev tracking.TrackingParcelEvent
	switch e := e.(type) {
	case *tracking.TrackingParcelCreated:
		ev = e.TrackingParcelEvent
	case *tracking.TrackingParcelUpdated:
		ev = e.TrackingParcelEvent
	default:
		return
	}
	tp := ev.TrackingParcel
	if tp.ShipmentID == nil {
		return
	}
	b.run.News = append(b.run.News, command.TrackingNews{ShipmentID: *tp.ShipmentID,
		Parcel:         domain.TrackedParcel{ID: tp.ID, TrackingNumber: tp.TrackingNumber, Status: carrier.TrackingStatus(tp.Status), Version: ev.Version},
		CODCollectedAt: tp.CODCollectedAt})
}

// Write records the run; ctx runs the repository's writes in the
// subscriber's transaction (postgres.Within), so tx itself is not used.
func (b *trackingNews) Write(ctx context.Context, _ *sqlx.Tx) error {
	if len(b.run.News) == 0 {
		return nil
	}
	return b.record.Handle(ctx, b.run)
}
