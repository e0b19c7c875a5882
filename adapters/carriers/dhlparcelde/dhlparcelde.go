// Package dhlparcelde is the carrier adapter for DHL Parcel Germany (Post &
// Parcel Germany): shipments and labels through the Parcel DE Shipping API v2
// (https://developer.dhl.com/api-reference/parcel-de-shipping-post-parcel-germany-v2),
// courier pickups through the Parcel DE Pickup API v3, manifests through the
// Shipping API's close-out, tracking through DHL's Shipment Tracking –
// Unified API. Provider code "dhl_parcel_de".
//
// Authentication. The adapter uses the documented OAuth2 resource-owner
// password flow (POST /parcel/de/account/auth/ropc/v1/token, form
// grant_type=password, username and password of the business customer portal
// (GKP) user, client_id and client_secret of the developer-portal app) rather
// than dhl-api-key + HTTP Basic: DHL is replacing Basic authentication by this
// flow, the GKP password then travels once per token lifetime (1799 s) instead
// of with every call, and the token is cached per host and credentials
// (carrierhttp.Tokens), fetched again shortly before it expires, and fetched
// once more when the API answers 401 to a cached token (revoked or expired
// early); a second 401 is a Rejection blaming clientId.
//
// Shipments. The Parcel DE API has no multi-parcel shipment: each parcel is
// one DHL shipment with its own shipment number (the tracking number). All
// parcels of a shipd shipment go in ONE POST /orders (at most 30), and the
// answer (200, or 207 multi-status with a per-item sstatus) holds one item per
// parcel in request order. If any item fails, the items that were created are
// deleted again (best effort) and the whole booking is rejected, so a booking
// never half-exists; a delete that fails is logged at WARN and the shipment
// numbers DHL still holds are joined to the error (carrier.WithLeftover), for
// the shipment's record. ProviderShipmentID is the first parcel's shipment
// number; Labels and CancelShipment use the tracking numbers of the
// ShipmentRef (all parcels), falling back to ProviderShipmentID. The API
// returns no price: CreatedShipment.Price is nil.
//
// Countries are sent as ISO 3166-1 alpha-3, converted from shipd's alpha-2 by
// an explicit table (countries.go); a country outside it is rejected on
// origin_address.country_code or destination_address.country_code.
//
// Products (setting productType, default V01PAK): V01PAK DHL Paket, V53WPAK
// DHL Paket International, V54EPAK DHL Europaket, V62KP DHL Kleinpaket,
// V66WPI Warenpost International. The setting billingNumber (14 characters:
// EKP, procedure, participation) must belong to the chosen product.
//
// Labels: PDF (docFormat=PDF, label.b64) and ZPL (docFormat=ZPL2,
// label.zpl2), one per parcel in parcel order, returned with the booking and
// fetched again by GET /orders?shipment=…&docFormat=…. DHL prints no EPL.
//
// Cash on delivery: services.cashOnDelivery, V01PAK only (no COD product, no
// product switch), EUR only (another currency is rejected on
// cash_on_delivery.currency). The whole amount goes on the FIRST parcel's
// shipment (DHL collects per shipment; shipd's COD is per booking);
// transferNote1 (required by DHL) is the shipment reference, else "shipd".
//
// Cancel: DELETE /orders?profile=…&shipment=…(repeated): only before DHL's
// end-of-day manifest. DHL answers 400 per item for unknown or already
// deleted shipments [V]: since shipd only deletes numbers DHL gave it, such
// an answer for every parcel is carrier.ErrAlreadyCancelled (an earlier
// cancel worked). The refusal of a manifested shipment is not documented,
// so only an item whose words say unknown or deleted counts as deleted
// (AssumedDeletedWords); any other refusal is a Rejection.
//
// Booking once (ADR 0041): as soon as DHL answers that every parcel's
// shipment was created, their numbers are recorded through
// ShipmentRequest.Booking as the booking's handle (comma-separated, in
// parcel order), before the labels are read. An attempt given the handle
// books nothing: it answers the numbers again, and shipd fetches the labels
// with Labels (GET /orders). A booking answer whose labels are missing or
// unreadable is answered without labels, never as a failure: DHL holds the
// shipments.
//
// Tracking uses the Unified API (GET /track/shipments?trackingNumber=…
// &service=parcel-de, header DHL-API-Key = clientId) rather than the Parcel DE
// XML tracking API (d-get-piece-detail): Unified is JSON, needs no extra
// ZT-Kennung/appname credentials beyond the app key, and DHL ships an example
// answer of it. Each event's statusCode (pre-transit, transit, delivered,
// failure, unknown) is its code; 404 is "not recognized". The status table
// (statuses.go) also maps every ICE event and TTpro code of DHL's event table,
// for events that carry one.
//
// Pickups and manifests (pickups.go, manifests.go; carrier.Dispatcher).
// [V] here is DHL's Pickup API v3 file (parcel-de-pickup-v3.yaml) and the
// shipping file's /manifests:
//   - Pickup order: POST /parcel/de/transportation/pickup/v3/orders on the
//     shipping hosts, with the same ROPC bearer token [V servers, security];
//     the GKP user needs DHL's Pickup right (a 403 is refused on username).
//     Sent: pickupDate {type Date, value} (DHL's ASAP is not used),
//     pickupLocation {type Address, pickupAddress: company or person as
//     name1, the person as name2, street, house number (required), postal
//     code (7 characters at most), city, country alpha-2}, or {type Id, asId}
//     with the setting pickupLocationId (an agreed location); the request's
//     window as businessHours (DHL takes opening hours, no window to book);
//     the contact as contactPerson, with DHL's confirmation and time-window
//     e-mails asked for when it has an e-mail address; totalWeight in kg;
//     the note as comment (100 characters). Items: one Shipment per parcel
//     (transportationType PAKET, PALETTEN for a pallet), naming its DHL
//     shipment number when the request names shipments, else as many as the
//     parcel count; each carries a size S/M/L and the pickup's mark as
//     customerReference. customerDetails.billingNumber is the setting
//     pickupBillingNumber: with it DHL collects at any address, charged
//     (Einzelabholung; procedure 08 when DHL prints the labels); without it
//     only at the account's agreed pickup locations, free [V: DHL's
//     developer portal]. Business hours stay in the order's top level as
//     the schema says, not inside pickupLocation where DHL's examples put
//     them; the fake follows the schema.
//   - Confirmed: DHL answers the order's id (32 characters) and its date
//     [V], no window: CourierPickup has DHL's id and date, no times, no
//     handle (the id is all a cancel needs). Errors: 422 lists DHL's errors,
//     each naming a property (instance), mapped to the request's field (or
//     to pickupBillingNumber or pickupLocationId); 400 has no documented
//     body.
//   - Ordered once: DHL takes no key of ours, so every item carries a mark
//     derived from the pickup's Booking.Key ("shipd-" and 14 hex digits of
//     its SHA-256, customerReference's 20 characters). The order's id is
//     recorded through Booking.Accept as soon as DHL answers; an attempt
//     given it reads the order back (GET /orders?orderID=) and orders
//     nothing. A first attempt asks GET /orders?pickupDate=&pickupPostalCode=
//     for an order carrying the mark (an earlier attempt whose answer was
//     lost) that DHL has neither cancelled nor refused, and answers that one.
//   - Cancel: DELETE /orders?orderID= answers per order, a refusal inside a
//     200 too [V]; an order DHL reports cancelled (STORNIERT) already counts
//     as cancelled; any other failed cancellation is a Rejection with DHL's
//     state and message. Windows: none in the API (GET /locations lists
//     agreed places, not times): ErrNotOffered, the channel's defaults stand.
//   - Manifest: POST /parcel/de/shipping/v2/manifests {profile,
//     shipmentNumbers} closes the shipments out, at most 30 numbers a call
//     [V maxItems], so in chunks; each shipment's sstatus says whether it was
//     closed, one closed already being a warning [V], so a repeated manifest
//     is harmless. A shipment DHL refuses is a Rejection on shipment_ids
//     (the rest stay closed out). Then GET /manifests?date=&includeDocs=
//     include answers the day's manifest PDF (base64, an array of documents,
//     merged into one), for the whole EKP: it lists every shipment of the
//     DHL account closed out that day, also those of other channels or
//     closed out by DHL's daily close-out [V]. Reference: the date and the
//     sheet numbers of the manifest's shipments. A 400 of GET (a date too old
//     or in the future [V]) is a Rejection on date; a 404 answers no document
//     (shipd draws its own).
//   - After the close-out a shipment can no longer be changed nor deleted
//     [V]: cancel_after_manifest "refused".
//   - Unverified [U], where it would be checked (DHL's sandbox with a GKP
//     user holding the Pickup right, or DHL Parcel DE's customer IT support):
//     the pickup cut-off and lead time (none in the API); until when a
//     pickup can be cancelled; whether DHL moves a date it does not serve or
//     refuses it (the adapter answers the date DHL confirms); the bounds of
//     the sizes S, M, L (AssumedSizeSums, AssumedUnknownSize); whether a
//     shipmentNo must belong to the same EKP; whether GET /orders filters by
//     the date ordered or a date DHL moved it to (the look-up asks the date
//     ordered); what status a close-out warning carries (any 2xx counts as
//     closed); whether GET /manifests of today lists shipments not yet closed
//     out, and what it answers for a day without any (404 is read as no
//     document); the latest close-out hour of the account (configured at
//     DHL, not in the API); DHL's refusal when a closed-out shipment is
//     deleted (already [U] above).
//
// Vendor copies in testdata/: the Shipping API's OpenAPI file
// (parcel-de-shipping-v2_2.yaml, v2.1.13), the Pickup API's
// (parcel-de-pickup-v3.yaml, v3.0.0), DHL's table of ICE events, RIC
// reasons and TTpro codes (parcel_de_ice_event_ric_combinations_July_2024.csv)
// and an example Unified tracking answer (dhl_unified_tracking_example.json).
// The tests' fake holds every request and answer to the OpenAPI files through
// vendorspec, strict: an object may carry only the properties its schema
// names (so the shipper goes out without a phone: DHL's Shipper has none,
// only the consignee's ContactAddress does [V]).
// In comments [V] marks a fact from those or DHL's docs, [C] one from a
// community client (karrio's dhl_parcel_de connector), [U] one nobody
// confirmed. Assumptions not verified against the live API are kept in the
// Assumed* constants below.
package dhlparcelde

import (
	"context"
	"net/http"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Code is the provider code.
const Code = "dhl_parcel_de"

// Documented hosts and paths [V: OpenAPI servers, auth API docs].
const (
	ProductionHost = "https://api-eu.dhl.com"
	SandboxHost    = "https://api-sandbox.dhl.com"
	shippingBase   = "/parcel/de/shipping/v2"
	tokenPath      = "/parcel/de/account/auth/ropc/v1/token"
	trackingPath   = "/track/shipments"
	// MaxParcels is the most shipments one POST /orders takes (the
	// spec's shipments maxItems) [V]; one parcel is one DHL shipment, so it
	// is the parcel limit of a shipd shipment.
	MaxParcels = 30
)

// Assumptions not confirmed by DHL's documentation; every one in one place.
const (
	// AssumedSandboxTrackingHost is the Unified tracking API's test host
	// [U]: neither the Unified API's docs nor the example answer name one;
	// production tracking is on api-eu.dhl.com.
	AssumedSandboxTrackingHost = "https://api-test.dhl.com"
	// AssumedAPIKeyWithBearer: the dhl-api-key header (clientId) is sent
	// together with the bearer token; the spec's security section names
	// dhl-api-key, the auth docs only the bearer [U].
	AssumedAPIKeyWithBearer = true
	// AssumedTrackingKey: the clientId app is subscribed to the Unified
	// tracking API too, so it is the DHL-API-Key of tracking calls [U].
	AssumedTrackingKey = "clientId"
	// AssumedCODDefaultAccount: no bankAccount/accountReference is sent with
	// cash on delivery; DHL uses the GKP account's default COD bank account
	// reference (the spec says a missing reference falls back to it) [U].
	AssumedCODDefaultAccount = true
	// AssumedTokenErrorGrant: a token answer with error "invalid_grant"
	// blames the GKP user (password); any other refusal blames clientSecret [U].
	AssumedTokenErrorGrant = "invalid_grant"
	// AssumedItemsInRequestOrder: the items of a POST /orders answer come in
	// the order of the request's shipments (they carry no parcel index; the
	// spec's examples and karrio read them so) [C].
	AssumedItemsInRequestOrder = true
	// AssumedUnknownSize is the size class (S, M, L) of a pickup item
	// whose dimensions are unknown: DHL requires one on orders without a
	// billing number and does not define the classes [U].
	AssumedUnknownSize = "M"
)

// AssumedSizeSums are the largest sums of a parcel's three sides (cm) of
// the pickup size classes S and M; above them an item is L [U: DHL names
// the classes, not their bounds; a shoebox and a moving box].
var AssumedSizeSums = [2]float64{75, 140}

// AssumedDeletedWords are the words (lower case) of a refused DELETE /orders
// item that mark DHL's documented answer for a shipment that does not exist
// or was deleted already [V: the answer; U: its words, English or German as
// Accept-Language picks]; a refusal without them (a manifested shipment's,
// whose answer DHL does not document) is reported as a refusal.
var AssumedDeletedWords = []string{"unknown", "does not exist", "not found", "already deleted", "was deleted",
	"unbekannt", "nicht gefunden", "existiert nicht", "bereits gelöscht", "bereits storniert"}

// Default setting values.
const (
	DefaultProfile = "STANDARD_GRUPPENPROFIL"
	DefaultProduct = "V01PAK"
)

// Config sets where the adapter sends its calls.
type Config struct {
	// ProductionURL and SandboxURL are the API gateway hosts of shipping and
	// auth ("" = ProductionHost, SandboxHost); paths are appended.
	ProductionURL, SandboxURL string
	// ProductionTrackingURL and SandboxTrackingURL are the Unified tracking
	// hosts ("" = ProductionHost, AssumedSandboxTrackingHost).
	ProductionTrackingURL, SandboxTrackingURL string
	// HTTPClient sends every call; nil = carrierhttp.DefaultClient.
	HTTPClient *http.Client
	// PollInterval is unused: DHL Parcel DE has no asynchronous steps.
	PollInterval time.Duration
}

// Carrier is the DHL Parcel DE adapter; one value serves every channel.
type Carrier struct {
	cfg    Config
	tokens carrierhttp.Tokens
}

// New keeps cfg as given: empty hosts fall back to DHL's on each call. One
// adapter serves every channel at once; its token cache is safe for
// concurrent use.
func New(cfg Config) *Carrier { return &Carrier{cfg: cfg} }

var (
	_ carrier.Provider = (*Carrier)(nil)
	_ carrier.Shipper  = (*Carrier)(nil)
	_ carrier.Tracker  = (*Carrier)(nil)
)

// products DHL Parcel DE books through this adapter, in Info order.
var products = []carrier.ProductType{
	{Code: "V01PAK", Name: "DHL Paket", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
	{Code: "V53WPAK", Name: "DHL Paket International", PickupPoint: carrier.PickupPointNone},
	{Code: "V54EPAK", Name: "DHL Europaket", PickupPoint: carrier.PickupPointNone},
	{Code: "V62KP", Name: "DHL Kleinpaket", PickupPoint: carrier.PickupPointNone},
	{Code: "V66WPI", Name: "Warenpost International", PickupPoint: carrier.PickupPointNone},
}

func productCodes() []string {
	out := make([]string, len(products))
	for i, p := range products {
		out[i] = p.Code
	}
	return out
}

func product(code string) (carrier.ProductType, bool) {
	for _, p := range products {
		if p.Code == code {
			return p, true
		}
	}
	return carrier.ProductType{}, false
}

// Info describes the settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "DHL Parcel Germany (Parcel DE Shipping API v2)",
		Settings: []carrier.Setting{
			{Key: "clientId", Type: carrier.TypeString, Required: true, Description: "API key of the app on developer.dhl.com (also the DHL-API-Key of tracking)."},
			{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true, Description: "API secret of the app on developer.dhl.com."},
			{Key: "username", Type: carrier.TypeString, Required: true, Description: "User of the DHL business customer portal (GKP)."},
			{Key: "password", Type: carrier.TypeString, Required: true, Secret: true, Description: "Password of the GKP user."},
			{Key: "billingNumber", Type: carrier.TypeString, Required: true, Description: "14-character billing number (EKP + procedure + participation) of the product used."},
			{Key: "profile", Type: carrier.TypeString, Default: DefaultProfile, Description: "GKP user group profile allowed to use the billing number."},
			{Key: "productType", Type: carrier.TypeString, Enum: productCodes(), Default: DefaultProduct, Description: "DHL product; cash on delivery only with V01PAK."},
			{Key: settingPickupBilling, Type: carrier.TypeString, Description: "Billing number (14 characters) DHL charges courier pickups at any address to (Einzelabholung; procedure 08 when DHL brings the labels). Empty: DHL collects only at the account's agreed pickup locations, free."},
			{Key: settingPickupLocation, Type: carrier.TypeString, Description: "Id of an agreed DHL pickup location (AS and 10 digits) where every courier pickup is ordered, instead of the pickup's address."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use DHL's sandbox (api-sandbox.dhl.com) instead of production."},
			{Key: "defaultLabelFormat", Type: carrier.TypeString, Enum: []string{"pdf", "zpl"}, Default: "pdf", Description: "Label format when a shipment names none."},
		},
		ProductTypes:      products,
		LabelFormats:      []string{"pdf", "zpl"},
		SupportsCOD:       true,
		MaxParcels:        MaxParcels,
		MaxParcelWeightKG: MaxWeightGrams / 1000.0,
		Dispatch:          dispatchInfo,
	}
}

// ValidateCredentials fetches a token: DHL's login checks the app key and
// secret and the GKP user and password together.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	if err := checkCredentials(s); err != nil {
		return err
	}
	_, err := c.token(ctx, s)
	return err
}

// checkCredentials refuses settings that cannot be right before any call.
func checkCredentials(s carrier.Settings) error {
	var problems []*carrier.Rejection
	for _, k := range []string{"clientId", "clientSecret", "username", "password"} {
		if strings.TrimSpace(s.String(k)) == "" {
			problems = append(problems, carrier.Reject(k, "is required by DHL Parcel DE"))
		}
	}
	if b := s.String("billingNumber"); !validBillingNumber(b) {
		problems = append(problems, carrier.Reject("billingNumber", "must be 14 characters: 10-digit EKP, 2-digit procedure, 2-character participation (got %q)", b))
	}
	return carrier.RejectionOf(problems)
}

func validBillingNumber(b string) bool {
	if len(b) != 14 {
		return false
	}
	for i, r := range b {
		digit := r >= '0' && r <= '9'
		word := digit || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
		if (i >= 10 && i < 12 && !digit) || !word {
			return false
		}
	}
	return true
}

// apiHost is the shipping/auth host of the channel's mode.
func (c *Carrier) apiHost(s carrier.Settings) string {
	if s.SandboxMode() {
		return orDefault(c.cfg.SandboxURL, SandboxHost)
	}
	return orDefault(c.cfg.ProductionURL, ProductionHost)
}

// trackingHost is the Unified tracking host of the channel's mode.
func (c *Carrier) trackingHost(s carrier.Settings) string {
	if s.SandboxMode() {
		return orDefault(c.cfg.SandboxTrackingURL, AssumedSandboxTrackingHost)
	}
	return orDefault(c.cfg.ProductionTrackingURL, ProductionHost)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return strings.TrimRight(v, "/")
}

func profile(s carrier.Settings) string {
	return orDefault(strings.TrimSpace(s.String("profile")), DefaultProfile)
}
