package carrier

import (
	"context"
	"errors"
)

// The shipping day's part of the port (issue 33, ADR 0054): ordering a
// courier to collect parcels (the API's "pickup"; here a CourierPickup,
// kept apart from the pickup points of pickup.go) and handing the day's
// shipments over with a manifest.
//
// Dates are the carrier's local calendar dates "2006-01-02", times of day
// "15:04" in the pickup address's local time: no carrier takes a zone
// except DHL Express, whose adapter adds it.

// Dispatcher is a provider's courier pickups and manifests. A provider
// implements it when it offers any of them; what it offers is published in
// its ProviderInfo.Dispatch, and an operation it does not offer answers
// ErrNotOffered. The dispatch module reaches it through DispatcherOf.
type Dispatcher interface {
	// OrderCourierPickup orders a courier visit. A carrier that refuses
	// returns *Rejection (or Rejections) blaming the request's fields
	// (PickupField...); one that cannot be reached returns an error
	// wrapping ErrUnavailable. An adapter whose carrier confirms later
	// records its handle through req.Booking.Accept before it waits, and
	// one given req.Booking.Handle resumes that order, never ordering again.
	OrderCourierPickup(ctx context.Context, settings Settings, req CourierPickupRequest) (CourierPickup, error)
	// CancelCourierPickup cancels an ordered pickup while the carrier allows
	// it; a carrier that no longer does returns *Rejection with its reason.
	CancelCourierPickup(ctx context.Context, settings Settings, pickup CourierPickup) error
	// CourierPickupWindows are the windows the carrier offers on a date at
	// an address. ErrNotOffered: the carrier does not say, and the dispatch
	// module's documented defaults stand.
	CourierPickupWindows(ctx context.Context, settings Settings, req PickupWindowsRequest) ([]PickupWindow, error)
	// CreateManifest hands shipments over and answers the carrier's own
	// document. A carrier that makes none for this call (Allegro's 204 for a
	// carrier without a protocol, GLS's end of day, which answers data)
	// answers a CarrierManifest without Document, and shipd draws its own.
	CreateManifest(ctx context.Context, settings Settings, req ManifestRequest) (CarrierManifest, error)
}

// ErrNotOffered is a provider saying it has no such operation.
var ErrNotOffered = errors.New("the carrier does not offer this")

// The fields of a pickup request a carrier's refusal may blame, as the API
// names them.
const (
	PickupFieldDate       = "date"
	PickupFieldReadyFrom  = "ready_from"
	PickupFieldReadyUntil = "ready_until"
	PickupFieldAddress    = "address"
	PickupFieldContact    = "contact"
	PickupFieldShipments  = "shipment_ids"
	PickupFieldParcels    = "parcel_count"
	PickupFieldWeight     = "total_weight_kg"
)

// DispatchInfo is what GET /v1/providers publishes of a provider's
// pickups and manifests.
type DispatchInfo struct {
	// Pickups: the carrier takes courier pickup orders through its API.
	Pickups bool `json:"pickups"`
	// PickupCancel: an ordered pickup can be cancelled through the API.
	PickupCancel bool `json:"pickup_cancel"`
	// PickupAvailability is where the windows come from: "carrier" (asked
	// per date and address) or "channel_defaults" (DefaultPickupWindows);
	// "none" when there are no pickups.
	PickupAvailability string `json:"pickup_availability"`
	// PickupShipments says what a pickup order names: "required" (the
	// shipments to collect), "optional" (shipments, or a count and weight),
	// "counts" (a parcel count and weight only: shipments named are counted).
	PickupShipments string `json:"pickup_shipments"`
	// Manifest is whose document a manifest gets: "carrier" (the carrier's,
	// with shipd's when a call answers none) or "shipd" (shipd's handover
	// document).
	Manifest string `json:"manifest"`
	// CancelAfterManifest: whether a shipment on a manifest can still be
	// cancelled: "allowed", "refused" or "carrier" (the carrier decides).
	CancelAfterManifest string `json:"cancel_after_manifest"`
	// Note says what a user should know (why there are no pickups).
	Note string `json:"note,omitempty"`
}

// The values of DispatchInfo's enumerations.
const (
	AvailabilityCarrier  = "carrier"
	AvailabilityDefaults = "channel_defaults"
	AvailabilityNone     = "none"

	PickupNamesShipments   = "required"
	PickupShipmentsOrCount = "optional"
	PickupCountsOnly       = "counts"

	ManifestByCarrier = "carrier"
	ManifestByShipd   = "shipd"

	CancelAfterManifestAllowed = "allowed"
	CancelAfterManifestRefused = "refused"
	CancelAfterManifestCarrier = "carrier"
)

// DispatchShipment is a created shipment as a pickup or a manifest names it.
type DispatchShipment struct {
	ShipmentID         string // shipd's id
	ProviderShipmentID string
	Reference          string
	ProductType        string
	TrackingNumbers    []string // one per parcel, in parcel order
	Parcels            []Parcel
	Recipient          Contact
	Destination        Address
}

// CourierPickupRequest is what a carrier is asked to collect.
type CourierPickupRequest struct {
	Date       string // 2006-01-02
	ReadyFrom  string // 15:04, local to Address
	ReadyUntil string
	Address    Address
	Contact    Contact
	// Shipments are the shipments to collect; empty when the order gives
	// only ParcelCount and TotalWeightKG (which are set either way: counted
	// from the shipments when they are named).
	Shipments     []DispatchShipment
	ParcelCount   int
	TotalWeightKG float64
	Note          string
	// Booking is the order's memory across attempts: Key is the pickup's
	// shipd id, the same on every attempt (ADR 0041 applied to pickups).
	Booking Booking
}

// CourierPickup is an ordered pickup as its carrier confirmed it.
type CourierPickup struct {
	// ConfirmationNumber is the carrier's number of the order.
	ConfirmationNumber string
	// Date, ReadyFrom and ReadyUntil are the window the carrier confirmed;
	// empty when it confirmed none, and the requested one stands.
	Date       string
	ReadyFrom  string
	ReadyUntil string
	// Handle is what the carrier needs besides the number to cancel
	// (DPD Poland's checksum); kept with the pickup, never shown.
	Handle string
}

// PickupWindowsRequest asks for the windows on Date at Address; Shipments
// when the carrier answers per shipment (Allegro).
type PickupWindowsRequest struct {
	Date      string
	Address   Address
	Shipments []DispatchShipment
}

// PickupWindow is a window the carrier offers: ready from, until, and the
// time of day on that date by which the order must be placed (empty: the
// carrier names none).
type PickupWindow struct {
	From    string `json:"ready_from"`
	Until   string `json:"ready_until"`
	OrderBy string `json:"order_by,omitempty"`
}

// ManifestRequest is the shipments to hand over on Date, from Sender at
// Origin. Key is the manifest's shipd id.
type ManifestRequest struct {
	Key       string
	Date      string
	Sender    Contact
	Origin    Address
	Shipments []DispatchShipment
}

// CarrierManifest is the carrier's answer to a manifest: its reference for
// it (a protocol number, a date), and its document (PDF), nil when it made
// none.
type CarrierManifest struct {
	Reference string
	Document  []byte
}

// DispatcherOf is p's pickups and manifests, and whether it has any.
func DispatcherOf(p Provider) (Dispatcher, bool) {
	if w, ok := p.(interface{ dispatcher() (Dispatcher, bool) }); ok {
		return w.dispatcher()
	}
	d, ok := p.(Dispatcher)
	return d, ok
}

// NoPickups is the DispatchInfo of a provider without courier pickups
// through its API, whose manifests are shipd's handover document; note says
// why, and cancelAfterManifest what a manifested shipment's cancel does.
func NoPickups(cancelAfterManifest, note string) DispatchInfo {
	return DispatchInfo{PickupAvailability: AvailabilityNone, PickupShipments: PickupCountsOnly,
		Manifest: ManifestByShipd, CancelAfterManifest: cancelAfterManifest, Note: note}
}
