package ports

import (
	"context"
	"errors"
	"time"

	channels "shipd/modules/channels/contract"
	shipments "shipd/modules/shipments/contract"
	tracking "shipd/modules/tracking/contract"
	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/app/command"
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
// gets one resource's events in the order they happened.
func (h EventHandlers) Register(bus *messaging.Bus) error {
	return errors.Join(
		bus.AddGroup("webhooks.fan_out.channels",
			fanOut(h, func(e *channels.ShippingChannelCreated) payload { return channel(e.ChannelEvent) }),
			fanOut(h, func(e *channels.ShippingChannelUpdated) payload { return channel(e.ChannelEvent) }),
			fanOut(h, func(e *channels.ShippingChannelDeleted) payload { return channel(e.ChannelEvent) }),
			fanOut(h, func(e *channels.ShippingChannelValidated) payload { return channel(e.ChannelEvent) }),
			fanOut(h, func(e *channels.ShippingChannelStatusChanged) payload {
				return withPrevious(channel(e.ChannelEvent), e.PreviousStatus)
			}),
		),
		bus.AddGroup("webhooks.fan_out.shipments",
			fanOut(h, func(e *shipments.ShipmentCreated) payload { return shipment(e.ShipmentEvent) }),
			fanOut(h, func(e *shipments.ShipmentUpdated) payload { return shipment(e.ShipmentEvent) }),
			fanOut(h, func(e *shipments.ShipmentDeleted) payload { return shipment(e.ShipmentEvent) }),
			fanOut(h, func(e *shipments.ShipmentStatusChanged) payload {
				return withPrevious(shipment(e.ShipmentEvent), e.PreviousStatus)
			}),
		),
		bus.AddGroup("webhooks.fan_out.tracking",
			fanOut(h, func(e *tracking.TrackingParcelCreated) payload { return trackingParcel(e.TrackingParcelEvent) }),
			fanOut(h, func(e *tracking.TrackingParcelUpdated) payload { return trackingParcel(e.TrackingParcelEvent) }),
			fanOut(h, func(e *tracking.TrackingParcelDeleted) payload { return trackingParcel(e.TrackingParcelEvent) }),
			// The spec fixes this body: the seven fields of StatusChange.
			fanOut(h, func(e *tracking.TrackingParcelStatusChanged) payload {
				return payload{e.AccountID, e.OccurredAt, map[string]any{"tracking_parcel": e.TrackingParcel}}
			}),
		),
	)
}

// fanOut is the group handler of one event type. Each message goes as a
// run of its own, in a transaction of its own (ADR 0019): a batch of the
// bus's (messaging.Batch) gets its events without their messages' ids, and
// the id is what every receiver sees of the event.
func fanOut[T any, PT interface {
	*T
	messaging.Event
}](h EventHandlers, render func(PT) payload) messaging.Handler {
	eventType := PT(new(T)).EventType()
	return messaging.On(func(ctx context.Context, e PT) error {
		p := render(e)
		return h.app.Commands.FanOutEvents.Handle(ctx, command.FanOutEvents{Events: []command.PublicEvent{{
			ID: messaging.MessageID(ctx), Type: eventType, AccountID: p.accountID, CreatedAt: p.at, Data: p.data}}})
	})
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

func withPrevious(p payload, previous string) payload {
	p.data["previous_status"] = previous
	return p
}
