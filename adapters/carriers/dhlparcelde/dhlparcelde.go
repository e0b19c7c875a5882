// Package dhlparcelde is the carrier adapter for DHL Parcel Germany (Post &
// Parcel Germany): shipments and labels through the Parcel DE Shipping API v2
// (https://developer.dhl.com/api-reference/parcel-de-shipping-post-parcel-germany-v2),
// tracking through DHL's Shipment Tracking – Unified API. Provider code
// "dhl_parcel_de".
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
// Vendor copies in testdata/: the Shipping API's OpenAPI file
// (parcel-de-shipping-v2_2.yaml, v2.1.13), DHL's table of ICE events, RIC
// reasons and TTpro codes (parcel_de_ice_event_ric_combinations_July_2024.csv)
// and an example Unified tracking answer (dhl_unified_tracking_example.json).
// The tests' fake holds every request and answer to the OpenAPI file through
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
)

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
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use DHL's sandbox (api-sandbox.dhl.com) instead of production."},
			{Key: "defaultLabelFormat", Type: carrier.TypeString, Enum: []string{"pdf", "zpl"}, Default: "pdf", Description: "Label format when a shipment names none."},
		},
		ProductTypes:      products,
		LabelFormats:      []string{"pdf", "zpl"},
		SupportsCOD:       true,
		MaxParcels:        MaxParcels,
		MaxParcelWeightKG: MaxWeightGrams / 1000.0,
		Dispatch:          carrier.NoPickups(carrier.CancelAfterManifestCarrier, "Courier pickups are not wired to DHL Parcel DE yet."),
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
