// Package dpdpl is the carrier adapter for DPD Poland (DPD Polska) through
// its SOAP web services: DPDPackageObjServices ("dpdservices") for booking
// and labels, DPDInfoServicesObjEvents ("dpdinfoservices") for tracking.
//
// Sources: the service's WSDL (testdata/dpd-pl-dpdservices.wsdl, [V]) names
// the operations, their document/literal wrapped messages and faults; its
// XSD is only imported from the live host, so element names, types and
// enumerations are taken from community clients [C]: t3ko/dpd-pl-api-php
// (src/Soap/Types, src/Api.php) and the Axis-generated Java types of
// piatekdawid/dpd-services-integration-pl (element names, xsd types,
// enumerations). Facts neither confirms are marked [U].
//
// Auth: no session. Every SOAP body carries authDataV1 {login, password,
// masterFid} (settings login, password, masterFid) [V]. The tracking service
// takes authDataV1 {login, password, channel} [C]; its credentials default
// to the booking ones and the channel to masterFid (settings trackingLogin,
// trackingPassword, trackingChannel override them).
//
// Hosts: dpdservicesdemo.dpd.com.pl (the address the WSDL publishes, the
// demo service) and dpdservices.dpd.com.pl (production [C]), chosen by
// sandboxMode (default true). Tracking has one host,
// dpdinfoservices.dpd.com.pl, with no demo counterpart [C]
// (Config.TrackingURL).
//
// Booking: generatePackagesNumbersV4 with one package holding one parcel per
// shipd parcel (weight kg, sizes cm), policy ALL_OR_NOTHING, langCode PL.
// DPD answers a waybill per parcel, in parcel order [C]; the waybills are the
// tracking numbers and the package's PackageId the provider shipment id.
// Booking is synchronous, and booked once (ADR 0041): as soon as DPD answers
// the package booked, its PackageId and waybills are recorded through
// ShipmentRequest.Booking as the booking's handle (JSON), and an attempt
// given the handle books nothing: it answers them again, and shipd prints
// the labels with Labels. An answer whose waybills do not make one per
// parcel is answered short (shipd keeps none); resuming it fails as
// unavailable, since the service has no operation that reads a package back,
// and the label step gives up with the package DPD's. A package DPD
// refuses answers Status INCORRECT_DATA (or another
// ValidationStatusPGREnumV1 value) with ValidationInfo entries, which become
// Rejections on shipd's fields (errors.go).
//
// Products (setting productType): CLASSIC (DPD Classic, to the address) and
// PICKUP (DPD Pickup: services.dpdPickup {pudo} names the pickup point, so
// the product requires one). Cash on delivery is services.cod {amount,
// currency} on either product, no product switch; its currency must be one
// of ServiceCurrencyEnum [C].
//
// Labels: generateSpedLabelsV4 by waybill, outputDocFormatV1 PDF, ZPL or EPL,
// page format LBL_PRINTER, label type BIC3. DPD answers one document
// (documentData, base64) holding every parcel's label in parcel order. The
// session type is DOMESTIC; a package DPD says does not fit it
// (INCORRECT_PKGS_FOR_SESSION_TYPE) is asked for again as INTERNATIONAL.
//
// Cancel: the WSDL has no cancel operation. DPD Poland cancels a booked
// parcel only through its customer service, or the parcel is simply never
// handed over; CancelShipment says so in a *carrier.Rejection.
//
// Tracking: getEventsForWaybillV1 {waybill, eventsSelectType ALL, language}
// [C]. Each event keeps its businessCode as the Code; the explicit table in
// statuses.go maps the codes listed in testdata/event-codes.tsv. No events
// at all is a number DPD does not know.
//
// Pickups and manifests (dispatch.go, windows.go, manifest.go; sources as
// above, plus DPD Polska's own PrestaShop module [Vp], its
// AddPickupCourierHandler, CancelPickupCourierHandler, availability script
// and GetProtocolHandler, and Qbitz/DpdBundle's live test [C qbitz]):
//   - Order: packagesPickupCallV4 [V] with dpdPickupParamsV3 operationType
//     INSERT [C]: orderType DOMESTIC (INTERNATIONAL for an address outside
//     Poland [Vp]), pickupDate 2006-01-02, pickupTimeFrom/To 15:04 (the
//     window asked), waybillsReady true [Vp], and pickupCallSimplifiedDetails:
//     the customer and the sender (company as full name, person as name,
//     phone; the sender's street, city and postal code in digits; the type
//     has no country and no e-mail [C]), the payer (masterFid), and the
//     parcels: standard parcels, count, total weight, and from the shipments
//     named the heaviest parcel and the largest sizes. Shipments are never
//     referenced: the order has no waybill element [C]. DPD answers an
//     orderNumber and a checkSum with statusInfo.status OK [Vp]; it confirms
//     no window of its own, so the one asked stands. The handle (JSON number
//     and checksum) is recorded through Booking.Accept as soon as DPD answers
//     and is the pickup's Handle; an attempt given it orders nothing (DPD has
//     no operation that reads an order back, and takes no key of ours).
//     A refusal is statusInfo with errorDetails {code, description, fields},
//     a Rejection per entry on the request field its fields name.
//   - Cancel: the same operation with operationType CANCEL, orderNumber and
//     checkSum only [Vp]. Until when DPD cancels is not documented [U]; its
//     refusal is a Rejection with its reason.
//   - Windows: getCourierOrderAvailabilityV1 {senderPlaceV1 {countryCode,
//     zipCode}} [V wsdl, C]. DPD answers ranges "HH:MM-HH:MM" per postal code,
//     not per date, each with an offset in minutes: the cut-off is the
//     range's start minus the offset [Vp], the window's OrderBy. Windows whose
//     cut-off has passed (Warsaw time) are left out; a cut-off on the day
//     before is given as 00:00. RANGE_NOT_FOUND [C qbitz] is no windows.
//   - Manifest: generateProtocolV2 [V], the waybills of every shipment (a
//     package each) with the sender's address and fid as pickupAddress,
//     PDF on A4, STOP_ON_FIRST_ERROR; one protocol per session type,
//     DOMESTIC then INTERNATIONAL by destination [Vp: one per session type and
//     sender], chunked by whole shipments past maxProtocolParcels, the PDFs
//     merged in order, the documentIds (comma-separated) its reference. A
//     waybill DPD does not know or has on a protocol already
//     (ALREADY_ADVICED) is a Rejection on shipment_ids.
//   - After a manifest: DPD Poland's API cancels no shipment at all, so a
//     manifested one is refused like any other (cancel_after_manifest
//     "refused").
//   - Unverified [U], where it would be checked (DPD Polska's dpdservices
//     documentation or its demo host, dpdservicesdemo.dpd.com.pl): whether the
//     demo host takes courier orders (never INSERT on production from a
//     test); the meaning of waybillsReady and payerName; whether DPD needs the
//     parcel maxima when only a count is known (none are sent then); units
//     (kg, cm, as booking); the form of errorDetails.fields (read as element
//     names, a path's last part); the status words besides OK; until when an
//     order can be cancelled; which weekdays and holidays the ranges hold for;
//     whether a second INSERT for the same day and address is refused or
//     merged; the protocol's parcel limit (maxProtocolParcels, 500, chosen);
//     whether ALREADY_ADVICED means a waybill is on a protocol already, so a
//     manifest retried after one was made is refused rather than repeated
//     (DPD has no operation that reads a protocol back); and whether a
//     protocol closes the day.
//
// Errors: a SOAP fault (DPDServiceException) is DPD refusing the call: a
// *carrier.Rejection with the fault's message, blaming the password when
// the call only authenticates (ValidateCredentials, findPostalCodeV1) or the
// message speaks of the login. JAX-WS answers faults with HTTP 500, so a 500
// that holds a SOAP fault is read as one; any other 5xx, a 429, a timeout or
// no answer is carrier.ErrUnavailable.
//
// Unverified assumptions, in the block "Unverified assumptions" below: the
// production host, the tracking namespace and its authData channel, the
// event codes and their meanings, the time format of events, the fault
// message of wrong credentials, the FieldNames of ValidationInfo, the
// weight limit of a parcel, and the parcel limit of a package (MaxParcels,
// chosen: DPD documents none that is known here).
package dpdpl

import (
	"context"
	"encoding/xml"
	"net/http"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Code is the provider code of DPD Poland.
const Code = "dpd_pl"

// The vendor's hosts. SandboxURL is the service address the WSDL publishes.
const (
	ProductionURL = "https://dpdservices.dpd.com.pl/DPDPackageObjServicesService/DPDPackageObjServices"
	SandboxURL    = "https://dpdservicesdemo.dpd.com.pl/DPDPackageObjServicesService/DPDPackageObjServices"
	TrackingURL   = "https://dpdinfoservices.dpd.com.pl/DPDInfoServicesObjEventsService/DPDInfoServicesObjEvents"
)

// Namespaces of the two services' wrapper elements (their children are
// unqualified).
const (
	packageNS = "http://dpdservices.dpd.com.pl/" // [V] the WSDL's targetNamespace
)

// Unverified assumptions, in one place.
var (
	// ProductionURL (const above) is the host community clients use
	// (t3ko/dpd-pl-api-php); the WSDL only names the demo host.
	//
	// eventsNS is the tracking service's namespace as a community client
	// sends it (Stefcio345/DPD_Tool); no WSDL of it is at hand.
	eventsNS = "http://events.dpdinfoservices.dpd.com.pl/"
	// The tracking authData carries channel (DPD_Tool) where t3ko sends
	// masterFid; channel is sent, defaulting to masterFid (track.go).
	//
	// eventTimeLayouts are the forms of eventTime accepted, read in
	// Warsaw time when they carry no zone (track.go).
	eventTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02T15:04:05"}
	// The event codes and their meanings (statuses.go,
	// testdata/event-codes.tsv): no vendor or community list was found;
	// every code there is [U].
	//
	// A wrong login or password is a SOAP fault (DPDServiceException)
	// whose message speaks of the login (errors.go, credentialWords).
	//
	// ValidationInfo.FieldNames names DPD's fields as their element
	// paths, e.g. "receiver.postalCode" (errors.go, fieldOf).
	//
	// maxParcelKG: DPD Classic and Pickup take parcels up to 31.5 kg
	// (DPD Polska's published terms, not the API's).
	maxParcelKG = 31.5
	// maxProtocolParcels is the most waybills asked for on one protocol
	// (manifest.go). DPD answers PARCEL_LIMIT_EXCEEDED past a limit no
	// document at hand names; 500 is shipd's choice.
	maxProtocolParcels = 500
)

// MaxParcels is the most parcels one package may have, an unverified choice
// like the assumptions above: DPD's API documents no limit of a package's
// parcels that is known here, so shipd chose 50, as for PPL and GLS.
const MaxParcels = 50

// The products (productType).
const (
	ProductClassic = "CLASSIC"
	ProductPickup  = "PICKUP"
)

// products: both carry cash on delivery as a service, no product switch.
var products = []carrier.ProductType{
	{Code: ProductClassic, Name: "DPD Classic (to the address)", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
	{Code: ProductPickup, Name: "DPD Pickup (to a pickup point)", SupportsCOD: true, PickupPoint: carrier.PickupPointRequired},
}

// labelFormats maps shipd's formats to outputDocFormatDSPEnumV1.
var labelFormats = map[string]string{"pdf": "PDF", "zpl": "ZPL", "epl": "EPL"}

// formatNames are shipd's label formats DPD prints, in a fixed order.
var formatNames = []string{"pdf", "zpl", "epl"}

// Config sets where the adapter talks to; the zero value is DPD's hosts.
type Config struct {
	// ProductionURL and SandboxURL are the dpdservices endpoints; "" = DPD's.
	ProductionURL, SandboxURL string
	// TrackingURL is the dpdinfoservices endpoint (one host: DPD has no
	// demo tracking); "" = DPD's.
	TrackingURL string
	// HTTPClient sends every call; nil = carrierhttp.DefaultClient.
	HTTPClient *http.Client
	// PollInterval is unused: DPD books synchronously. Kept so every
	// adapter's Config has the same fields.
	PollInterval time.Duration
}

// Carrier is the DPD Poland adapter. It keeps nothing between calls.
type Carrier struct {
	cfg Config
	now func() time.Time // the clock courier windows are dropped by
}

// New fills cfg's empty fields with DPD's hosts.
func New(cfg Config) *Carrier {
	if cfg.ProductionURL == "" {
		cfg.ProductionURL = ProductionURL
	}
	if cfg.SandboxURL == "" {
		cfg.SandboxURL = SandboxURL
	}
	if cfg.TrackingURL == "" {
		cfg.TrackingURL = TrackingURL
	}
	return &Carrier{cfg: cfg, now: time.Now}
}

var (
	_ carrier.Provider = (*Carrier)(nil)
	_ carrier.Shipper  = (*Carrier)(nil)
	_ carrier.Tracker  = (*Carrier)(nil)
)

// Info describes DPD Poland's settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "DPD Poland (dpdservices)",
		Settings: []carrier.Setting{
			{Key: "login", Type: carrier.TypeString, Required: true, Description: "DPDServices login issued by DPD Polska."},
			{Key: "password", Type: carrier.TypeString, Required: true, Secret: true, Description: "DPDServices password."},
			{Key: "masterFid", Type: carrier.TypeString, Required: true, Description: "Master FID (DPD customer number), digits; also the sender's fid."},
			{Key: "productType", Type: carrier.TypeString, Enum: carrier.ProductCodes(products), Default: ProductClassic,
				Description: "DPD product: CLASSIC to the address, PICKUP to a DPD Pickup point."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use DPD's demo service (dpdservicesdemo.dpd.com.pl). Tracking has no demo service."},
			{Key: carrier.LabelFormatSetting, Type: carrier.TypeString, Enum: formatNames, Default: carrier.DefaultLabelFormat,
				Description: "Label format when a shipment names none."},
			{Key: carrier.DefaultPickupPointSetting, Type: carrier.TypeString,
				Description: "DPD Pickup point id (e.g. PL11033) of PICKUP shipments that name none."},
			{Key: "trackingLogin", Type: carrier.TypeString, Description: "DPDInfoServices login; empty = login."},
			{Key: "trackingPassword", Type: carrier.TypeString, Secret: true, Description: "DPDInfoServices password; empty = password."},
			{Key: "trackingChannel", Type: carrier.TypeString, Description: "DPDInfoServices channel; empty = masterFid."},
		},
		ProductTypes:      products,
		LabelFormats:      formatNames,
		SupportsCOD:       true,
		MaxParcels:        MaxParcels,
		MaxParcelWeightKG: maxParcelKG,
		Dispatch:          dispatchInfo,
	}
}

// ValidateCredentials asks DPD for a postal code with the settings'
// credentials (findPostalCodeV1, the cheapest authenticated call): a fault
// is DPD refusing them.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	auth, err := authOf(s)
	if err != nil {
		return err
	}
	var out findPostalCodeResponse
	err = c.call(ctx, c.base(s), packageNS, &findPostalCodeRequest{
		PostalCode: postalCode{CountryCode: "PL", ZipCode: "02274"},
		Auth:       auth,
	}, &out)
	if f, ok := asFault(err); ok {
		return carrier.Reject("password", "DPD Poland refused the credentials: %s", f.message())
	}
	return err
}

// base is the dpdservices endpoint the settings ask for.
func (c *Carrier) base(s carrier.Settings) string {
	return carrierhttp.BaseURL(s, c.cfg.ProductionURL, c.cfg.SandboxURL)
}

// product is the request's product, else the channel's, else CLASSIC.
func product(s carrier.Settings, requested string) string {
	for _, p := range []string{requested, s.String("productType")} {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			return p
		}
	}
	return ProductClassic
}

// findPostalCodeV1 and its answer [C]: status OK, NONEXISTING_POSTAL_CODE or
// NONEXISTING_COUNTRY_CODE; only whether DPD answers at all matters here.
type (
	findPostalCodeRequest struct {
		XMLName    xml.Name   `xml:"dpd:findPostalCodeV1"`
		PostalCode postalCode `xml:"postalCodeV1"`
		Auth       authData   `xml:"authDataV1"`
	}
	postalCode struct {
		CountryCode string `xml:"countryCode"`
		ZipCode     string `xml:"zipCode"`
	}
	findPostalCodeResponse struct {
		Return struct {
			Status string `xml:"status"`
		} `xml:"return"`
	}
)

func (*findPostalCodeRequest) operationName() string { return "findPostalCodeV1" }
