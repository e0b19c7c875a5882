// Package sandbox is a built-in carrier that behaves like a real one but runs
// offline, so the whole service can be tried and tested without a carrier
// account. It books shipments in memory (gone after a restart, unless a
// journal file keeps them),
// numbers parcels with UPU S10 tracking numbers ("SB", 8-digit serial, check
// digit, origin country, e.g. SB473124829CZ), prices them and prints real
// labels (pdf, zpl, epl).
//
// Products: STANDARD and EXPRESS to the address, POINT to a pickup point,
// and their cash-on-delivery variants STANDARD_COD, EXPRESS_COD and
// POINT_COD; an empty product is STANDARD. Cash on delivery needs a _COD
// product and a _COD product needs cash on delivery. A POINT shipment names
// its pickup point (pickup_point_id, else the channel's defaultPickupPoint):
// the sandbox's points are SBP and 1 to 6 digits (SBP1001); any other is
// refused on pickup_point_id, as is a point on STANDARD or EXPRESS.
// Labels can be fetched again in any format; a second cancel answers that
// the shipment is cancelled already (carrier.ErrAlreadyCancelled), and a
// cancelled shipment's labels are void (refused).
//
// Price, in EUR, per parcel 4.90 (STANDARD), 9.90 (EXPRESS) or 3.90 (POINT) plus 0.80 per
// started kilogram of the billable weight, the greater of the actual weight
// and the volumetric weight (length × width × height in cm / 5000); plus 1.50
// per shipment with cash on delivery.
//
// Documented trigger values exercise the failure paths:
//
//   - clientSecret "invalid": the carrier rejects the credentials (every call).
//   - clientSecret "unavailable": the carrier cannot be reached (every call; 503 to the caller).
//   - destination postal code "99999": not served; rejected on destination_address.postal_code.
//   - a parcel over 31.5 kg: rejected on parcels.N.weight_amount. More than 20 parcels: rejected
//     on parcels. (Both limits are published, so the API refuses such a shipment when it is
//     created; the sandbox still refuses them itself, as a carrier does.) Several problems at once come back together as carrier.Rejections.
//   - reference "TRANSIENT-n-..." (n = 1..9): the first n bookings of that exact reference in
//     this process fail as unavailable (503), later ones succeed.
//   - reference "HANG...": the booking blocks until its context ends, then fails as unavailable.
//   - reference "DOWN...": the booking always fails as unavailable.
//   - reference "NO-CANCEL...": the shipment books, but cancelling it is refused as already
//     picked up.
//   - reference "UNPRICED...": the shipment books, but the answer names no price, as DHL
//     Parcel DE, GLS and PPL always answer.
//   - reference "NO-TRACKING-NUMBER...": the shipment books, but the answer lacks the last
//     parcel's tracking number; resuming the booking (its handle) answers them all.
//   - reference "LABELFAIL-n-..." (n = 1..9): the booking answers without labels and the first
//     n label fetches of the shipment fail as unavailable.
//   - reference "LABELBAD-n-...": the first n label answers (the booking's included) are
//     corrupt files that cannot be merged.
//
// A booking is handed to shipd's Booking.Accept (its id is the handle)
// before the sandbox answers, and a booking given that handle is resumed,
// never made again. With a journal (SANDBOX_JOURNAL) bookings and courier
// pickup orders outlive the process and every process sharing the file
// sees them.
//
// Tracking. A tracking number's serial says what its journey is: the first
// digit picks the journey, the second is 1 for a cash-on-delivery parcel
// (its delivery is followed a minute later by CODPAID, the carrier's
// confirmation that the cash was collected). A journey starts when shipd
// starts tracking the parcel and runs on the sandbox clock, SANDBOX_TIME_SCALE
// sandbox seconds per real second (3600: a sandbox hour per second).
//
//	digit  journey                                                 example
//	0,8,9  picked up 2 h, hub 8 h, out 20 h, delivered 26 h          SB000000014CZ
//	1      out 20 h, delivery failed 24 h, delivered 48 h            SB100000017CZ
//	2      delivery failed 24 h, pickup point 26 h, returned 96 h    SB200000010CZ
//	3      on hold at customs 10 h, released 34 h, delivered 50 h    SB300000012CZ
//	4      never recognized (stays not_recognized)                   SB400000015CZ
//	5      only codes the status table lacks (status error)          SB500000018CZ
//	6      the tracking service answers 503 (failed checks)          SB600000015CZ
//	7      the tracking service never answers (times out)            SB700000013CZ
//
// With cash on delivery: SB010000019CZ (normal), SB110000011CZ (failed
// attempt, then delivered). Any other serial works the same way. A
// shipment picks the journey of its parcels with a reference prefix:
// TRACK-FAILED, TRACK-RETURNED, TRACK-HOLD, TRACK-UNKNOWN, TRACK-UNMAPPED,
// TRACK-DOWN, TRACK-HANG. Numbers that are not valid S10 numbers with the SB
// indicator are not recognized. A shipment cancelled here adds CANCEL.
package sandbox

import (
	"context"
	"fmt"
	"sync"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/clock"
)

// Code is the provider code of the sandbox carrier.
const Code = "sandbox"

// Trigger values of clientSecret.
const (
	SecretInvalid     = "invalid"
	SecretUnavailable = "unavailable"
)

// Trigger prefixes of the shipment reference.
const (
	RefTransient = "TRANSIENT-"
	RefHang      = "HANG"
	RefDown      = "DOWN"
	RefNoCancel  = "NO-CANCEL"
	RefUnpriced  = "UNPRICED"
	RefNoTrack   = "NO-TRACKING-NUMBER"
	RefLabelFail = "LABELFAIL-"
	RefLabelBad  = "LABELBAD-"
)

// Carrier is the sandbox carrier. Its newest bookings live in memory, so one value
// is one carrier account's history; the zero value is ready to use.
type Carrier struct {
	config     Config
	mu         sync.Mutex
	shipments  map[string]*shipment // by provider shipment id
	kept       []string             // the ids of shipments, oldest first (forget)
	attempts   map[string]int       // booking calls per TRANSIENT- reference
	labelTries map[string]int       // label answers per LABELFAIL-/LABELBAD- booking
	failLabels int                  // label answers still to fail (FailNextLabels)
	dropNumber int                  // booking answers still to lack a number (DropNextTrackingNumber)
	cancelled  map[string]time.Time // cancellation time per tracking number of the shipments
	pickups    *pickupBook          // courier pickups ordered (dispatch.go)
}

// Config sets the sandbox's sense of time.
type Config struct {
	// Clock tells the time tracking journeys are measured against; the
	// real clock when nil.
	Clock clock.Clock
	// TimeScale is how many sandbox seconds pass per real second; 1 when 0.
	TimeScale float64
	// Journal is a file where the sandbox keeps every booking, courier
	// pickup order and cancel, one JSON line each (SANDBOX_JOURNAL), so
	// that another process, or this one after a restart, resumes a booking
	// and prints its labels, and answers a pickup ordered again from the
	// order it made; "" keeps them in memory only. Bookings and
	// PickupOrdersIn read it back.
	Journal string
	// FailLabelsUntil makes every label the sandbox is asked for fail
	// (bookings answer without labels, Labels as unavailable) until then
	// (SANDBOX_FAIL_LABELS_FOR after the start): the fault suite's label
	// service outage.
	FailLabelsUntil time.Time
	// Remember is how many bookings the sandbox keeps in memory, the
	// newest (DefaultRemember when 0); older ones are forgotten as a
	// carrier's test environment purges them: their labels and cancel
	// answer "unknown shipment", their tracking goes on (it follows the
	// tracking number) without their cancel. A journal keeps every booking
	// on disk regardless.
	Remember int
}

// DefaultRemember is how many bookings the sandbox keeps in memory when its
// Config says nothing: a booking costs about 1.5 KiB, so a sandbox that
// booked 150 a second for 20 minutes held 270 MiB more at the end than at
// the start (make soak, issue 32) and never stopped growing.
const DefaultRemember = 20_000

// New returns the sandbox carrier on the real clock at scale 1.
func New() *Carrier { return &Carrier{} }

// NewWithConfig returns the sandbox carrier with its own clock and scale.
func NewWithConfig(cfg Config) *Carrier { return &Carrier{config: cfg} }

var (
	_ carrier.Provider      = (*Carrier)(nil)
	_ carrier.Shipper       = (*Carrier)(nil)
	_ carrier.Tracker       = (*Carrier)(nil)
	_ carrier.TimeScaled    = (*Carrier)(nil)
	_ carrier.BookingFinder = (*Carrier)(nil)
)

func (c *Carrier) now() time.Time {
	if c.config.Clock == nil {
		return clock.Real{}.Now()
	}
	return c.config.Clock.Now()
}

func (c *Carrier) scale() float64 {
	if c.config.TimeScale <= 0 {
		return 1
	}
	return c.config.TimeScale
}

// Info describes the sandbox's settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "Sandbox carrier (offline, for trying the API)",
		Settings: []carrier.Setting{
			{Key: "clientId", Type: carrier.TypeString, Required: true, Description: "Client id of the carrier account."},
			{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true,
				Description: `Client secret. "invalid" makes validation fail; "unavailable" makes the carrier unreachable.`},
			{Key: "productType", Type: carrier.TypeString, Enum: []string{"STANDARD", "EXPRESS", "POINT"}, Default: "STANDARD",
				Description: "Product used for shipments; switched to its COD variant when cash on delivery is asked for."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use the carrier's test environment."},
			{Key: "defaultLabelFormat", Type: carrier.TypeString, Enum: []string{"pdf", "zpl", "epl"}, Default: "pdf",
				Description: "Label format when a shipment names none."},
			{Key: carrier.DefaultPickupPointSetting, Type: carrier.TypeString,
				Description: "Pickup point of POINT shipments that name none (pickup_point_id), e.g. SBP1001."},
		},
		ProductTypes: []carrier.ProductType{
			{Code: "STANDARD", Name: "Standard parcel", CODProduct: "STANDARD_COD", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: "EXPRESS", Name: "Express parcel", CODProduct: "EXPRESS_COD", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: "POINT", Name: "Parcel to a pickup point", CODProduct: "POINT_COD", SupportsCOD: true, PickupPoint: carrier.PickupPointRequired},
		},
		LabelFormats:      []string{"pdf", "zpl", "epl"},
		SupportsCOD:       true,
		MaxParcels:        MaxParcels,
		MaxParcelWeightKG: MaxWeightKG,
		Dispatch:          dispatchInfo(),
	}
}

// ValidateCredentials accepts any client id and secret except the trigger values.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	return reachable(ctx, s)
}

// reachable is what every call meets first: a done context or a trigger
// secret ends it as a real carrier's login would.
func reachable(ctx context.Context, s carrier.Settings) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %v", carrier.ErrUnavailable, err)
	}
	switch s.String("clientSecret") {
	case SecretInvalid:
		return &carrier.Rejection{Field: "clientSecret", Message: "the carrier rejected the client credentials (invalid_client)"}
	case SecretUnavailable:
		return unavailable("sandbox carrier answered 503 Service Unavailable")
	}
	return nil
}

func unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{carrier.ErrUnavailable}, args...)...)
}
