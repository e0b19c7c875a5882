// Package inpost is the InPost ShipX carrier (Poland): shipments booked in
// ShipX's simplified mode (the service is named, ShipX selects and buys the
// offer), their labels, cancellation and tracking.
//
// Authentication is a static Bearer token issued in InPost's Parcel Manager
// (My Account → API) together with the organization id it belongs to; there
// is no OAuth and so no token cache: every call carries the token as it is.
// A 401 blames apiToken, a 403 or 404 of the organization blames
// organizationId. sandboxMode picks https://sandbox-api-shipx-pl.easypack24.net
// instead of https://api-shipx-pl.easypack24.net.
//
// Products are ShipX services: inpost_locker_standard (parcel locker) and the
// courier services inpost_courier_standard (the default),
// inpost_courier_express_1000/1200/1700, inpost_courier_c2c and
// inpost_courier_palette. Cash on delivery needs no product switch (every
// product supports it); for courier standard, express and palette the
// adapter also sends insurance equal to the COD amount, which ShipX requires
// (insurance ≥ COD). Courier shipments take 1–1000 parcels, locker shipments
// exactly one. A locker shipment goes to a parcel locker
// (custom_attributes.target_point, required for locker services [V]): the
// shipment's pickup point, else the channel's defaultPickupPoint, else
// targetPoint, that setting's earlier name, which channels set up before
// keep (carrier.Settings.PickupPoint); a locker ShipX does not know is a
// Rejection of pickup_point_id with ShipX's message. ShipX documents
// target_point for locker services only, so courier services take no point
// (a shipment naming one is refused before ShipX is called). sendingMethod,
// when set, goes out as custom_attributes.sending_method.
//
// Booking is asynchronous in ShipX: the create call answers with a shipment
// (its id) in status created, and the adapter polls GET /v1/shipments/{id}
// (every Config.PollInterval) until it is confirmed with a tracking number
// per parcel, or until ctx ends (ErrUnavailable). The id is recorded through
// ShipmentRequest.Booking as soon as it is read from the create answer,
// before the rest of that answer and before the first poll; an attempt
// given it back as Booking.Handle polls that shipment and creates none.
// Labels are one file for all parcels (A6, pdf, zpl or epl). Cancelling
// works only before ShipX confirms a shipment; ShipX's invalid_action
// refusal comes back as a Rejection with its message, except for a
// shipment already canceled (carrier.ErrAlreadyCancelled).
//
// Tracking reads GET /v1/tracking/{number}; every status GET /v1/statuses
// names (testdata/shipx-statuses.txt, transcribed with its source) is in the
// explicit table of statuses.go or deliberately unmapped ("other"); unknown
// codes map to nothing. A 404 means the number is not recognized.
//
// Pickups and manifests (dispatch.go; same token and organization; PL only
// [V]). A courier pickup is a ShipX dispatch order, POST
// /v1/organizations/{id}/dispatch_orders [V "Dispatch Order"; C the
// SDKs]: it names the shipments (ShipX ids, never counts; shipments booked
// with sending_method dispatch_order, the sendingMethod setting), the
// pickup's address (InPost matches it to a registered dispatch point by a
// checksum of the address [V]), the contact's name (the company, else the
// person), phone and e-mail, the window as office_hours ("09:00-12:00")
// and the note as comment [C: the form's fields]. ShipX takes no date and
// no window [V: the form has none]: InPost's courier comes on InPost's day,
// so the pickup confirms no window (the requested one stands, unconfirmed)
// and windows are the channel's defaults (CourierPickupWindows answers
// carrier.ErrNotOffered). The order is made at once, status new, and
// checked later: sent, then accepted, or rejected with errors [V statuses;
// C the asynchronous check]. Its id is recorded through Booking.Accept
// before the adapter polls GET /v1/dispatch_orders/{id} (every
// Config.PollInterval) until accepted or done (the confirmation number is
// the order's id) or rejected (a Rejection, ShipX's errors read as
// validation details and blaming shipment_ids, address, contact); an
// attempt given the id back polls it and orders nothing. A first attempt
// first lists the organization's orders holding its first shipment
// (shipment_id filter [C]) and takes up a standing one (not rejected or
// canceled) at the same address holding all its shipments: the order an
// attempt made before it died unrecorded. Cancel is DELETE
// /v1/dispatch_orders/{id} [C]; a refusal (the fake allows it while new or
// sent) is a Rejection with ShipX's message, an order that reads canceled
// already is cancelled. The manifest is ShipX's printouts, GET
// /v1/organizations/{id}/dispatch_orders/printouts?format=Pdf&shipment_ids[]=…
// [V "Printing dispatch orders"]: at most 100 shipments a call, one PDF for
// one service, a ZIP of one PDF per service otherwise [V]. The adapter
// calls once per service (shipd's product) and per 100 shipments and
// merges the PDFs in that order; a ZIP all the same is opened and its PDFs
// taken, and shipments with and without a dispatch order, which ShipX
// refuses to print together [V: the error
// cannot_mix_shipments_with_and_without_dispatch_order], are read for their
// order and printed apart. The
// printout has no number: the manifest's reference is empty. Its errors:
// printout_generation_failed (the logistics system) is unavailability;
// invalid_status, does_not_exist, invalid_range blame shipment_ids.
// Cancel after a manifest: the printout closes nothing [U], and ShipX
// refuses to cancel any confirmed shipment anyway (a printed one is).
// Unverified for the shipping day [U], to be checked against the ShipX
// sandbox: how long InPost takes to accept an order and whether an order
// turns accepted at all in the sandbox; which statuses DELETE allows and
// what it answers otherwise; the shape of a rejected order's errors; the
// format of office_hours; that the list's shipment_id filter works; the
// content types of the printouts (application/pdf, application/zip [C]);
// the HTTP status of the printouts' errors; the lead time and cut-off of a
// dispatch order (none is documented); whether a dispatch order takes
// shipments booked with another sending_method (a community client saw
// them rejected [C]).
//
// The vendor's reference is the ShipX documentation at
// dokumentacja-inpost.atlassian.net/wiki/spaces/PL. InPost publishes no
// OpenAPI file of ShipX, so the tests' fake is held to shipd's own strict
// one, testdata/shipx.yaml, written from that documentation for the
// operations used (field names, enums, required attributes; every object
// closed through vendorspec, so an undocumented or misspelt attribute is
// refused). In comments [V] marks a fact stated there, [C] one taken from
// the community PHP SDK michalbiarda/shipx-php-sdk, [U] one nobody confirmed.
// Unverified assumptions are kept in the const block "Unverified
// assumptions" below (label type A6 for every service, tracking accepting
// and ignoring the Bearer token, the apartment number joined to the building
// number as "12/3", PLN for a price that names no currency) or marked [U]
// next to the code that relies on them: the 401/403/404 error bodies and
// nested or dotted validation details (errors.go), Polish phone numbers sent
// as nine digits without +48, parcels sent as dimensions in mm and weight in
// kg for every service (no templates), and the price read from
// selected_offer.rate/currency (shipments.go); the names of GET /v1/statuses
// as two community clients transcribe the answer [C] (testdata); that
// ShipX's validation details name custom_attributes.target_point for a
// locker it does not know (errors.go maps that path to pickup_point_id).
package inpost

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"shipd/platform/carrier"
)

// Code is the provider code of InPost ShipX.
const Code = "inpost"

// The vendor's documented hosts.
const (
	ProductionURL = "https://api-shipx-pl.easypack24.net"
	SandboxURL    = "https://sandbox-api-shipx-pl.easypack24.net"
)

// DefaultPollInterval is how often a booking is polled when Config names none.
const DefaultPollInterval = 500 * time.Millisecond

// Products (ShipX services).
const (
	ServiceLockerStandard   = "inpost_locker_standard"
	ServiceCourierStandard  = "inpost_courier_standard"
	ServiceCourierExpress10 = "inpost_courier_express_1000"
	ServiceCourierExpress12 = "inpost_courier_express_1200"
	ServiceCourierExpress17 = "inpost_courier_express_1700"
	ServiceCourierC2C       = "inpost_courier_c2c"
	ServiceCourierPalette   = "inpost_courier_palette"
)

// Unverified assumptions, kept in one place: not in the ShipX documentation,
// or only seen in the community SDK.
const (
	// labelType is the ShipX label size asked for every service: A6 (10×15),
	// the only size courier services print; assumed to work for lockers too.
	labelType = "A6"
	// trackingWithAuth: the SDK calls tracking without auth [C]; the adapter
	// sends the Bearer token anyway, assuming ShipX ignores it there.
	trackingWithAuth = true
	// apartmentSeparator joins house and apartment numbers in
	// building_number ("12/3"), the Polish way of writing them [U].
	apartmentSeparator = "/"
	// priceCurrency is the currency of a selected offer's rate that names
	// none, ShipX PL's own [U]. COD and insurance go out in the currency
	// shipd gives; refusing others is left to ShipX.
	priceCurrency = "PLN"
)

// Parcel limits per shipment [V]: courier services take 1–1000 parcels,
// locker services one (several parcels to a locker are several shipments).
const (
	maxCourierParcels = 1000
	maxLockerParcels  = 1
)

// insuranceWithCOD are the services for which ShipX requires insurance of
// at least the COD amount [V]; the adapter sends insurance = COD for them.
var insuranceWithCOD = map[string]bool{
	ServiceCourierStandard:  true,
	ServiceCourierExpress10: true,
	ServiceCourierExpress12: true,
	ServiceCourierExpress17: true,
	ServiceCourierPalette:   true,
}

// lockerServices are single-parcel and need a target point.
var lockerServices = map[string]bool{ServiceLockerStandard: true}

// Config says where ShipX is and how to reach it.
type Config struct {
	ProductionURL, SandboxURL string        // base URLs; "" = the documented hosts
	HTTPClient                *http.Client  // nil = carrierhttp.DefaultClient
	PollInterval              time.Duration // booking poll; 0 = DefaultPollInterval
}

// Carrier is the InPost ShipX adapter. It keeps no state between calls.
type Carrier struct {
	cfg Config
}

// New fills cfg's empty fields with ShipX's hosts and DefaultPollInterval.
func New(cfg Config) *Carrier {
	if cfg.ProductionURL == "" {
		cfg.ProductionURL = ProductionURL
	}
	if cfg.SandboxURL == "" {
		cfg.SandboxURL = SandboxURL
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	return &Carrier{cfg: cfg}
}

var (
	_ carrier.Provider   = (*Carrier)(nil)
	_ carrier.Shipper    = (*Carrier)(nil)
	_ carrier.Tracker    = (*Carrier)(nil)
	_ carrier.Dispatcher = (*Carrier)(nil)
)

var productCodes = []string{
	ServiceLockerStandard, ServiceCourierStandard, ServiceCourierExpress10, ServiceCourierExpress12,
	ServiceCourierExpress17, ServiceCourierC2C, ServiceCourierPalette,
}

// Info describes the settings, products and label formats of InPost ShipX.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "InPost ShipX (Poland)",
		Settings: []carrier.Setting{
			{Key: "apiToken", Type: carrier.TypeString, Required: true, Secret: true,
				Description: "ShipX API token (Parcel Manager → My Account → API), sent as a Bearer token."},
			{Key: "organizationId", Type: carrier.TypeString, Required: true,
				Description: "ShipX organization id the token belongs to."},
			{Key: "productType", Type: carrier.TypeString, Enum: productCodes, Default: ServiceCourierStandard,
				Description: "ShipX service used for shipments; cash on delivery keeps the same service."},
			{Key: carrier.DefaultPickupPointSetting, Type: carrier.TypeString,
				Description: "Parcel locker id (e.g. KRA010) of locker shipments (inpost_locker_standard) that name no pickup_point_id."},
			{Key: "targetPoint", Type: carrier.TypeString,
				Description: "Earlier name of defaultPickupPoint, still read when that is empty (channels set up before keep it); use defaultPickupPoint."},
			{Key: "sendingMethod", Type: carrier.TypeString,
				Description: "ShipX sending_method (e.g. dispatch_order, parcel_locker, pok); empty = the organization's default."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use the ShipX sandbox instead of production."},
			{Key: "defaultLabelFormat", Type: carrier.TypeString, Enum: []string{"pdf", "zpl", "epl"}, Default: "pdf",
				Description: "Label format when a shipment names none."},
		},
		ProductTypes: []carrier.ProductType{
			{Code: ServiceLockerStandard, Name: "Paczkomat (parcel locker) standard", SupportsCOD: true, MaxParcels: maxLockerParcels, PickupPoint: carrier.PickupPointRequired},
			{Code: ServiceCourierStandard, Name: "Courier standard", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: ServiceCourierExpress10, Name: "Courier express by 10:00", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: ServiceCourierExpress12, Name: "Courier express by 12:00", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: ServiceCourierExpress17, Name: "Courier express by 17:00", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: ServiceCourierC2C, Name: "Courier C2C", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
			{Code: ServiceCourierPalette, Name: "Courier pallet", SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
		},
		LabelFormats: []string{"pdf", "zpl", "epl"},
		SupportsCOD:  true,
		MaxParcels:   maxCourierParcels,
		Dispatch: carrier.DispatchInfo{
			Pickups:             true,
			PickupCancel:        true,
			PickupAvailability:  carrier.AvailabilityDefaults,
			PickupShipments:     carrier.PickupNamesShipments,
			Manifest:            carrier.ManifestByCarrier,
			CancelAfterManifest: carrier.CancelAfterManifestCarrier,
			Note: "A ShipX dispatch order takes no date or window: InPost's courier comes on InPost's day. " +
				"ShipX refuses to cancel a confirmed shipment, manifested or not.",
		},
	}
}

// ValidateCredentials reads the organization with the token: 401 blames
// apiToken, 403 and 404 blame organizationId.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	if err := checkSettings(s); err != nil {
		return err
	}
	res, err := c.do(ctx, s, http.MethodGet, "/v1/organizations/"+url.PathEscape(s.String("organizationId")), nil)
	if err != nil {
		return err
	}
	if res.Status == http.StatusOK {
		return nil
	}
	return apiError(res, "organizationId")
}

// checkSettings refuses a call that cannot succeed for want of credentials.
func checkSettings(s carrier.Settings) error {
	if s.String("apiToken") == "" {
		return &carrier.Rejection{Field: "apiToken", Message: "is required"}
	}
	if s.String("organizationId") == "" {
		return &carrier.Rejection{Field: "organizationId", Message: "is required"}
	}
	return nil
}
