package domain

import (
	"context"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/ids"
)

// Shipment is what the dispatch module knows of a shipment: the shipments
// module's record as its events last said, kept in the module's own copy so
// that a dispatch process needs no other to order a pickup or a manifest.
type Shipment struct {
	ID                 string
	AccountID          string
	ChannelID          string
	Status             string // the shipments module's: pending, created, failed, cancelled, ...
	ProviderShipmentID string
	Reference          string
	ProductType        string
	Parcels            []carrier.Parcel
	TrackingNumbers    []string // one per parcel, in parcel order
	Sender             carrier.Contact
	Origin             carrier.Address
	Recipient          carrier.Contact
	Destination        carrier.Address
	COD                *carrier.Money // the cash the carrier collects; nil when none
	CreatedAt          time.Time
}

// DispatchProblem says why the shipment cannot be collected or handed over
// for accountID on channelID, or "": only a shipment the carrier created and
// holds for its first scan (status created) can.
func (s Shipment) DispatchProblem(accountID, channelID string) string {
	switch {
	case s.AccountID != accountID:
		return "is a shipment of another account"
	case s.ChannelID != channelID:
		return "is a shipment of another shipping channel (" + s.ChannelID + ")"
	case s.Status == "cancelled":
		return "is cancelled"
	case s.Status == "pending":
		return "is not created at the carrier yet (its status is pending)"
	case s.Status != "created":
		return "has been handed over already (its status is " + s.Status + ")"
	}
	return ""
}

// WeightKG is the shipment's weight in kilograms.
func (s Shipment) WeightKG() float64 {
	var kg float64
	for _, p := range s.Parcels {
		kg += p.WeightKG()
	}
	return kg
}

// Carried is the shipment as a carrier's pickup or manifest names it.
func (s Shipment) Carried() carrier.DispatchShipment {
	return carrier.DispatchShipment{ShipmentID: s.ID, ProviderShipmentID: s.ProviderShipmentID, Reference: s.Reference,
		ProductType: s.ProductType, TrackingNumbers: s.TrackingNumbers, Parcels: s.Parcels,
		Recipient: s.Recipient, Destination: s.Destination}
}

// Shipments is the module's copy of the shipments it may dispatch.
type Shipments interface {
	// Find returns the shipments of ids it knows, by id; one it does not
	// know is absent (never made, or its events not read yet).
	Find(ctx context.Context, ids []string) (map[string]Shipment, error)
	// Undispatched are the channel's shipments a carrier holds that are on
	// no manifest, oldest first, at most limit.
	Undispatched(ctx context.Context, accountID, channelID string, limit int) ([]Shipment, error)
	// Latest is the channel's newest shipment a carrier created, whose
	// sender and origin are a pickup's defaults; false when it has none.
	Latest(ctx context.Context, accountID, channelID string) (Shipment, bool, error)
}

// IsShipmentID reports whether s has the form of a shipment's id.
func IsShipmentID(s string) bool { return ids.HasPrefix(s, ids.Shipment) }
