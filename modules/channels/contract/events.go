package contract

import "time"

// Stream is the module's event stream: every event below travels on it, in
// the order the changes were committed.
const Stream = "channels"

// The event types the channels module publishes, each version 1 (a
// change of shape gets a version and an upcaster: see messaging.Upcaster).
const (
	EventCreated       = "shipping_channel.created"
	EventUpdated       = "shipping_channel.updated"
	EventDeleted       = "shipping_channel.deleted"
	EventValidated     = "shipping_channel.validated"
	EventStatusChanged = "shipping_channel.status_changed"
)

// EventTypes lists every event type of the module.
var EventTypes = []string{EventCreated, EventUpdated, EventDeleted, EventValidated, EventStatusChanged}

// ChannelEvent is what every channel event carries: the account, the
// channel's version after the change (readers keep the highest they saw) and
// its snapshot after the change.
type ChannelEvent struct {
	AccountID       string                  `json:"account_id"`
	Version         int                     `json:"version"`
	OccurredAt      time.Time               `json:"occurred_at"`
	ShippingChannel ShippingChannelSnapshot `json:"shipping_channel"`
}

// ShippingChannelCreated: a channel was created (status draft).
type ShippingChannelCreated struct{ ChannelEvent }

// ShippingChannelUpdated: name, description, settings or status changed.
type ShippingChannelUpdated struct{ ChannelEvent }

// ShippingChannelDeleted: the channel is gone; the record is its last state.
type ShippingChannelDeleted struct{ ChannelEvent }

// ShippingChannelValidated: the carrier accepted the channel's settings.
type ShippingChannelValidated struct{ ChannelEvent }

// ShippingChannelStatusChanged: the status moved from PreviousStatus.
type ShippingChannelStatusChanged struct {
	ChannelEvent
	PreviousStatus string `json:"previous_status"`
}

func (ShippingChannelCreated) EventType() string       { return EventCreated }
func (ShippingChannelUpdated) EventType() string       { return EventUpdated }
func (ShippingChannelDeleted) EventType() string       { return EventDeleted }
func (ShippingChannelValidated) EventType() string     { return EventValidated }
func (ShippingChannelStatusChanged) EventType() string { return EventStatusChanged }

// Channel returns the event's common part; projections use it for any type.
func (e ChannelEvent) Channel() ChannelEvent { return e }

// EventStream puts every shipping channels event on the module's stream.
func (ChannelEvent) EventStream() string { return Stream }

// PartitionKey keeps a channel's events in one partition of a consumer
// group, in their order (messaging.Keyed).
func (e ChannelEvent) PartitionKey() string { return e.ShippingChannel.ID }
