// Package ppl is the carrier adapter for PPL (Czech Republic, DHL group)
// through its CPL API "myAPI2", hosted on DHL's API gateway.
//
// Auth: OAuth2 client credentials (clientId, clientSecret, scope myapi2)
// posted form-urlencoded to <base>/login/getAccessToken. A token lives 30
// minutes and PPL hands out at most 12 tokens a minute, so tokens are cached
// per host and credentials (carrierhttp.Tokens) and fetched again only when
// expired or refused with 401.
//
// Hosts: production https://api.dhl.com/ecs/ppl/myapi2, sandbox
// https://api-dev.dhl.com/ecs/ppl/myapi2 (setting sandboxMode, default true).
//
// Products (setting productType): BUSS (Business, B2B), PRIV (Private, B2C),
// SMAR (Smart, to ParcelShop/ParcelBox), SMEU (Smart Europe), CONN (Connect,
// international), DOPO (Morning). Cash on delivery needs the COD variant:
// BUSD, PRID, SMAD, SMED, COND, DOPD, published as ProductType.CODProduct;
// shipd switches before calling, and the adapter passes whatever product it
// is given. Sending cashOnDelivery with a non-COD product is refused by PPL
// (a Rejection), as is cash on delivery on an international set of several
// parcels ("Cash on delivery service is not allowed for export bundled
// shipments").
//
// Booking is PPL's asynchronous batch: POST /shipment/batch answers 201 with
// the batch in the Location header; GET /shipment/batch/{batchId} is polled
// (Config.PollInterval) until every item is Complete, or one is Error (a
// Rejection with the item's errorMessage), or ctx ends (ErrUnavailable). A
// shipment of N parcels is one shipments[] element with
// shipmentSet.numberOfShipments = N; PPL gives each parcel its own
// shipmentNumber (the tracking number), items in parcel order. The
// ProviderShipmentID is the batchId.
//
// Labels: pdf and zpl (PPL's Pdf and Zpl; it also prints Jpeg/Png/Svg, which
// shipd does not use, and no EPL). One label per parcel from the item's
// labelUrl, downloaded with the Bearer token; they come with the booking.
// Labels fetches them again from the batch and, when asked for the other
// format, first changes the batch's labelSettings with PUT
// /shipment/batch/{batchId}.
//
// Cancel: POST /shipment/{shipmentNumber}/cancel for every parcel (202); PPL
// refuses once the parcel was picked up (a Rejection).
//
// Tracking: GET /shipment?ShipmentNumbers=n; an empty array is a number PPL
// does not know. Each trackAndTrace event keeps as its Code the legacy
// numeric statusId (e.g. "450"), which the table in statuses.go maps; an
// event without a statusId keeps its textual code, which the table lacks
// (no status is guessed). The coarse shipmentState (e.g. "Delivered") is
// added as one more event, Code = the state name, when it says more than the
// newest mapped event; "None" adds nothing. COD-paid codes (605, 606, 613,
// 614) set CODCollected.
//
// Errors: PPL answers RFC 7807 problem+json with an errors map keyed by its
// field paths ("Shipments[0].Recipient.ZipCode"); each entry becomes a
// Rejection on shipd's field where one corresponds (errors.go). 429, 5xx,
// timeouts and no answer are ErrUnavailable.
//
// PPL's official documentation is the CPL API reference at
// https://ppl-cpl-api-en.apidog.io/ (one OpenAPI snippet per endpoint, schemas
// Eps.Api.MyApi2.*); no copy of it is in this repository. Assumptions it does
// not confirm are kept in the var block "Unverified assumptions" below: the
// sandbox host, the OAuth scope, the batch status answer's shape, label URLs
// being on the API host, the body of the labelSettings PUT, the legacy
// statusId meanings, the shipmentState values, the 10-digit COD variable
// symbol, and the parcel limit of a shipment set (MaxParcels, chosen: PPL
// documents none).
package ppl

import (
	"context"
	"net/http"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Code is the provider code of PPL.
const Code = "ppl"

// The vendor's documented hosts.
const (
	ProductionURL = "https://api.dhl.com/ecs/ppl/myapi2"
	SandboxURL    = "https://api-dev.dhl.com/ecs/ppl/myapi2"
)

// Unverified assumptions, in one place: what community clients (pplmyapi,
// PTB\PPLApi, Medusa plugins) do or what shipd chose, where PPL's CPL API
// reference is silent.
var (
	// SandboxURL (const above) is the host community clients use, not an
	// official page.
	//
	// tokenScope is the OAuth2 scope community clients send.
	tokenScope = "myapi2"
	// The batch status answer is {"items":[{referenceId, shipmentNumber,
	// importState, labelUrl, errorCode, errorMessage}], "completeLabel":
	// {"labelUrls":[...]}} with one item per parcel in parcel order
	// (community clients; see batchStatus in shipments.go).
	//
	// Label URLs point at the API host; the Bearer token is only sent to
	// that host (labels.go, sameHost).
	//
	// PUT /shipment/batch/{batchId} takes {"labelSettings": {...}} like the
	// booking (labels.go, relabel).
	//
	// The legacy statusId meanings (statuses.go) are from pplmyapi; the
	// shipmentState values from PTB\PPLApi.
	//
	// codVarSymDigits: the COD variable symbol is at most 10 digits; it is
	// taken from the digits of the shipment reference, omitted when it has
	// none (the account's default then applies).
	codVarSymDigits = 10
)

// MaxParcels is the most parcels one shipment set may have, an unverified
// choice like the assumptions above: PPL documents no limit of
// shipmentSet.numberOfShipments (a community client notes at most 1000
// shipments per batch, which bounds shipments, not the parcels of a set),
// so shipd chose 50, the global bound it enforced for every carrier before
// each published its own.
const MaxParcels = 50

// Default polling interval of the booking batch.
const defaultPollInterval = 500 * time.Millisecond

// Config sets where the adapter talks to; the zero value is PPL's own hosts.
type Config struct {
	// ProductionURL and SandboxURL are the API bases (token endpoint
	// included); "" = the documented hosts.
	ProductionURL, SandboxURL string
	// HTTPClient sends every call; nil = carrierhttp.DefaultClient.
	HTTPClient *http.Client
	// PollInterval spaces the batch status polls; 0 = 500 ms.
	PollInterval time.Duration
}

// Carrier is the PPL adapter. It keeps only OAuth tokens between calls.
type Carrier struct {
	cfg    Config
	tokens carrierhttp.Tokens
}

// New fills cfg's empty fields with PPL's hosts and a 500 ms poll interval.
// One adapter serves every channel at once; its token cache is safe for
// concurrent use.
func New(cfg Config) *Carrier {
	if cfg.ProductionURL == "" {
		cfg.ProductionURL = ProductionURL
	}
	if cfg.SandboxURL == "" {
		cfg.SandboxURL = SandboxURL
	}
	cfg.ProductionURL = strings.TrimRight(cfg.ProductionURL, "/")
	cfg.SandboxURL = strings.TrimRight(cfg.SandboxURL, "/")
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = defaultPollInterval
	}
	return &Carrier{cfg: cfg}
}

var (
	_ carrier.Provider = (*Carrier)(nil)
	_ carrier.Shipper  = (*Carrier)(nil)
	_ carrier.Tracker  = (*Carrier)(nil)
)

// products are the base products and their COD variants. Which take a
// ParcelShop/ParcelBox (specificDelivery.parcelShopCode) is PPL's word
// ("Create package label": parcelShopCode only with PRIV, PRID, CONN, COND,
// SMAR, SMAD; the product list: SMAR/SMAD and SMEU/SMED deliver only to a
// pickup point).
var products = []carrier.ProductType{
	{Code: "BUSS", Name: "PPL Parcel CZ Business (B2B)", CODProduct: "BUSD", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
	{Code: "PRIV", Name: "PPL Parcel CZ Private (B2C, home or ParcelShop)", CODProduct: "PRID", SupportsCOD: true, PickupPoint: carrier.PickupPointOptional},
	{Code: "SMAR", Name: "PPL Parcel CZ Smart (to ParcelShop/ParcelBox)", CODProduct: "SMAD", SupportsCOD: true, PickupPoint: carrier.PickupPointRequired},
	{Code: "SMEU", Name: "PPL Parcel Smart Europe (to a pickup point)", CODProduct: "SMED", SupportsCOD: true, PickupPoint: carrier.PickupPointRequired},
	{Code: "CONN", Name: "PPL Parcel Connect (international, home or ParcelShop)", CODProduct: "COND", SupportsCOD: true, PickupPoint: carrier.PickupPointOptional},
	{Code: "DOPO", Name: "PPL Parcel CZ Morning", CODProduct: "DOPD", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
}

// pickupUse is how product, a base product or its COD variant, takes a
// pickup point; a product PPL's list above lacks takes none.
func pickupUse(product string) carrier.PickupPointUse {
	for _, p := range products {
		if p.Code == product || p.CODProduct == product {
			return p.PickupPoint
		}
	}
	return carrier.PickupPointNone
}

// labelFormats maps shipd's formats to PPL's labelSettings.format.
var labelFormats = map[string]string{"pdf": "Pdf", "zpl": "Zpl"}

// Info describes PPL's settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	codes := make([]string, len(products))
	for i, p := range products {
		codes[i] = p.Code
	}
	return carrier.ProviderInfo{
		Code: Code,
		Name: "PPL (CPL API myAPI2)",
		Settings: []carrier.Setting{
			{Key: "clientId", Type: carrier.TypeString, Required: true, Description: "Client ID issued by PPL CPL support."},
			{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true, Description: "Client secret issued by PPL CPL support."},
			{Key: "productType", Type: carrier.TypeString, Enum: codes, Default: "BUSS",
				Description: "PPL product; switched to its COD variant (BUSD, PRID, SMAD, SMED, COND, DOPD) for cash on delivery."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use PPL's test environment (api-dev.dhl.com)."},
			{Key: "defaultLabelFormat", Type: carrier.TypeString, Enum: []string{"pdf", "zpl"}, Default: carrier.DefaultLabelFormat,
				Description: "Label format when a shipment names none."},
			{Key: carrier.DefaultPickupPointSetting, Type: carrier.TypeString,
				Description: "PPL ParcelShop/ParcelBox code (e.g. KM10479401) for shipments that name none; products PRIV, SMAR, SMEU, CONN and their COD variants."},
			{Key: "codIban", Type: carrier.TypeString, Description: "IBAN cash on delivery is paid to; empty = the account's default."},
			{Key: "codSwift", Type: carrier.TypeString, Description: "SWIFT/BIC of codIban."},
		},
		ProductTypes: products,
		LabelFormats: []string{"pdf", "zpl"},
		SupportsCOD:  true,
		MaxParcels:   MaxParcels,
	}
}

// ValidateCredentials asks PPL for a token with the settings' credentials.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	_, _, err := c.token(ctx, c.base(s), s)
	return err
}

// base is the API base the settings ask for: sandbox unless sandboxMode is false.
func (c *Carrier) base(s carrier.Settings) string {
	return carrierhttp.BaseURL(s, c.cfg.ProductionURL, c.cfg.SandboxURL)
}
