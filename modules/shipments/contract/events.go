package contract

import "time"

// Stream is the module's event stream: every event below travels on it, in
// the order the changes were committed.
const Stream = "shipments"

// The event types the shipments module publishes, each version 1 (a
// change of shape gets a version and an upcaster: see messaging.Upcaster).
const (
	// EventRequested is internal to the module: a shipment was accepted by
	// shipd and its booking queued. Other modules and webhooks do not see it;
	// shipment.created follows once the carrier created the shipment.
	EventRequested     = "shipment.requested"
	EventCreated       = "shipment.created"
	EventUpdated       = "shipment.updated"
	EventDeleted       = "shipment.deleted"
	EventStatusChanged = "shipment.status_changed"
)

// EventTypes lists every event type of the module; PublicEventTypes those
// other modules and webhooks may subscribe to.
var (
	EventTypes       = []string{EventRequested, EventCreated, EventUpdated, EventDeleted, EventStatusChanged}
	PublicEventTypes = []string{EventCreated, EventUpdated, EventDeleted, EventStatusChanged}
)

// ShipmentEvent is what every shipment event carries: the account, the
// shipment's version after the change, and its snapshot after the change.
type ShipmentEvent struct {
	AccountID  string           `json:"account_id"`
	Version    int              `json:"version"`
	OccurredAt time.Time        `json:"occurred_at"`
	Shipment   ShipmentSnapshot `json:"shipment"`
}

// ShipmentRequested: accepted by shipd, status pending, booking queued.
type ShipmentRequested struct{ ShipmentEvent }

// ShipmentCreated: the carrier created the shipment; parcels carry their
// tracking numbers.
type ShipmentCreated struct{ ShipmentEvent }

// ShipmentUpdated: the record changed (edits, a carrier's refusal).
type ShipmentUpdated struct{ ShipmentEvent }

// ShipmentDeleted: the shipment is gone; the record is its last state.
type ShipmentDeleted struct{ ShipmentEvent }

// ShipmentStatusChanged: the status moved from PreviousStatus.
type ShipmentStatusChanged struct {
	ShipmentEvent
	PreviousStatus string `json:"previous_status"`
}

func (ShipmentRequested) EventType() string     { return EventRequested }
func (ShipmentCreated) EventType() string       { return EventCreated }
func (ShipmentUpdated) EventType() string       { return EventUpdated }
func (ShipmentDeleted) EventType() string       { return EventDeleted }
func (ShipmentStatusChanged) EventType() string { return EventStatusChanged }

// EventStream puts every shipments event on the module's stream.
func (ShipmentEvent) EventStream() string { return Stream }

// PartitionKey keeps a shipment's events in one partition of a consumer
// group, in their order (messaging.Keyed).
func (e ShipmentEvent) PartitionKey() string { return e.Shipment.ID }
