// Package packeta is the carrier adapter for Packeta (Zásilkovna; Czech
// Republic, Slovakia, Hungary, Romania and the carriers Packeta hands
// parcels to abroad): packets to Packeta's pickup points (Z-Points, Z-BOXes)
// or home delivery, their labels, cancellation and tracking. Provider code
// "packeta".
//
// In comments [V] marks a fact stated by Packeta (the API reference at
// docs.packetery.com, the API page https://www.zasilkovna.cz/popis-api, or
// the SOAP WSDL Packeta's own WooCommerce plugin shipped as
// config/packetery-soap-bugfix.wsdl, commit 761642f4 of
// github.com/Zasilkovna/WooCommerce), [C] one taken from community clients,
// [U] one nobody confirmed.
//
// The API [V]: XML over HTTP POST to https://www.zasilkovna.cz/api/rest. The
// root element of the request is the method's name, its children the
// method's arguments as the WSDL's RPC messages name them (apiPassword
// first: the secret travels inside every body, there is no login and so
// nothing to cache). The answer is <response> holding <status>ok</status>
// and <result> (a value or a structure, as the WSDL types it), or
// <status>fault</status> with <fault> (the fault class, e.g.
// PacketAttributesFault), <string> (the message) and <detail> (the fault's
// structure, e.g. the refused attributes). The methods used: createPacket,
// cancelPacket, packetLabelPdf, packetLabelZpl, packetTracking and
// senderGetReturnRouting.
//
// No sandbox [V]: Packeta has no test host; API passwords are production
// ones. sandboxMode keeps its meaning and its default (true) — a channel
// set up without choosing must never book real parcels — so while it is
// true the adapter refuses (a Rejection on sandboxMode) every call but the
// credential check, unless Config.SandboxURL names a host (tests point it at
// their fake). ValidateCredentials always asks production, with a call that
// changes nothing: senderGetReturnRouting for the channel's sender label
// (eshop) when one is set, which also checks the label exists, else
// packetStatus of a packet id no packet has, which Packeta answers with
// PacketIdFault once it has accepted the password.
//
// One packet per parcel [V]: createPacket books one packet, with its own
// numeric id and barcode (Z + ten digits, the tracking number). A shipment
// of N parcels is N createPacket calls in parcel order. Each created packet
// is recorded at once through req.Booking.Accept (the handle lists
// "id:barcode" pairs, comma separated), so a retried booking resumes after
// the packets already made and never makes one twice; an attempt cut off
// before Packeta answered (timeout, 5xx) keeps what it recorded and returns
// ErrUnavailable. When Packeta refuses a parcel (parcel 2 of 3), the packets
// of the shipment made so far are cancelled and the booking is rejected, so
// a shipment never half-exists. When recording a packet fails, that packet is
// cancelled before the error is returned. A cancel that fails there is logged
// at WARN and its packet ids joined to the error (carrier.WithLeftover), for
// the shipment's record. Packeta cannot look packets up by
// the order number, so the handle is the only memory; the order number
// (attribute number) is still derived from Booking.Key and the parcel's
// index, so every attempt sends the same one. ProviderShipmentID is the
// handle's form of the packets: "id:barcode,id:barcode,…".
//
// Products (setting productType): pickup_point (addressId = the Packeta
// pickup point id the shipment names, PickupPoint required) and
// home_delivery (addressId = the home-delivery carrier's id from the
// setting homeDeliveryCarrierId, e.g. 106 for Czech home delivery [C];
// street, house number, city and postal code are sent, PickupPoint none). A
// point Packeta does not know comes back as a PacketAttributesFault on
// addressId: a Rejection on pickup_point_id with Packeta's message. Cash on
// delivery [V]: attributes cod and currency; every product takes it.
//
// Labels [V]: packetLabelPdf (a page format such as "A6 on A6", setting
// pdfLabelFormat, offset 0) and packetLabelZpl (dpi), one label per packet,
// in parcel order. Packeta prints no EPL. Cancel [V]: cancelPacket per
// packet; CancelNotAllowedFault (the packet is on its way) is a Rejection
// with Packeta's message. Packeta documents no fault of its own for a
// packet cancelled already: a packet whose cancel faults and whose tracking
// shows status 11 (cancelled [V]) was, and when every packet of the
// shipment was, the answer is carrier.ErrAlreadyCancelled. Tracking [V]: packetTracking gives the packet's
// StatusRecords; statusCode is the event's Code and is mapped by the table
// of statuses.go (the codes of the API reference's status table); a
// PacketIdFault means the number is not recognized.
//
// Errors (errors.go): PacketAttributesFault names each refused attribute;
// those map to shipd's fields (weight of parcel i → parcels.i.weight_amount,
// addressId → pickup_point_id …), the others keep Packeta's name.
// IncorrectApiPasswordFault blames apiPassword, SenderNotExists eshop. No
// answer, a timeout, 429, 5xx and ExternalGatewayFault are ErrUnavailable.
//
// Unverified assumptions, also in the var block below: the parcel limit of
// a shipment (Packeta has none: each parcel is its own packet), the weight
// limit of pickup points, the barcode being "Z" + the packet id, the ZPL
// resolution, sizes in millimetres, HTTP 200 carrying faults, the form of
// dateTime in status records, the packet value sent when there is no COD,
// and the extra status codes 18–30 some clients list (left unmapped).
package packeta

import (
	"context"
	"net/http"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// Code is the provider code of Packeta.
const Code = "packeta"

// ProductionURL is the vendor's REST endpoint [V]. Packeta has no test
// host, so there is no SandboxURL constant.
const ProductionURL = "https://www.zasilkovna.cz/api/rest"

// Products (productType setting).
const (
	ProductPickupPoint  = "pickup_point"
	ProductHomeDelivery = "home_delivery"
)

// Setting keys of the Packeta channel.
const (
	settingPassword     = "apiPassword"
	settingEshop        = "eshop"
	settingHomeCarrier  = "homeDeliveryCarrierId"
	settingPDFFormat    = "pdfLabelFormat"
	settingPacketValue  = "packetValue"
	settingProductType  = "productType"
	settingSandboxMode  = "sandboxMode"
	defaultPDFFormat    = "A6 on A6"
	defaultPacketValue  = 1
	maxReferenceLength  = 24 // PacketAttributes.number is a string24 [V]
	recipientNameLength = 32 // name, surname, company, city: string32 [V]
)

// pdfFormats are the page formats packetLabelPdf prints [V: the formats
// Packeta's own WooCommerce plugin offers]. "A6 on A6" is one 10×15-like
// label per page, as shipd's labels are.
var pdfFormats = []string{"A6 on A6", "A6 on A4", "A7 on A7", "A7 on A4", "105x35mm on A4", "A8 on A8"}

// Unverified assumptions, in one place: what shipd chose or what only
// community clients say, where Packeta's documentation is silent.
var (
	// MaxParcels: Packeta has no shipment of several parcels (each parcel
	// is one packet), so it documents no limit; shipd chose 20, since every
	// parcel is one sequential call inside one booking attempt.
	//
	// maxPointWeightKG is the weight a packet to a Packeta pickup point may
	// have (10 kg, as Packeta's pickup point service is commonly described
	// [U]); heavier parcels are refused before any call. Home delivery
	// limits depend on the carrier and are left to Packeta.
	maxPointWeightKG = 10.0
	// barcodePrefix: a packet's barcode is "Z" followed by its ten-digit id
	// (Packeta's label guide gives the tracking code's form, Z1234567890
	// [V]; that the digits are the packet id is [C]). Only Track relies on
	// it, to turn a tracking number back into the packet id; bookings keep
	// both (ProviderShipmentID).
	barcodePrefix = "Z"
	// zplDPI is the resolution asked of packetLabelZpl (203 dpi, the common
	// thermal printer) [U].
	zplDPI = 203
	// Size is sent in millimetres [U] (the WSDL types it unsignedInt
	// without a unit).
	//
	// Faults come with HTTP 200 like results [U]; any answer whose body is
	// a <response> is read whatever its status (client.go).
	//
	// Status record dateTime values carry no zone and are Prague time [U]
	// (track.go).
	//
	// value (the packet's declared value, required [V]) is the COD amount
	// when there is one, else the channel's packetValue setting (default 1)
	// with no currency, which Packeta is assumed to read in the destination
	// country's currency [U].
	//
	// Status codes 18–30 (storage time expired, investigations, redirects…)
	// appear in one community client only; they are left out of the table
	// and so map to nothing until Packeta's reference confirms them.
)

// MaxParcels is the most parcels one shipment may have (see the
// unverified assumptions).
const MaxParcels = 20

// Config says where the Packeta API is.
type Config struct {
	// ProductionURL is the REST endpoint; "" = ProductionURL.
	ProductionURL string
	// SandboxURL, when not "", is asked instead while sandboxMode is true;
	// "" (Packeta has no test host) refuses those calls.
	SandboxURL string
	// HTTPClient sends every call; nil = carrierhttp.DefaultClient.
	HTTPClient *http.Client
	// PollInterval is unused: Packeta books synchronously. It is kept for
	// the shape every adapter's Config has.
	PollInterval time.Duration
}

// Carrier is the Packeta adapter. It keeps no state between calls.
type Carrier struct {
	cfg Config
}

// New fills cfg's empty fields with Packeta's endpoint.
func New(cfg Config) *Carrier {
	if cfg.ProductionURL == "" {
		cfg.ProductionURL = ProductionURL
	}
	cfg.ProductionURL = strings.TrimRight(cfg.ProductionURL, "/")
	cfg.SandboxURL = strings.TrimRight(cfg.SandboxURL, "/")
	return &Carrier{cfg: cfg}
}

var (
	_ carrier.Provider = (*Carrier)(nil)
	_ carrier.Shipper  = (*Carrier)(nil)
	_ carrier.Tracker  = (*Carrier)(nil)
)

var products = []carrier.ProductType{
	{Code: ProductPickupPoint, Name: "Packeta pickup point (Z-Point, Z-BOX)", SupportsCOD: true, MaxParcelWeightKG: maxPointWeightKG, PickupPoint: carrier.PickupPointRequired},
	{Code: ProductHomeDelivery, Name: "Packeta home delivery", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
}

// labelFormats are the formats Packeta prints.
var labelFormats = []string{"pdf", "zpl"}

// Info describes Packeta's settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "Packeta (Zásilkovna)",
		Settings: []carrier.Setting{
			{Key: settingPassword, Type: carrier.TypeString, Required: true, Secret: true,
				Description: "API password (32 characters) from the Packeta client section, sent inside every request."},
			{Key: settingEshop, Type: carrier.TypeString,
				Description: "Sender label (eshop) of the packets; needed when the Packeta account has several senders."},
			{Key: settingProductType, Type: carrier.TypeString, Enum: carrier.ProductCodes(products), Default: ProductPickupPoint,
				Description: "pickup_point: to the Packeta pickup point the shipment names; home_delivery: to the address, by the carrier homeDeliveryCarrierId names."},
			{Key: carrier.DefaultPickupPointSetting, Type: carrier.TypeString,
				Description: "Packeta pickup point id used when a pickup_point shipment names none."},
			{Key: settingHomeCarrier, Type: carrier.TypeString,
				Description: "Packeta id of the home-delivery carrier of the destination country (e.g. 106 for Czech home delivery); required for home_delivery."},
			{Key: settingPacketValue, Type: carrier.TypeInteger, Default: defaultPacketValue,
				Description: "Declared value of a packet without cash on delivery, in the destination country's currency (with COD the COD amount is the value)."},
			{Key: settingPDFFormat, Type: carrier.TypeString, Enum: pdfFormats, Default: defaultPDFFormat,
				Description: "Page format of PDF labels; A6 on A6 prints one label per page."},
			{Key: settingSandboxMode, Type: carrier.TypeBoolean, Default: true,
				Description: "Packeta has no test environment: while true, shipments are refused so that nothing real is booked; set false to use the production API."},
			{Key: carrier.LabelFormatSetting, Type: carrier.TypeString, Enum: labelFormats, Default: carrier.DefaultLabelFormat,
				Description: "Label format when a shipment names none."},
		},
		ProductTypes: products,
		LabelFormats: labelFormats,
		SupportsCOD:  true,
		MaxParcels:   MaxParcels,
		// Packeta's API orders no courier (its SOAP operations have none [V]);
		// e-shops hand parcels in at its points or send them to its central
		// depot (zasilkovna.cz, terms for e-shops, 1.2 [V]). createShipment
		// groups packets under a barcode, no handover document: the manifest
		// is shipd's. A packet Packeta has on its way refuses cancel
		// (CancelNotAllowedFault): the carrier decides.
		Dispatch: carrier.NoPickups(carrier.CancelAfterManifestCarrier,
			"Packeta takes no courier pickup orders through its API: parcels are handed in at Packeta points (or sent to its depot). Its manifest is shipd's handover document."),
	}
}

// ValidateCredentials asks Packeta's production API something harmless with
// the password (see the package doc): a refused password is a Rejection on
// apiPassword, an unknown sender label one on eshop.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	if err := checkPassword(s); err != nil {
		return err
	}
	base := c.cfg.ProductionURL
	if eshop := strings.TrimSpace(s.String(settingEshop)); eshop != "" {
		_, err := c.call(ctx, base, senderGetReturnRouting{APIPassword: s.String(settingPassword), Sender: eshop})
		return err
	}
	_, err := c.call(ctx, base, packetIDCall{XMLName: xmlName("packetStatus"), APIPassword: s.String(settingPassword), PacketID: noSuchPacket})
	if f, ok := asFault(err); ok && f.Class == faultPacketID {
		return nil // the password was accepted; the packet, as meant, is unknown
	}
	if err == nil {
		return nil
	}
	return err
}

// noSuchPacket is a packet id no packet has (ids are ten digits [V]).
const noSuchPacket = "1"

// checkPassword refuses a call that cannot succeed for want of a password.
func checkPassword(s carrier.Settings) error {
	if strings.TrimSpace(s.String(settingPassword)) == "" {
		return carrier.Reject(settingPassword, "is required")
	}
	return nil
}

// base is where calls other than the credential check go: production when
// sandboxMode is false; while it is true the configured test host, and
// without one a Rejection, since Packeta has none.
func (c *Carrier) base(s carrier.Settings) (string, error) {
	if !s.SandboxMode() {
		return c.cfg.ProductionURL, nil
	}
	if c.cfg.SandboxURL != "" {
		return c.cfg.SandboxURL, nil
	}
	return "", carrier.Reject(settingSandboxMode,
		"Packeta has no test environment; set sandboxMode to false to book, print and track real packets")
}
