// Package gls is the GLS ShipIT carrier (GLS Group REST API, DE/AT/…) with
// GLS Track & Trace v1 for tracking.
//
// Auth: OAuth2 client credentials (settings clientId, clientSecret) against
// the GLS authentication API v2 (POST /oauth2/v2/token, Basic auth,
// grant_type=client_credentials); tokens live up to 4 h and are cached per
// host and credentials, refreshed when they expire or when GLS refuses one
// early (401: forget, fetch once more, retry the call once). sandboxMode
// (default true) picks api-sandbox.gls-group.net over api.gls-group.net for
// the token, ShipIT and Track & Trace alike. contactId is the GLS contact
// id sent as Shipment.Shipper.ContactID on every booking.
//
// Shipments: POST /rs/shipments (media type application/glsVersion1+json)
// with one ShipmentUnit per parcel, in parcel order. GLS answers one
// ParcelData per parcel with an 8-character TrackID and an 11/12-digit
// ParcelNumber. The tracking number of a parcel is its ParcelNumber: it is
// what Track & Trace's /tracking/simple/trackids/{unitnos} takes ("unit
// number") and what the GLS label carries as its barcode. The TrackIDs,
// which ShipIT's cancel and reprint calls take, are kept as the provider
// shipment id, comma-separated in parcel order (e.g. "ZX4ABC12,ZX4ABC13").
//
// Products: PARCEL (default) and EXPRESS. Cash on delivery needs no product
// switch: it is a Cash service on a ShipmentUnit. The whole amount is put on
// the first parcel (GLS collects per parcel; shipd's COD is per shipment).
// Labels: pdf (GLS LabelFormat PDF) and zpl (GLS ZEBRA); GLS prints no EPL.
// The booking answers PrintData, normally one document holding every
// parcel's label in parcel order; Labels fetches them again per parcel with
// POST /rs/shipments/reprintparcel. Cancel: POST /rs/shipments/cancel/{TrackID}
// per parcel. GLS documents no answer for a parcel cancelled already
// (CancelParcelResponse.Result lists no values), so no cancel is reported as
// carrier.ErrAlreadyCancelled; a 200 counts as cancelled.
//
// Booking once (ADR 0041): as soon as GLS answers the parcels it booked,
// their TrackIDs and ParcelNumbers are recorded through
// ShipmentRequest.Booking as the booking's handle (JSON, parcel order),
// before the labels are read. An attempt given the handle books nothing: it
// answers the numbers again and shipd prints the labels with Labels. An
// answer whose labels are missing or unreadable is answered without them; one
// that names fewer parcels than were booked is answered short (shipd keeps
// no tracking numbers then), and resuming it fails as unavailable: ShipIT
// has no operation that lists a shipment's parcels, so the label step gives
// up with the shipment GLS's.
//
// Pickups and manifests (dispatch.go, manifest.go). [V] here is
// shipit-farm.yaml and GLS's ShipIT REST documentation (gls-doc:
// gls-shipit.gls-group.eu/webservices/3_5_15/doxygen/WS-REST-API/,
// rest_sporadic_collection.html and rest_tracking.html):
//   - Collection: POST /rs/sporadiccollection [V] with SporadicCollection
//     {ContactID (setting contactId), PreferredPickUpDate, NumberOfParcels,
//     Product (setting productType, PARCEL or EXPRESS [V gls-doc]),
//     ExpectedTotalWeight (kg, left out when 0), AdditionalInformation}. The
//     YAML types PreferredPickUpDate date-time; GLS's documentation writes
//     it "YYYY-MM-DD", 10 characters, and that is what is sent (the fake
//     holds the documented rules: fake_dispatch_test.go, fixCollection).
//     NumberOfParcels is mandatory, > 0 and 6 digits [V gls-doc], though the
//     YAML does not require it. A collection has no address, no contact and
//     no window: GLS collects at the contact's registered address [V], so the
//     request's address is not sent, and its window, contact person and
//     phone and note go as AdditionalInformation ("Ready 10:00-16:00. Contact
//     Max Muster +49…. note"). Shipments are never referenced: a count and a
//     weight only.
//   - Confirmed: GLS answers the date it comes, EstimatedPickUpDate
//     (date-time [V shipit]; gls-doc calls it PreferredPickUpDate: both are
//     read, as a date as written), moved from a Sunday, holiday or past date
//     to the next working day [V gls-doc]. It answers no number: the
//     pickup's ConfirmationNumber is empty, its Date GLS's, no window. The
//     date is recorded through Booking.Accept as soon as GLS answers, and an
//     attempt given it orders nothing (ShipIT takes no key of ours and lists
//     no collections).
//   - Cancel: none in the API [V shipit: no operation]; GLS says to call the
//     depot [V gls-doc]: CancelCourierPickup answers carrier.ErrNotOffered
//     saying so. Windows: none (ErrNotOffered); the dispatch module's
//     channel defaults stand.
//   - Manifest: POST /rs/shipments/endofday?date=YYYY-MM-DD [V shipit; the
//     date's form C, ruby-gls and PHP clients], no body. GLS takes every
//     shipment of the contact on that date, not the request's alone, and
//     answers them as data (EndOfDayResponse), not a document; only parcels
//     that went through the end of day are found by GLS's tracking [V
//     gls-doc], so this call is the handover. The manifest's Reference is the
//     date and it has no Document: shipd draws its handover PDF.
//   - After a manifest: whether a parcel can still be cancelled
//     (/rs/shipments/cancel/{TrackID}) is not documented: GLS decides
//     (cancel_after_manifest "carrier").
//   - Unverified [U], where it would be checked (GLS's ShipIT business
//     documentation on shipit-download.gls-group.eu, or the sandbox host):
//     whether ShipIT takes the documented date or wants the YAML's
//     date-time; the form of the answered date (a date-time at midnight is
//     read as the date it writes); how a refusal of a collection looks
//     (taken to be the 4xx with error/message headers of other calls) and
//     which words name its fields; the cut-off for a same-day collection;
//     whether the sandbox answers either operation; whether the end of day
//     can be called twice, lists the day again or only what is new, and is
//     reversible; which day's shipments a date selects (the shipping date is
//     assumed); and that the shipments GLS lists are not compared with the
//     manifest's (a retried manifest must not be refused for them).
//
// Errors: ShipIT says no with a 4xx whose headers "error" and "message"
// carry the reason and whose body is empty; those become *carrier.Rejection,
// blaming the shipd field the message's ShipIT field path names (see
// errors.go). 429, 5xx and timeouts are carrier.ErrUnavailable.
//
// Tracking: Track & Trace v1 GET /tracking/simple/trackids/{unitno}. The
// parcel's status word (PLANNEDPICKUP … FINAL) is reported as one event at
// statusDateTime beside GLS's dotted event codes (INTIAL.PREADVICE,
// DELIVD.PARCELSHOP, …); both map through the explicit table in statuses.go.
// FINAL and codes the table lacks map to nothing, so the newest mapped event
// decides. A per-parcel errorCode E_404_01 is a number GLS does not know.
//
// Vendor specs, copied in testdata/: shipit-farm.yaml (ShipIT),
// authentification-service-v2.yaml (token) and ecitrackandtrace.yaml
// (Track & Trace, with the QAS_ test parcels and the status and error
// codes). In comments [U] marks a fact they do not confirm, [C] one taken
// from a community client (karrio's GLS connector).
//
// Unverified assumptions, kept in the const block "Assumptions" below:
// the Cash service's ServiceName, the TemplateSet per label format, that a
// ShipIT error arrives as a 4xx with "error"/"message" headers (karrio reads
// it so [C]; shipit-farm.yaml declares only default responses), and the
// parcel limit of a shipment (MaxParcels, chosen: GLS documents none). Also
// assumed, next to the code: that a 200 from cancel means cancelled whatever
// Result says (shipments.go). GLS documents no event code for collected cash
// on delivery, so TrackingEvent.CODCollected is never set.
package gls

import (
	"context"
	"net/http"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Code is the provider code of GLS ShipIT.
const Code = "gls"

// The vendor's documented hosts.
const (
	ProductionURL      = "https://api.gls-group.net/shipit-farm/v1/backend"
	SandboxURL         = "https://api-sandbox.gls-group.net/shipit-farm/v1/backend"
	ProductionAuthURL  = "https://api.gls-group.net/oauth2/v2/token"
	SandboxAuthURL     = "https://api-sandbox.gls-group.net/oauth2/v2/token"
	ProductionTrackURL = "https://api.gls-group.net/track-and-trace-v1"
	SandboxTrackURL    = "https://api-sandbox.gls-group.net/track-and-trace-v1"
)

// MediaType is ShipIT's content type for requests and answers.
const MediaType = "application/glsVersion1+json"

// Assumptions: facts the vendor specs in testdata/ leave open ([U]) or that
// come from a community client ([C]) and that the adapter relies on. Confirm
// against the ShipIT business docs (shipit-download.gls-group.eu) before
// going live.
const (
	// CODServiceName is ShipmentUnit.Service[].Cash.ServiceName. [U]
	CODServiceName = "service_cash"
	// TemplateSetPDF and TemplateSetZPL are PrintingOptions.ReturnLabels
	// TemplateSet per format: NONE lets the account default decide the PDF
	// layout; ZPL_200 is the 203 dpi Zebra template. [U]
	TemplateSetPDF = "NONE"
	TemplateSetZPL = "ZPL_200"
	// ErrorHeader and MessageHeader carry ShipIT's refusal (with an empty
	// body). [C]
	ErrorHeader   = "error"
	MessageHeader = "message"
	// MaxParcels is the most ShipmentUnits one shipment may have. Neither
	// ShipIT's OpenAPI file (ShipmentUnit has no maxItems) nor its business
	// docs name a limit, so shipd chose 50: the global bound it enforced for
	// every carrier before each published its own. [U]
	MaxParcels = 50
)

// Products.
const (
	ProductParcel  = "PARCEL"
	ProductExpress = "EXPRESS"
)

// Config sets where the carrier is reached; zero values are the vendor's
// documented hosts and carrierhttp.DefaultClient.
type Config struct {
	ProductionURL, SandboxURL           string // ShipIT base ("…/shipit-farm/v1/backend")
	ProductionAuthURL, SandboxAuthURL   string // token endpoint ("…/oauth2/v2/token")
	ProductionTrackURL, SandboxTrackURL string // Track & Trace base ("…/track-and-trace-v1")
	HTTPClient                          *http.Client
	// PollInterval is unused: every GLS step answers synchronously.
	PollInterval time.Duration
}

// Carrier is GLS ShipIT. One value serves every channel; tokens are cached
// per host and credentials.
type Carrier struct {
	cfg    Config
	tokens carrierhttp.Tokens
}

// New fills cfg's empty hosts with GLS's documented ones. One adapter serves
// every channel at once; its token cache is safe for concurrent use.
func New(cfg Config) *Carrier {
	def := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	def(&cfg.ProductionURL, ProductionURL)
	def(&cfg.SandboxURL, SandboxURL)
	def(&cfg.ProductionAuthURL, ProductionAuthURL)
	def(&cfg.SandboxAuthURL, SandboxAuthURL)
	def(&cfg.ProductionTrackURL, ProductionTrackURL)
	def(&cfg.SandboxTrackURL, SandboxTrackURL)
	return &Carrier{cfg: cfg}
}

var (
	_ carrier.Provider = (*Carrier)(nil)
	_ carrier.Shipper  = (*Carrier)(nil)
	_ carrier.Tracker  = (*Carrier)(nil)
)

// Info describes GLS's settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "GLS (ShipIT)",
		Settings: []carrier.Setting{
			{Key: "clientId", Type: carrier.TypeString, Required: true, Description: "Client id of the app in the GLS developer portal."},
			{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true, Description: "Client secret of the app."},
			{Key: "contactId", Type: carrier.TypeString, Required: true, Description: "GLS contact id of the shipper (Shipper.ContactID); courier collections are ordered for it, at its registered address."},
			{Key: "productType", Type: carrier.TypeString, Enum: []string{ProductParcel, ProductExpress}, Default: ProductParcel,
				Description: "GLS product, of shipments and of courier collections; cash on delivery needs no other product."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use the GLS sandbox (no data transmission)."},
			{Key: "defaultLabelFormat", Type: carrier.TypeString, Enum: []string{"pdf", "zpl"}, Default: "pdf",
				Description: "Label format when a shipment names none (zpl is GLS's ZEBRA)."},
		},
		ProductTypes: []carrier.ProductType{
			{Code: ProductParcel, Name: "GLS Parcel", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: ProductExpress, Name: "GLS Express", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
		},
		LabelFormats: []string{"pdf", "zpl"},
		SupportsCOD:  true,
		MaxParcels:   MaxParcels,
		Dispatch:     dispatchInfo,
	}
}

// ValidateCredentials asks the GLS login for a token with the settings'
// client credentials.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	if strings.TrimSpace(s.String("contactId")) == "" {
		return &carrier.Rejection{Field: "contactId", Message: "is required"}
	}
	_, err := c.token(ctx, c.env(s))
	return err
}

// env is where one channel's calls go.
type env struct {
	base, auth, track string
	clientID, secret  string
}

func (c *Carrier) env(s carrier.Settings) env {
	e := env{base: c.cfg.ProductionURL, auth: c.cfg.ProductionAuthURL, track: c.cfg.ProductionTrackURL,
		clientID: s.String("clientId"), secret: s.String("clientSecret")}
	if s.SandboxMode() {
		e.base, e.auth, e.track = c.cfg.SandboxURL, c.cfg.SandboxAuthURL, c.cfg.SandboxTrackURL
	}
	e.base = strings.TrimRight(e.base, "/")
	e.track = strings.TrimRight(e.track, "/")
	return e
}
