// Package dhlexpress is the carrier adapter for DHL Express through the
// MyDHL API (REST, OpenAPI v2.12.0,
// https://developer.dhl.com/api-reference/dhl-express-mydhl-api). Provider
// code "dhl_express".
//
// Vendor facts relied on. [V] marks a fact of DHL's OpenAPI file (copied to
// testdata/mydhl-express-api-2.12.0.yaml, which the tests' fake holds every
// request and answer to), [C] one of a community client (karrio's
// dhl_express connector, Shippo's DHL Express service list), [U] one nobody
// confirmed (all of them are listed in the block below and in Assumed*).
//
//   - Hosts: test https://express.api.dhl.com/mydhlapi/test, production
//     https://express.api.dhl.com/mydhlapi [V]. Every operation takes HTTP
//     Basic authentication with the app's API key and secret [V] and the
//     header x-version (the interface version, 2.12.0) [V: required].
//   - Create: POST /shipments, synchronous, answer 201 [V]. A shipment is one
//     waybill (shipmentTrackingNumber, 10 digits in the examples) of up to 999
//     pieces (content.packages maxItems, package referenceNumber 1..999) [V];
//     each piece has its own tracking number (packages[].trackingNumber,
//     "JD01…") [V]. ProviderShipmentID is the waybill; TrackingNumbers are the
//     pieces' numbers in parcel order, matched through the referenceNumber the
//     adapter gives each package (its parcel position, 1-based).
//   - Booking once (ADR 0041): as soon as DHL answers the waybill, it and
//     the pieces' numbers are recorded through ShipmentRequest.Booking as
//     the booking's handle (JSON), before the rest of the answer is read.
//     An attempt given the handle books nothing: it answers the waybill and
//     pieces again, without labels, which DHL does not print again (below),
//     so a booking whose answer's labels were lost (the process stopped, or
//     shipd failed to merge them) ends created without a label, the
//     carrier's to use or let expire. An answer whose pieces do not make one
//     per parcel, or whose labels cannot be read, is answered short, never
//     as a failure; resuming a handle short of a piece's number fails as
//     unavailable: the MyDHL API reads pieces back only by tracking a
//     waybill DHL has scanned.
//   - Labels come only with the booking (documents[] typeCode "label",
//     base64, in outputImageProperties.encodingFormat pdf, zpl, lp2 or epl)
//     [V]; with splitTransportAndWaybillDocLabels and splitDocumentsByPages
//     DHL answers one label per piece carrying packageReferenceNumber [V:
//     example linkLabelsByPiecesShipmentResponse]. There is no operation that
//     prints a label again: GET /shipments/{n}/get-image returns the waybill
//     document, commercial invoice or customs entry only (typeCode enum
//     waybill, commercial-invoice, customs-entry; pdf or tiff) [V], so Labels
//     is a Rejection saying so.
//   - Cancel: the API cancels pickups (DELETE /pickups/{dispatchConfirmation
//     Number}), not shipments [V: no other DELETE]. The adapter books no
//     pickup with a shipment (pickup.isRequested false; courier pickups are
//     ordered apart, below), so CancelShipment is a Rejection: an unused
//     waybill is not charged and expires [U].
//   - Cash on delivery is not modelled by this adapter: SupportsCOD is false
//     and a COD shipment is refused before any call.
//   - Customs: content.isCustomsDeclarable is required, and a dutiable
//     shipment needs content.exportDeclaration with line items (description,
//     price, quantity, manufacturer country, weights) [V]. shipd's shipments
//     carry no customs lines, so the adapter books only what needs none:
//     domestic shipments, shipments inside the EU customs union, and
//     documents (the document products D, X, K, T, L, W) across customs
//     borders, all as isCustomsDeclarable false; goods crossing a customs
//     border are refused on destination_address.country_code before any call.
//     content.description (required, up to 70 characters) is the
//     contentDescription setting, incoterm DAP, unitOfMeasurement metric [V].
//   - Service points: onDemandDelivery {deliveryOption: servicepoint,
//     servicePointId (up to 6 characters)} delivers to a DHL Express Service
//     Point [V]; every product takes one optionally (pickup_point_id, or the
//     channel's defaultPickupPoint).
//   - Price: getRateEstimates true asks for shipmentCharges; the BILLC
//     (billing currency) total becomes CreatedShipment.Price, none when DHL
//     sends none [V: schema].
//   - Tracking: GET /shipments/{waybill}/tracking for a waybill and
//     GET /tracking?pieceTrackingNumber=… for a piece [V], with
//     trackingView=all-checkpoints and levelOfDetail=all; 404 is "not
//     recognized" [V]. Event typeCodes come from DHL's reference data set
//     trackingEventCode (its example in the OpenAPI file lists 62) [V];
//     statuses.go maps each of them.
//   - Errors: problem bodies {instance, detail, title, message, status,
//     additionalDetails[]} [V]; 400 and 422 name the request path as a JSON
//     pointer ("#/content/packages/0/weight") inside the messages, which
//     errors.go maps to shipd's fields.
//
// Pickups and manifests (pickups.go, windows.go; carrier.Dispatcher):
//   - Pickup: POST /pickups [V] with plannedPickupDateAndTime (the date and
//     ready time in the pickup address's local time with its offset,
//     "2026-11-24T10:00:00 GMT+01:00", neither past nor more than 10 days
//     ahead [V]), closeTime (the window's end: when the premises close),
//     locationType (business when the contact has a company, else
//     residence), the shipper account, the note as up to 4 special
//     instructions of 80 characters, the address and contact as
//     shipperDetails, and per shipment its waybill, product, customs flag (as
//     booked) and every piece's weight and size (up to 999 shipments) [V].
//     DHL's order has no place for a bare count: a pickup names its
//     shipments (pickup_shipments "required").
//   - The zone: DHL takes local time with a GMT offset; the adapter takes
//     the zone from the channel's pickupTimeZone (IANA name), else the
//     address's country where it keeps one time (zones.go, from tzdata's
//     zone.tab; Spain, Portugal, Chile, Ecuador, New Zealand… by their main
//     zone); a country with several zones without the setting is refused on
//     the address. The zone database is embedded (time/tzdata).
//   - Confirmed: DHL answers a list of dispatch confirmation numbers [V],
//     and may answer readyByTime and nextPickupDate: the pickup's
//     ConfirmationNumber is the first number, its Date DHL's next pickup
//     date and ReadyFrom its ready-by time when DHL names them (empty
//     otherwise: the requested window stands). Its Handle (JSON) keeps every
//     number and who ordered it. An answer without a number is a Rejection
//     carrying DHL's warnings.
//   - Ordered once: the handle is recorded through Booking.Accept as soon
//     as DHL answers, and an attempt given it answers it again without
//     calling DHL. DHL takes no key of ours and has no operation that reads
//     a pickup back, so a pickup whose answer was lost before it was
//     recorded cannot be found again: that window stays (as with the
//     booking of shipments).
//   - Cancel: DELETE /pickups/{n}?requestorName=&reason= for every number
//     [V: both required]; the requestor is who ordered the pickup (from the
//     handle, else AssumedRequestor), the reason AssumedCancelReason. DHL
//     cancels a pickup it consolidated with others as a whole [V]. 400 is
//     "already cancelled or completed" [V]: one whose words say cancelled
//     (AssumedCancelledWords) counts as cancelled, any other is a refusal, as
//     is 404 (not found).
//   - Windows: the MyDHL API has no pickup-availability operation; GET
//     /products answers pickupCapabilities per product for one prospective
//     shipment [V], so the adapter asks about the request's first shipment
//     (destination, first piece, product), or without one about
//     AssumedProbeParcel from the address to itself with the channel's
//     product, nextBusinessDay false. The window is pickupEarliest to
//     pickupLatest of the product asked about (else the first product that
//     has capabilities); none when DHL answers no product or one it picks up
//     only on a later day (nextBusinessDay, or a cut-off on another date);
//     capabilities without times are ErrNotOffered (the channel's defaults
//     stand). No window has an order-by time (AssumedNoOrderBy).
//   - Manifest: none in the MyDHL API: CreateManifest answers
//     ErrNotOffered, and shipd's handover document is the manifest. A DHL
//     Express waybill cannot be cancelled through the API at all (above), so
//     cancel_after_manifest is "refused".
//   - Unverified [U], where it would be checked (the MyDHL API test
//     environment with a pickup-enabled account, or DHL Express's API
//     support): the lead time and cut-off of a pickup beyond the 10 days;
//     whether several dispatch confirmation numbers mean several pickups;
//     what readyByTime and nextPickupDate mean exactly (read as DHL's ready
//     time and date); the plannedPickupDateAndTime format (the description
//     writes a space before GMT, the example none; sent with the space, as
//     shipments' is); whether shipmentTrackingNumber is checked against
//     booked waybills; the words of a 400 to a cancel; the fee of a pickup;
//     whether GET /products' capabilities are the same for every shipment
//     from an address (AssumedProbeParcel) and what it answers for a day
//     without pickups; time zones of regions off a country's main zone
//     (Canary Islands, Azores…: set pickupTimeZone).
//
// Products (setting productType, default P). From the OpenAPI file [V]: P
// EXPRESS WORLDWIDE NONDOC (rates example), and from its productCode
// reference data example D, U EXPRESS WORLDWIDE, X EXPRESS ENVELOPE, K
// EXPRESS 9:00, T EXPRESS 12:00, L EXPRESS 10:30, W ECONOMY SELECT, N
// EXPRESS DOMESTIC, I EXPRESS DOMESTIC 9:00, 1 EXPRESS DOMESTIC 12:00, O
// EXPRESS DOMESTIC 10:30. From community clients [C]: E EXPRESS 9:00
// NONDOC, Y EXPRESS 12:00 NONDOC, M EXPRESS 10:30 NONDOC, H ECONOMY SELECT
// NONDOC. Which products an account may use between two countries only DHL
// knows (its /products operation); a refused one comes back as DHL's
// message on product_type.
//
// Unverified assumptions, every one in one place (also the Assumed*
// constants below):
//   - MaxParcels is the spec's 999 packages; no piece weight limit is
//     enforced before the call (the spec names none; DHL refuses heavy
//     pieces itself) [U].
//   - plannedShippingDateAndTime: the shipping date at 12:00 UTC, or an hour
//     from now when that has passed, written "2006-01-02T15:04:05 GMT+00:00"
//     (the examples' format) [U: DHL reads it as the origin's time?].
//   - Labels come one per piece with packageReferenceNumber when asked with
//     splitDocumentsByPages; label documents without it are taken in piece
//     order when there is one per piece, and as one file holding all when
//     there is one [U].
//   - The waybill document is not requested (imageOptions waybillDoc
//     isRequested false): documents and EU shipments travel without it [U].
//   - An unused waybill (no pickup, never scanned) is not charged and
//     expires, so nothing needs cancelling [U].
//   - Document products cross customs borders as non-dutiable without
//     export lines; the EU customs union is the 27 member states, their
//     special fiscal territories (Canary Islands, …) not told apart [U].
//   - A piece's events are its own plus the shipment's (customs events are
//     reported on the shipment only in DHL's example), duplicates dropped;
//     event times are the origin/scan local time with GMTOffset when DHL
//     sends one (requestGMTOffsetPerEvent), else read as UTC [U].
//   - Wrong credentials get 401 from DHL's gateway (no operation documents
//     it); its body is read as a problem when it is one [U].
//   - ValidateCredentials asks GET /reference-data (a small, Basic-auth
//     operation) and cannot check the account number, only its form [U].
package dhlexpress

import (
	"context"
	"net/http"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// Code is the provider code.
const Code = "dhl_express"

// Documented hosts and limits [V].
const (
	ProductionHost = "https://express.api.dhl.com/mydhlapi"
	SandboxHost    = "https://express.api.dhl.com/mydhlapi/test"
	// APIVersion is the x-version header every operation requires.
	APIVersion = "2.12.0"
	// MaxParcels is content.packages' maxItems (and referenceNumber's maximum).
	MaxParcels = 999
	// maxPointID is onDemandDelivery.servicePointId's maxLength.
	maxPointID = 6
)

// Assumptions not confirmed by DHL's documentation; every one in one place.
const (
	// AssumedShippingHourUTC is the hour of the shipping date DHL is told
	// the shipment is tendered at.
	AssumedShippingHourUTC = 12
	// AssumedLabelsPerPiece: with splitDocumentsByPages DHL answers one label
	// per piece, each naming its packageReferenceNumber.
	AssumedLabelsPerPiece = true
	// AssumedNoWaybillDoc: shipments need no printed waybill document.
	AssumedNoWaybillDoc = true
	// AssumedUnusedWaybillFree: a waybill never picked up nor scanned is not
	// charged, so a shipment needs no cancellation.
	AssumedUnusedWaybillFree = true
	// AssumedDocumentsNonDutiable: documents cross customs borders without
	// export lines.
	AssumedDocumentsNonDutiable = true
	// AssumedEventTimesUTC: event times without a GMTOffset are UTC.
	AssumedEventTimesUTC = true
	// AssumedGateway401: wrong credentials are answered 401.
	AssumedGateway401 = true
	// AssumedRequestor is the requestorName of a cancel when the pickup's
	// orderer is unknown (DHL requires one; the orderer's name is kept in
	// the pickup's handle).
	AssumedRequestor = "shipd"
	// AssumedCancelReason is the reason every cancel gives (DHL requires
	// one and lists none).
	AssumedCancelReason = "Cancelled by the shipper"
	// AssumedNoOrderBy: DHL's capabilities name no time by which a pickup
	// must be ordered (localCutoffDateAndTime is when the shipment must be
	// tendered), so the windows have none.
	AssumedNoOrderBy = true
)

// AssumedCancelledWords are the words (lower case) of DHL's 400 to a
// cancel that say the pickup is cancelled already, not completed: its
// description names both cases at once [V], its words are not documented.
var AssumedCancelledWords = []string{"already cancelled", "already canceled"}

// AssumedProbeParcel is the parcel a windows probe asks DHL about when the
// request names no shipment: capabilities depend on the origin's service
// area, which a small domestic parcel reaches like any [U].
var AssumedProbeParcel = carrier.Parcel{Type: "package", Weight: 1, WeightUnit: "KG", Length: 10, Width: 10, Height: 10, DimensionUnit: "CM"}

// Setting keys and defaults.
const (
	settingKey         = "apiKey"
	settingSecret      = "apiSecret"
	settingAccount     = "accountNumber"
	settingProduct     = "productType"
	settingDescription = "contentDescription"
	DefaultProduct     = "P"
	DefaultDescription = "Goods"
)

// Config sets where the adapter sends its calls.
type Config struct {
	// ProductionURL and SandboxURL are the API base URLs, paths appended
	// ("" = ProductionHost, SandboxHost).
	ProductionURL, SandboxURL string
	// HTTPClient sends every call; nil = carrierhttp.DefaultClient.
	HTTPClient *http.Client
	// PollInterval is unused: DHL Express books synchronously.
	PollInterval time.Duration
	// Now is the clock of the planned shipping time; nil = time.Now.
	Now func() time.Time
}

// Carrier is the DHL Express adapter; one value serves every channel and
// keeps no state between calls.
type Carrier struct{ cfg Config }

// New keeps cfg as given: empty hosts fall back to DHL's on each call.
func New(cfg Config) *Carrier { return &Carrier{cfg: cfg} }

var (
	_ carrier.Provider = (*Carrier)(nil)
	_ carrier.Shipper  = (*Carrier)(nil)
	_ carrier.Tracker  = (*Carrier)(nil)
)

// product is a DHL Express global product code as the adapter books it.
type product struct {
	carrier.ProductType
	// documents: the product carries documents only, which cross customs
	// borders as non-dutiable (AssumedDocumentsNonDutiable).
	documents bool
	// domestic: origin and destination must be one country.
	domestic bool
}

// products in Info order; the package doc says where each code comes from.
var products = []product{
	{ProductType: carrier.ProductType{Code: "P", Name: "Express Worldwide (non-documents)"}},
	{ProductType: carrier.ProductType{Code: "U", Name: "Express Worldwide (EU)"}},
	{ProductType: carrier.ProductType{Code: "D", Name: "Express Worldwide (documents)"}, documents: true},
	{ProductType: carrier.ProductType{Code: "X", Name: "Express Envelope (documents)"}, documents: true},
	{ProductType: carrier.ProductType{Code: "K", Name: "Express 9:00 (documents)"}, documents: true},
	{ProductType: carrier.ProductType{Code: "E", Name: "Express 9:00 (non-documents)"}},
	{ProductType: carrier.ProductType{Code: "L", Name: "Express 10:30 (documents)"}, documents: true},
	{ProductType: carrier.ProductType{Code: "M", Name: "Express 10:30 (non-documents)"}},
	{ProductType: carrier.ProductType{Code: "T", Name: "Express 12:00 (documents)"}, documents: true},
	{ProductType: carrier.ProductType{Code: "Y", Name: "Express 12:00 (non-documents)"}},
	{ProductType: carrier.ProductType{Code: "W", Name: "Economy Select (documents)"}, documents: true},
	{ProductType: carrier.ProductType{Code: "H", Name: "Economy Select (non-documents)"}},
	{ProductType: carrier.ProductType{Code: "N", Name: "Express Domestic"}, domestic: true},
	{ProductType: carrier.ProductType{Code: "I", Name: "Express Domestic 9:00"}, domestic: true},
	{ProductType: carrier.ProductType{Code: "O", Name: "Express Domestic 10:30"}, domestic: true},
	{ProductType: carrier.ProductType{Code: "1", Name: "Express Domestic 12:00"}, domestic: true},
}

func init() {
	// Every product may deliver to a DHL Express Service Point (onDemandDelivery).
	for i := range products {
		products[i].PickupPoint = carrier.PickupPointOptional
	}
}

func productCodes() []string {
	out := make([]string, len(products))
	for i, p := range products {
		out[i] = p.Code
	}
	return out
}

func productOf(code string) (product, bool) {
	for _, p := range products {
		if p.Code == code {
			return p, true
		}
	}
	return product{}, false
}

// labelFormats are shipd's formats DHL prints (DHL's lp2 has no shipd name).
var labelFormats = []string{"pdf", "zpl", "epl"}

// Info describes the settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	types := make([]carrier.ProductType, len(products))
	for i, p := range products {
		types[i] = p.ProductType
	}
	return carrier.ProviderInfo{
		Code: Code,
		Name: "DHL Express (MyDHL API)",
		Settings: []carrier.Setting{
			{Key: settingKey, Type: carrier.TypeString, Required: true, Description: "API key of the MyDHL API app on developer.dhl.com (HTTP Basic user)."},
			{Key: settingSecret, Type: carrier.TypeString, Required: true, Secret: true, Description: "API secret of the MyDHL API app (HTTP Basic password)."},
			{Key: settingAccount, Type: carrier.TypeString, Required: true, Description: "DHL Express shipper account number that pays the shipments."},
			{Key: settingProduct, Type: carrier.TypeString, Enum: productCodes(), Default: DefaultProduct, Description: "DHL Express global product code; goods crossing a customs border cannot be booked (no customs lines), documents products can."},
			{Key: settingDescription, Type: carrier.TypeString, Default: DefaultDescription, Description: "Description of the shipments' content DHL requires (up to 70 characters)."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use DHL's test environment (express.api.dhl.com/mydhlapi/test) instead of production."},
			{Key: carrier.LabelFormatSetting, Type: carrier.TypeString, Enum: labelFormats, Default: carrier.DefaultLabelFormat, Description: "Label format when a shipment names none."},
			{Key: carrier.DefaultPickupPointSetting, Type: carrier.TypeString, Description: "DHL Express Service Point id (up to 6 characters) shipments are delivered to when they name none."},
			{Key: settingPickupZone, Type: carrier.TypeString, Description: "IANA time zone of courier pickups (e.g. America/New_York); needed in countries with several zones, else the pickup address's country's."},
		},
		ProductTypes: types,
		LabelFormats: labelFormats,
		SupportsCOD:  false,
		MaxParcels:   MaxParcels,
		Dispatch:     dispatchInfo,
	}
}

// ValidateCredentials asks a small operation with the channel's key and
// secret: DHL answers 401 to wrong ones.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	if err := checkSettings(s); err != nil {
		return err
	}
	return c.ping(ctx, s)
}

// checkSettings refuses settings that cannot be right before any call.
func checkSettings(s carrier.Settings) error {
	var problems []*carrier.Rejection
	for _, k := range []string{settingKey, settingSecret, settingAccount} {
		if strings.TrimSpace(s.String(k)) == "" {
			problems = append(problems, carrier.Reject(k, "is required by DHL Express"))
		}
	}
	if a := strings.TrimSpace(s.String(settingAccount)); len(a) > 12 {
		problems = append(problems, carrier.Reject(settingAccount, "a DHL Express account number has at most 12 characters"))
	}
	if d := []rune(description(s)); len(d) > 70 {
		problems = append(problems, carrier.Reject(settingDescription, "DHL Express takes at most 70 characters"))
	}
	return carrier.RejectionOf(problems)
}

// baseURL is the API base of the channel's mode.
func (c *Carrier) baseURL(s carrier.Settings) string {
	if s.SandboxMode() {
		return orDefault(c.cfg.SandboxURL, SandboxHost)
	}
	return orDefault(c.cfg.ProductionURL, ProductionHost)
}

func (c *Carrier) now() time.Time {
	if c.cfg.Now != nil {
		return c.cfg.Now()
	}
	return time.Now()
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return strings.TrimRight(v, "/")
}

func description(s carrier.Settings) string {
	if d := strings.TrimSpace(s.String(settingDescription)); d != "" {
		return d
	}
	return DefaultDescription
}
