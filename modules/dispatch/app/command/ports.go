// Package command holds the dispatch module's write use cases: ordering and
// cancelling courier pickups, creating manifests.
package command

import (
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
)

// HandoverDocuments draws shipd's own handover document (an A4 PDF), for a
// manifest whose carrier makes none.
type HandoverDocuments interface {
	Draw(h Handover) ([]byte, error)
}

// Handover is what shipd's handover document shows.
type Handover struct {
	Carrier     string // the carrier's name
	ChannelName string
	ManifestID  string
	Date        time.Time
	Sender      carrier.Contact
	Origin      carrier.Address
	Shipments   []domain.Shipment // in the manifest's order
}

// DefaultCarrierTimeout bounds one carrier call of a pickup or a manifest.
const DefaultCarrierTimeout = 30 * time.Second
