// Package contract is the dispatch module's published language: the pickup
// and manifest records and the events they travel in. The records are the
// events' snapshots, stored for good; the API answer and webhook payloads
// render them, so a change of their shape is a new event version
// (testdata/events, ADR 0030).
package contract

import "time"

// Stream is the module's event stream.
const Stream = "dispatch"

// The event types the dispatch module publishes, each version 1.
const (
	// EventPickupCreated: the carrier confirmed a courier pickup.
	EventPickupCreated = "pickup.created"
	// EventPickupUnconfirmed: shipd asked the carrier for a pickup and lost
	// its answer; the carrier may hold it (the merchant checks, and
	// cancels it here).
	EventPickupUnconfirmed = "pickup.unconfirmed"
	// EventPickupCancelled: the pickup is cancelled.
	EventPickupCancelled = "pickup.cancelled"
	// EventManifestCreated: shipments were handed over on a manifest.
	EventManifestCreated = "manifest.created"
)

// EventTypes lists every event type of the module, all public.
var EventTypes = []string{EventPickupCreated, EventPickupUnconfirmed, EventPickupCancelled, EventManifestCreated}

// PickupEvent is what every pickup event carries: the account, the
// pickup's version after the change, and its snapshot after it.
type PickupEvent struct {
	AccountID  string         `json:"account_id"`
	Version    int            `json:"version"`
	OccurredAt time.Time      `json:"occurred_at"`
	Pickup     PickupSnapshot `json:"pickup"`
}

// PickupCreated: the carrier confirmed the pickup.
type PickupCreated struct{ PickupEvent }

// PickupUnconfirmed: the carrier's answer was lost.
type PickupUnconfirmed struct{ PickupEvent }

// PickupCancelled: the pickup is cancelled.
type PickupCancelled struct{ PickupEvent }

func (PickupCreated) EventType() string     { return EventPickupCreated }
func (PickupUnconfirmed) EventType() string { return EventPickupUnconfirmed }
func (PickupCancelled) EventType() string   { return EventPickupCancelled }

// EventStream puts every pickup event on the module's stream.
func (PickupEvent) EventStream() string { return Stream }

// PartitionKey keeps a pickup's events in order in one partition.
func (e PickupEvent) PartitionKey() string { return e.Pickup.ID }

// ManifestEvent is what every manifest event carries.
type ManifestEvent struct {
	AccountID  string           `json:"account_id"`
	Version    int              `json:"version"`
	OccurredAt time.Time        `json:"occurred_at"`
	Manifest   ManifestSnapshot `json:"manifest"`
}

// ManifestCreated: the shipments were handed over on the manifest.
type ManifestCreated struct{ ManifestEvent }

func (ManifestCreated) EventType() string { return EventManifestCreated }

// EventStream puts every manifest event on the module's stream.
func (ManifestEvent) EventStream() string { return Stream }

// PartitionKey keeps a manifest's events in order in one partition.
func (e ManifestEvent) PartitionKey() string { return e.Manifest.ID }
