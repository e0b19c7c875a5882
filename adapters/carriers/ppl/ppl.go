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
// SMAR (Smart, to ParcelShop/ParcelBox), SMEU (Smart Europe, to a pickup
// point), CONN (Connect, international), DOPO (Morning). Cash on delivery
// needs the COD variant: BUSD, PRID, SMAD, SMED, COND, DOPD, published as
// ProductType.CODProduct; shipd switches before calling, and the adapter
// passes whatever product it is given. Sending cashOnDelivery with a non-COD
// product is refused by PPL (a Rejection), as is cash on delivery on an
// international set of several parcels. codVarSym (1–10 digits) is required
// with cash on delivery: it is the reference's last digits, and a reference
// without any is refused before the call.
//
// Pickup points: the shipment's point (else the channel's
// defaultPickupPoint) goes to specificDelivery.parcelShopCode (at most 50
// characters). PPL takes one only with PRIV, PRID, CONN, COND, SMAR, SMAD
// ("Create package label"), and SMAR/SMAD and SMEU/SMED deliver only to one
// (PPL's product list): PRIV and CONN optional, SMAR and SMEU required, BUSS
// and DOPO none (ProductType.PickupPoint; a COD variant as its base). A
// point where the product takes none, or none where it needs one, is refused
// before any call; PPL's refusal of parcelShopCode (an unknown point) is a
// Rejection on pickup_point_id with PPL's message.
//
// Booking is PPL's asynchronous batch: POST /shipment/batch answers 201 with
// the batch (a UUID) in the Location header; the adapter records it through
// req.Booking.Accept before polling GET /shipment/batch/{batchId}
// (Config.PollInterval) until every parcel is Complete, or one is Error (a
// Rejection with its errorMessage), or ctx ends (ErrUnavailable). A failed
// record ends the attempt (ErrUnavailable). An attempt given
// req.Booking.Handle polls that batch and never posts again. A shipment of N
// parcels (at most 50 to one address: PPL's documented limit, MaxParcels) is
// one shipments[] element with shipmentSet.numberOfShipments = N; the batch
// answers one item per element, its first parcel, with the set's other
// parcels as relatedItems of relationType ShipmentSet; each parcel has its
// own shipmentNumber (the tracking number). The ProviderShipmentID is the
// batchId.
//
// Labels: pdf and zpl (PPL's Pdf and Zpl; it also prints Jpeg/Png/Svg, which
// shipd does not use, and no EPL). One label per parcel from its labelUrl
// (/data/{guid} on the API host), downloaded with the Bearer token; they come
// with the booking, unless the download fails: the booking still answers
// (PPL holds the batch, ADR 0041), without labels, for Labels to fetch. Labels fetches them again from the batch and, when asked
// for the other format, first changes the batch's labelSettings with PUT
// /shipment/batch/{batchId} (204).
//
// Cancel: POST /shipment/{shipmentNumber}/cancel for every parcel (2xx); PPL
// refuses once the parcel was picked up (a Rejection). PPL documents no
// answer to cancelling a cancelled parcel: a refused parcel whose tracking
// shows it cancelled (phase Canceled) counts as cancelled before, and when
// every parcel was, the answer is carrier.ErrAlreadyCancelled.
//
// Tracking: GET /shipment?ShipmentNumbers=n&Limit&Offset (Limit and Offset
// are required); an empty array is a number PPL does not know. Each
// trackAndTrace event keeps as its Code its numeric statusId (e.g. "450"),
// its textual code when it has none. Its status is that of its phase, one of
// PPL's ShipmentStates enum (phaseStatuses, every value mapped), else that
// of its statusId (eventStatuses); a code neither maps has no status. A
// CodPaidDate phase or a COD-paid statusId sets CODCollected.
//
// Pickups and manifests (dispatch.go). A courier pickup is PPL's
// collection order [V]: POST /order/batch with one order of orderType
// CollectionOrder, productType BUSS (as PPL's plugin sends [Vp]), sendDate
// (the date's midnight in Prague, with its offset), sendTimeFrom/sendTimeTo
// when the request has a window (PPL's format date-span, a .NET TimeSpan,
// sent "hh:mm:ss" [U]), shipmentCount (the parcel count: PPL's order names
// no shipments and takes no weight [V]), the pickup address and contact as
// sender (name is the company, else the person), the contact's e-mail as the
// order's notification email, and the note (PPL takes at most 300
// characters [V]). referenceId, which PPL documents as unique [V], is
// derived from Booking.Key ("shipd-" and the key, or its hash when it does
// not fit 50 characters), so every attempt sends the same one. PPL answers
// 201 with the batch in Location; the batch id is recorded through
// req.Booking.Accept before GET /order/batch/{batchId} is polled until the
// order is Complete (Error: a Rejection with PPL's message and code, on no
// field), then GET /order?OrderReferences= (Limit and Offset required)
// until the order has its orderNumber: the ConfirmationNumber. PPL confirms
// no window and no date of its own (the order's sendDate is the one asked
// for [V]): CourierPickup has none, and the one asked for stands. Handle is
// the referenceId, which cancel needs. An attempt given Booking.Handle polls
// that batch and never posts again; a first attempt asks GET /order first
// and answers an order PPL already holds under the reference (an attempt
// whose batch id was never recorded) without ordering again; an import
// refused while PPL holds an order under the reference (the same crash
// window, the earlier order not listed yet when asked) answers that order.
// Once the order is imported nothing is a refusal: a read-back that fails is
// ErrUnavailable, resumed from the batch. Refusals of the order (400
// problem+json keyed "Orders[0].Sender.ZipCode", or "$.orders[0].sendTimeFrom"
// for a value PPL could not read) are Rejections on the pickup request's
// fields (orderFields: date, ready_from, ready_until, parcel_count, note,
// address.*, contact.*). Cancel: POST /order/cancel?orderReference= with a
// note, as PPL's plugin cancels [Vp], 200 [V]; a refusal is a Rejection with
// PPL's words, unless the order reads back Canceled (a repeated cancel), which
// counts as done. Until when PPL takes a cancel, and its cut-off and lead
// time for an order, PPL does not document [U]: its refusal decides.
// Windows: PPL publishes none (CourierPickupWindows is ErrNotOffered, the
// channel's defaults stand). Manifest: PPL's API has no handover document or
// closing operation [V, every path of its document]: CreateManifest is
// ErrNotOffered and shipd's handover document is the manifest. A shipment on
// one is cancelled as any other, which PPL refuses once the parcel is
// picked up (CancelAfterManifest: the carrier decides).
//
// Errors: PPL answers RFC 7807 problem+json with an errors map keyed by its
// field paths ("Shipments[0].Recipient.ZipCode"); each entry becomes a
// Rejection on shipd's field where one corresponds (errors.go). 429, 5xx,
// timeouts and no answer are ErrUnavailable.
//
// Sources: PPL's OpenAPI 3.0.1 document of the CPL API ("CPL" v1, schemas
// Eps.Api.MyApi2.*), as PPL ships it in its official WooCommerce plugin
// (github.com/PPL-CZ/PPL-WooCommerce, ppl-cz/src/api.json) [V]; PPL's
// "Create package label" documentation v3 (21.7.2022) [V]; the CPL API
// reference at https://ppl-cpl-api-en.apidog.io/ [V]. The fake is held to
// testdata/cpl-api.yaml: not PPL's file but shipd's own OpenAPI description of
// the operations used, its facts transcribed from PPL's document (the file
// says what it simplifies), made strict by vendorspec. Assumptions no PPL
// source confirms are the var block "Unverified assumptions" below: the
// sandbox host, the OAuth scope, label URLs being on the API host, the order
// of a set's relatedItems, the legacy statusId meanings, the phase
// "Undelivered", SMEU taking parcelShopCode, the COD variable symbol taken
// from the reference, and the collection order's (TimeSpan form, the answer
// of GET /order, referenceId kept unique, when the order number comes, the
// cancel of a cancelled order, cut-offs, the sandbox taking orders).
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
// PTB\PPLApi, Medusa plugins) do or what shipd chose, where PPL's sources
// are silent.
var (
	// SandboxURL (const above) is the host community clients use, not an
	// official page.
	//
	// tokenScope is the OAuth2 scope community clients send (PPL's 2022
	// documentation names it too, but its OpenAPI document does not).
	tokenScope = "myapi2"
	// Label URLs point at the API host; the Bearer token is only sent to
	// that host (labels.go, sameHost).
	//
	// A set's relatedItems of relationType ShipmentSet come in parcel order
	// after the item (PPL's example shows one; shipments.go, parcels).
	//
	// The legacy statusId meanings (statuses.go, testdata/status-ids.tsv)
	// are from pplmyapi; PPL publishes no list (GET /codelist/status needs
	// an account). The phase "Undelivered" is read as "not delivered yet"
	// (in transit), as PPL names it apart from NotDelivered.
	//
	// SMEU/SMED take a parcelShopCode: PPL's product list says they deliver
	// only to a pickup point, its parcelShopCode rule (2022) does not name
	// them.
	//
	// codVarSymDigits: the COD variable symbol (required, 1–10 digits) is
	// the last digits of the shipment reference; a reference without digits
	// is refused before the call.
	codVarSymDigits = 10

	// Collection orders (dispatch.go):
	//
	// timeSpanLayout: sendTimeFrom/sendTimeTo are PPL's format "date-span",
	// a .NET TimeSpan; its invariant form is "hh:mm:ss". PPL's plugin sends
	// no window, so no PPL source shows one.
	timeSpanLayout = "15:04:05"
	// orderProductType is what PPL's plugin sends ("BUSS / IMPO" in PPL's
	// document); what else it would change is not said.
	orderProductType = "BUSS"
	//
	// GET /order is typed as one OrderModel in PPL's document though it
	// pages a list (X-Paging-*) as GET /shipment does, typed an array: both
	// are read, and none found is an empty list, 404, or an object
	// without referenceId. A refused read before ordering is taken as none.
	//
	// PPL keeps referenceId unique ("Jedinečná reference!"); how it answers
	// a second order under one (the fake: an import Error) is not said. An
	// order is listed by GET /order, with its orderNumber, once its batch
	// is Complete: the adapter polls until it is.
	//
	// A cancel of a cancelled order is refused (PPL says nothing): the
	// adapter reads the order back and takes Canceled as done. The cut-off
	// and lead time of a collection order, until when a cancel is taken,
	// the 50 of shipmentCount ("Max: 50" in its description only; the
	// adapter sends any count and PPL's refusal decides) and whether the
	// sandbox host takes collection orders are not documented.
)

// MaxParcels is the most parcels one shipment set may have: PPL documents
// at most 50 pieces to one address per request ("Create package label",
// Omezení; shipmentSet.numberOfShipments max 50).
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
	return carrier.ProviderInfo{
		Code: Code,
		Name: "PPL (CPL API myAPI2)",
		Settings: []carrier.Setting{
			{Key: "clientId", Type: carrier.TypeString, Required: true, Description: "Client ID issued by PPL CPL support."},
			{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true, Description: "Client secret issued by PPL CPL support."},
			{Key: "productType", Type: carrier.TypeString, Enum: carrier.ProductCodes(products), Default: "BUSS",
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
		Dispatch:     dispatchInfo,
	}
}

// dispatchInfo is what PPL offers of the shipping day: collection orders
// (a parcel count, a date, an optional window), cancelled by reference; no
// windows of its own and no manifest in its API.
var dispatchInfo = carrier.DispatchInfo{
	Pickups:             true,
	PickupCancel:        true,
	PickupAvailability:  carrier.AvailabilityDefaults,
	PickupShipments:     carrier.PickupCountsOnly,
	Manifest:            carrier.ManifestByShipd,
	CancelAfterManifest: carrier.CancelAfterManifestCarrier,
	Note: "Courier pickups are PPL collection orders: a parcel count on a date, with an optional window; " +
		"PPL confirms an order number, not a window. PPL's API has no handover document: the manifest is shipd's. " +
		"A manifested shipment can be cancelled until PPL has picked it up.",
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
