// Package contract is the tracking module's published language: the
// tracking parcel record, the events it publishes and the commands it
// takes. The record is the events' snapshot, stored for good; the API
// answer and webhook payloads render it, so a change of its shape is a new
// event version (testdata/events, ADR 0030).
package contract

import "time"

// TrackingParcelSnapshot is a tracking parcel as its events carry it (every
// tracking parcel event, version 1): stored for good and read back by every
// later build, so its shape is kept in testdata/events and changes only with
// a new event version and an upcaster.
type TrackingParcelSnapshot struct {
	ID                string         `json:"id"`
	TrackingNumber    string         `json:"tracking_number"`
	ShippingChannelID string         `json:"shipping_channel_id"`
	Provider          string         `json:"provider"`
	Status            string         `json:"status"`
	ShipmentID        *string        `json:"shipment_id"`
	RecipientName     *string        `json:"recipient_name"`
	RecipientEmail    *string        `json:"recipient_email"`
	RecipientPhone    *string        `json:"recipient_phone"`
	CheckDelayHours   int            `json:"check_delay_hours"`
	MaxChecks         int            `json:"max_checks"`
	ChecksDone        int            `json:"checks_done"`
	LastCheckedAt     *time.Time     `json:"last_checked_at"`
	NextCheckAt       *time.Time     `json:"next_check_at"`
	LastCheckError    *string        `json:"last_check_error"`
	CODCollectedAt    *time.Time     `json:"cod_collected_at"`
	ExternalData      map[string]any `json:"external_data"`
	CreatedAt         time.Time      `json:"created_at"`
	UpdatedAt         time.Time      `json:"updated_at"`
}

// TrackingParcel is the public record of a tracking parcel: the API's
// answer and the "tracking_parcel" of webhook payloads. It is built from
// the events' snapshot (Record), never the other way round: today it has the
// snapshot's shape; an API change the events should not carry gives it
// fields of its own and Record the mapping, and stored events stay as they
// are.
type TrackingParcel TrackingParcelSnapshot

// Record is the public record the snapshot shows.
func (s TrackingParcelSnapshot) Record() TrackingParcel { return TrackingParcel(s) }

// Detail is the record with its status updates, newest first: the answer
// of GET /v1/tracking-parcels/{id}.
type Detail struct {
	TrackingParcel
	StatusUpdates []StatusUpdate `json:"status_updates"`
}

// StatusUpdate is one carrier event: the carrier's raw code beside the
// standard status it maps to (null when the carrier's table has no entry).
type StatusUpdate struct {
	ID          string    `json:"id"`
	Status      *string   `json:"status"`
	Location    string    `json:"location"`
	Description string    `json:"description"`
	Timestamp   time.Time `json:"timestamp"`
	CarrierCode string    `json:"carrier_code"`
}

// Summary is the list item of a tracking parcel: the record without the
// check bookkeeping, which changes with every check (GET {id} has it).
type Summary struct {
	ID                string         `json:"id"`
	TrackingNumber    string         `json:"tracking_number"`
	ShippingChannelID string         `json:"shipping_channel_id"`
	Provider          string         `json:"provider"`
	Status            string         `json:"status"`
	ShipmentID        *string        `json:"shipment_id"`
	RecipientName     *string        `json:"recipient_name"`
	RecipientEmail    *string        `json:"recipient_email"`
	RecipientPhone    *string        `json:"recipient_phone"`
	CheckDelayHours   int            `json:"check_delay_hours"`
	MaxChecks         int            `json:"max_checks"`
	CODCollectedAt    *time.Time     `json:"cod_collected_at"`
	ExternalData      map[string]any `json:"external_data"`
	CreatedAt         time.Time      `json:"created_at"`
	UpdatedAt         time.Time      `json:"updated_at"`
}

// Summary returns the list item of the record.
func (t TrackingParcel) Summary() Summary {
	return Summary{ID: t.ID, TrackingNumber: t.TrackingNumber, ShippingChannelID: t.ShippingChannelID, Provider: t.Provider,
		Status: t.Status, ShipmentID: t.ShipmentID, RecipientName: t.RecipientName, RecipientEmail: t.RecipientEmail,
		RecipientPhone: t.RecipientPhone, CheckDelayHours: t.CheckDelayHours, MaxChecks: t.MaxChecks,
		CODCollectedAt: t.CODCollectedAt, ExternalData: t.ExternalData, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}
