package ports

import (
	"errors"
	"time"

	channels "shipd/modules/channels/contract"
	dispatch "shipd/modules/dispatch/contract"
	shipments "shipd/modules/shipments/contract"
	tracking "shipd/modules/tracking/contract"
	"shipd/modules/webhooks/app"
	"shipd/platform/messaging"
)

// EventHandlers fan every public event of the other modules out to the
// subscriptions that take it.
type EventHandlers struct {
	app app.Application
}

// NewEventHandlers turns the other modules' events into fan-outs to the
// subscriptions that match them.
func NewEventHandlers(application app.Application) EventHandlers {
	return EventHandlers{app: application}
}

// payload is what a receiver learns of an event: whose it is, when it
// happened and the resource under its name.
type payload struct {
	accountID string
	at        time.Time
	data      map[string]any
}

// Register subscribes one consumer group per module stream, so a receiver
// gets one resource's events in the order they happened. A group fans out
// each run of events its transaction reads at once, in that transaction
// (fanOutBatch). The groups' names are kept in the streams' offsets tables:
// renaming one starts it over.
func (h EventHandlers) Register(bus *messaging.Bus) error {
	return errors.Join(
		h.subscribe(bus, "webhooks.fan_out.channels",
			renders(func(e *channels.ShippingChannelCreated) payload { return channel(e.ChannelEvent) }),
			renders(func(e *channels.ShippingChannelUpdated) payload { return channel(e.ChannelEvent) }),
			renders(func(e *channels.ShippingChannelDeleted) payload { return channel(e.ChannelEvent) }),
			renders(func(e *channels.ShippingChannelValidated) payload { return channel(e.ChannelEvent) }),
			renders(func(e *channels.ShippingChannelStatusChanged) payload {
				return withPrevious(channel(e.ChannelEvent), e.PreviousStatus)
			}),
		),
		h.subscribe(bus, "webhooks.fan_out.shipments",
			renders(func(e *shipments.ShipmentCreated) payload { return shipment(e.ShipmentEvent) }),
			renders(func(e *shipments.ShipmentUpdated) payload { return shipment(e.ShipmentEvent) }),
			renders(func(e *shipments.ShipmentDeleted) payload { return shipment(e.ShipmentEvent) }),
			renders(func(e *shipments.ShipmentStatusChanged) payload {
				return withPrevious(shipment(e.ShipmentEvent), e.PreviousStatus)
			}),
		),
		h.subscribe(bus, "webhooks.fan_out.tracking",
			renders(func(e *tracking.TrackingParcelCreated) payload { return trackingParcel(e.TrackingParcelEvent) }),
			renders(func(e *tracking.TrackingParcelUpdated) payload { return trackingParcel(e.TrackingParcelEvent) }),
			renders(func(e *tracking.TrackingParcelDeleted) payload { return trackingParcel(e.TrackingParcelEvent) }),
			// The spec fixes this body: the seven fields of StatusChange.
			renders(func(e *tracking.TrackingParcelStatusChanged) payload {
				return payload{e.AccountID, e.OccurredAt, map[string]any{"tracking_parcel": e.TrackingParcel}}
			}),
		),
		h.subscribe(bus, "webhooks.fan_out.dispatch",
			renders(func(e *dispatch.PickupCreated) payload { return pickup(e.PickupEvent) }),
			renders(func(e *dispatch.PickupUnconfirmed) payload { return pickup(e.PickupEvent) }),
			renders(func(e *dispatch.PickupCancelled) payload { return pickup(e.PickupEvent) }),
			renders(func(e *dispatch.ManifestCreated) payload {
				return payload{e.AccountID, e.OccurredAt, map[string]any{"manifest": e.Manifest.Record()}}
			}),
		),
	)
}

// subscribe adds the consumer group of one module's events.
func (h EventHandlers) subscribe(bus *messaging.Bus, group string, rendered ...rendering) error {
	kinds := make([]messaging.EventKind, len(rendered))
	render := make(map[string]func(messaging.Event) payload, len(rendered))
	for i, r := range rendered {
		kinds[i] = r.kind
		render[r.kind.EventType()] = r.render
	}
	return messaging.SubscribeMessageChanges(bus, group, kinds, func() messaging.MessageBatch {
		return &fanOutBatch{fanOut: h.app.Commands.FanOutEvents, render: render}
	})
}

// rendering is how events of one type read to a receiver.
type rendering struct {
	kind   messaging.EventKind
	render func(messaging.Event) payload
}

func renders[T any, PT interface {
	*T
	messaging.Event
}](render func(PT) payload) rendering {
	return rendering{kind: messaging.Takes[T, PT](), render: func(e messaging.Event) payload { return render(e.(PT)) }}
}

func channel(e channels.ChannelEvent) payload {
	return payload{e.AccountID, e.OccurredAt, map[string]any{"shipping_channel": e.ShippingChannel.Record()}}
}

func shipment(e shipments.ShipmentEvent) payload {
	return payload{e.AccountID, e.OccurredAt, map[string]any{"shipment": e.Shipment.Record()}}
}

func trackingParcel(e tracking.TrackingParcelEvent) payload {
	return payload{e.AccountID, e.OccurredAt, map[string]any{"tracking_parcel": e.TrackingParcel.Record()}}
}

func pickup(e dispatch.PickupEvent) payload {
	return payload{e.AccountID, e.OccurredAt, map[string]any{"pickup": e.Pickup.Record()}}
}

func withPrevious(p payload, previous string) payload {
	p.data["previous_status"] = previous
	return p
}
