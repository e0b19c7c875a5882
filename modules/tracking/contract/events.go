package contract

import "time"

// Stream is the module's event stream: every event below travels on it, in
// the order the changes were committed.
const Stream = "tracking"

// The event types the tracking module publishes, each version 1 (a
// change of shape gets a version and an upcaster: see messaging.Upcaster).
const (
	EventCreated       = "tracking_parcel.created"
	EventUpdated       = "tracking_parcel.updated"
	EventDeleted       = "tracking_parcel.deleted"
	EventStatusChanged = "tracking_parcel.status_changed"
)

// EventTypes lists every event type of the module.
var EventTypes = []string{EventCreated, EventUpdated, EventDeleted, EventStatusChanged}

// TrackingParcelEvent is what the created, updated and deleted events
// carry: the account, the parcel's version after the change (readers keep
// the highest they saw) and its snapshot after the change.
type TrackingParcelEvent struct {
	AccountID      string                 `json:"account_id"`
	Version        int                    `json:"version"`
	OccurredAt     time.Time              `json:"occurred_at"`
	TrackingParcel TrackingParcelSnapshot `json:"tracking_parcel"`
}

// TrackingParcelCreated: tracking started (status created, first check due).
type TrackingParcelCreated struct{ TrackingParcelEvent }

// TrackingParcelUpdated: the record changed: new status updates, a new
// status, the COD collected, tracking stopped, or the client's edits.
type TrackingParcelUpdated struct{ TrackingParcelEvent }

// TrackingParcelDeleted: the parcel is no longer tracked; the record is its last state.
type TrackingParcelDeleted struct{ TrackingParcelEvent }

// TrackingParcelStatusChanged: the status moved. TrackingParcel is exactly
// the payload the API promises webhook receivers; the envelope adds what
// other modules need (the account, the version, the parcel's shipment).
type TrackingParcelStatusChanged struct {
	AccountID      string       `json:"account_id"`
	Version        int          `json:"version"`
	OccurredAt     time.Time    `json:"occurred_at"`
	ShipmentID     *string      `json:"shipment_id"`
	TrackingParcel StatusChange `json:"tracking_parcel"`
}

// StatusChange is the tracking parcel as tracking_parcel.status_changed shows it.
type StatusChange struct {
	ID                string    `json:"id"`
	TrackingNumber    string    `json:"tracking_number"`
	ShippingChannelID string    `json:"shipping_channel_id"`
	Status            string    `json:"status"`
	PreviousStatus    string    `json:"previous_status"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

func (TrackingParcelCreated) EventType() string       { return EventCreated }
func (TrackingParcelUpdated) EventType() string       { return EventUpdated }
func (TrackingParcelDeleted) EventType() string       { return EventDeleted }
func (TrackingParcelStatusChanged) EventType() string { return EventStatusChanged }

// EventStream puts every tracking parcels event on the module's stream.
func (TrackingParcelEvent) EventStream() string         { return Stream }
func (TrackingParcelStatusChanged) EventStream() string { return Stream }

// PartitionKey keeps a tracking parcel's events, its status changes among
// them, in one partition of a consumer group, in their order
// (messaging.Keyed).
func (e TrackingParcelEvent) PartitionKey() string         { return e.TrackingParcel.ID }
func (e TrackingParcelStatusChanged) PartitionKey() string { return e.TrackingParcel.ID }
