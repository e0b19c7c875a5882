// Package allegro is the carrier adapter for Allegro's "Ship with Allegro"
// (Wysyłam z Allegro): shipments, labels and cancellation through the
// shipment-management resources of the Allegro REST API, tracking through
// its order/carriers tracking resource. Provider code "allegro".
//
// Vendor material: Allegro's public OpenAPI 3.0 file (snapshot 2026-07,
// copied to testdata/allegro-public-api.yaml); the fake of the tests
// validates every request the adapter sends to the shipment-management and
// tracking operations, and every answer it gives, against it (vendorspec).
// In comments [V] marks a fact from that file or Allegro's developer
// documentation, [C] one from a community client, [U] one nobody confirmed
// (all listed below and in the Assumed* constants).
//
// Hosts [V: the file's servers]: the API on api.allegro.pl (production) and
// api.allegro.pl.allegrosandbox.pl (sandbox); OAuth2 tokens on allegro.pl,
// path /auth/oauth/token [V: securitySchemes], and in the sandbox on
// allegro.pl.allegrosandbox.pl (AssumedSandboxAuthHost: the file names
// production's only).
// Every call sends Accept and Content-Type
// application/vnd.allegro.public.v1+json [V].
//
// Authentication. Allegro grants user tokens only through the
// authorization-code or device flow, both needing the merchant in a browser
// [V]; a server cannot run them per call. A merchant therefore authorizes
// shipd's Allegro app once (outside shipd) and stores clientId, clientSecret
// and the refreshToken it got; the adapter exchanges the refresh token at
// /auth/oauth/token (grant_type=refresh_token; client id and secret in HTTP
// Basic, AssumedTokenBodyParams) for an access token, kept per host and credentials in
// carrierhttp.Tokens until shortly before it expires and dropped on a 401
// (one more try, then a Rejection blaming refreshToken). Allegro answers a
// refresh with a new refresh token and may retire the one used
// (AssumedRefreshRotation: neither is in the file). The adapter hands the
// new one to the channel's carrier.CredentialKeeper, which the channels
// module passes with the settings: it stores it sealed for every process,
// by a compare-and-swap over the tokens the adapter knows Allegro retired,
// so a token the merchant pasted meanwhile is kept (ADR 0042). Each
// process also remembers its rotations, so settings read before one find
// the newest token and its cached access token. A refresh token refused
// as invalid_grant may have been used by another process a moment ago:
// the adapter reads the stored token again until it changes (RenewalWait,
// 3 s) and refreshes with that; a token no one renewed stays refused on
// refreshToken, asking the merchant to authorize again. What is lost is
// a token Allegro issued to a process that died before storing it.
//
// Products. Allegro's delivery methods (deliveryMethodId, UUIDs) are the
// methods the merchant's buyers chose from and differ per account [V: the
// delivery-services resource lists them per merchant]; a shipment names one
// in deliveryMethodId and, for delivery to a parcel locker or shop, the
// point in receiver.point [V: ReceiverAddressDto]. The file marks
// deliveryMethodId deprecated in favour of carrier, cashOnDelivery and
// packages.transportingInfo, fields its request schema does not have yet, so
// deliveryMethodId stays the one way to name the method [V]. shipd's products are
// therefore the two ways of delivery, each bound to a method id the channel
// names in its settings: COURIER (setting deliveryMethodId, to the address,
// no point) and PICKUP_POINT (setting pickupPointDeliveryMethodId, the
// shipment's pickup point or the channel's defaultPickupPoint required). A
// merchant using its own carrier agreement names it in credentialsId. Cash
// on delivery is a field of the shipment, not a product [V]: both products
// take it, in PLN or CZK [V: CashOnDeliveryLimitDto], amount with two
// decimals [V: pattern]; codIban and codOwnerName say where Allegro pays it.
//
// Create is asynchronous [V]: POST create-commands with a commandId the
// client chooses, then GET create-commands/{commandId} (every Retry-After
// seconds [V]) until SUCCESS or ERROR, then GET shipments/{shipmentId},
// whose packages carry one waybill each, in request order (the tracking
// numbers; AssumedWaybillsInOrder). Once the command succeeded Allegro holds
// the shipment: a shipment that cannot be read then, or a package without
// its waybill yet, still answers the shipment's id (the booking is
// recorded), its waybills left out or empty for the label step to read
// again by resuming the command (ADR 0041). The commandId is a name-based UUID
// (version 5) of the booking's Key, so every attempt at one shipment sends
// the same one; it is recorded through Booking.Accept once Allegro took the
// command and before polling, and an attempt given a Handle only polls.
// An attempt that crashed before recording it POSTs the same commandId
// again: should Allegro refuse the duplicate (the answer is undocumented,
// AssumedDuplicateCommandRefused), the adapter finds the command by
// GET and resumes it, so one shipment of shipd is one shipment at Allegro.
//
// Labels: POST /shipment-management/label with the shipment id answers one
// file holding every package's label [V], in the format chosen when the
// shipment was created (labelFormat PDF or ZPL [V]; the resource takes no
// format), PDF on A6 pages (10×15 cm). Asked for the other format, Labels
// says so (a Rejection).
//
// Cancel: POST cancel-commands, then GET cancel-commands/{commandId} until
// SUCCESS or ERROR [V]; the commandId is derived from the shipment id, so a
// retried cancel resumes too. Allegro refusing (e.g. already handed over)
// comes back as a Rejection with its message, unless the shipment reads as
// cancelled (canceledDate set [V]; cancelled in Allegro's panel, or by a
// command the adapter cannot resume): carrier.ErrAlreadyCancelled.
//
// Tracking: GET /order/carriers/{carrierId}/tracking?waybill=… [V]. A
// waybill does not name its carrier, so the channel names the carrier id of
// each product's method (carrierId, pickupPointCarrierId, default ALLEGRO
// [U]); Track asks each and takes the first answer with a history. Status
// codes: the file's ParcelTrackingStatus enum, every one mapped (statuses.go).
//
// Parcels: the file names no limit on packages [V: no maxItems]; MaxParcels
// (10) is our choice [U]. Weights go in KILOGRAMS and dimensions in
// CENTIMETER, the only units Allegro takes [V].
//
// Pickups and manifests (dispatch.go; same token and media type, scopes
// allegro:api:shipments:write for proposals and pickups, :read for the
// protocol [V]):
//   - Windows: POST pickup-proposals names the shipments (Allegro's ids, at
//     most 100 a call [V]; more are asked in several calls), the address
//     and readyDate, and answers pickup times per shipment [V]. One courier
//     collects them all, so the windows answered are those on the asked
//     date offered to every shipment. Allegro requires the address's
//     e-mail, phone and name or company [V], which a windows request does
//     not carry: they are the first shipment's sender as Allegro holds it
//     (one GET of the shipment).
//   - Order: POST pickups/create-commands with the shipments, the address
//     and contact of the pickup, and pickupTime {date, minTime, maxTime}
//     (the request's date and window, one of the proposals) [V]. It is
//     asynchronous as the shipment's create is: the commandId is a
//     name-based UUID of the pickup's Booking.Key (so every attempt sends
//     the same), recorded through Booking.Accept once Allegro took it and
//     before polling GET pickups/create-commands/{commandId} until SUCCESS
//     or ERROR [V]; an attempt given the Handle only polls, and a duplicate
//     POST is resumed (AssumedDuplicateCommandRefused). Confirmed: the
//     carrier's pickup number (carrierPickupId, read from GET
//     pickups/{pickupId} when the command's answer lacks it, else Allegro's
//     pickupId) and the window sent, which Allegro took as proposed (its
//     read-back names no window [V]). The pickup's Handle is Allegro's
//     pickupId. Shipments are named, never counted [V].
//   - Cancel: none; Allegro has no operation for it [V]
//     (CancelCourierPickup answers carrier.ErrNotOffered).
//   - Cut-offs: Allegro names none; the proposals are what can be ordered
//     (a window or day not proposed is refused by the command, ERROR).
//   - Manifest: POST protocol with the shipment ids answers the carrier's
//     protocol as a binary file, or 204 "No Protocol For Given Parcels":
//     "Protocol availability depends on Carrier" [V]. One call per product
//     (each a delivery method, possibly another carrier), the files merged
//     into one PDF; a 204 for any of them (or a file that is not a PDF,
//     AssumedProtocolPDF) answers the manifest without a document, and
//     shipd draws its own handover document for all the shipments. The
//     protocol has no number: the manifest's reference is empty.
//   - Cancel after a manifest: whatever Allegro's cancel command says
//     (carrier); the file says nothing of the protocol closing anything [U].
//   - Errors: the error list's paths name the pickup's fields (shipmentIds
//     → shipment_ids, pickupTime.date → date, .minTime → ready_from,
//     .maxTime → ready_until, address.name/company/email/phone → contact,
//     the rest of address → address; AssumedErrorPaths); a protocol's
//     refusal blames shipment_ids. 5xx, 429 and timeouts are
//     carrier.ErrUnavailable, token refusals blame the credentials, as
//     for shipments.
//
// Unverified assumptions (every one in one place, the Assumed* constants):
//   - [U] AssumedRefreshRotation: a refresh answers a new refresh token and
//     Allegro may retire the used one; the newest is stored with the
//     channel for every process (see Authentication).
//   - [U] AssumedSandboxAuthHost: the sandbox's tokens come from
//     allegro.pl.allegrosandbox.pl/auth/oauth/token.
//   - [U] AssumedDuplicateCommandRefused: a second POST of an existing
//     commandId creates nothing (refused or echoed); either way the adapter
//     reads the command and resumes it.
//   - [U] AssumedWaybillsInOrder: the created shipment's packages come in
//     the order they were sent and each has its waybill once the command
//     succeeded (a missing one is read again by the label step).
//   - [U] AssumedDefaultCarrierID: tracking of Allegro's own methods uses
//     carrier id ALLEGRO (the file's example); other methods need the
//     channel to name theirs.
//   - [U] AssumedMaxParcels: 10 packages per shipment.
//   - [U] AssumedErrorPaths: Error400.path names the request property as
//     dotted path, packages indexed as packages[i] (input. prefix allowed).
//   - [U] AssumedTokenBodyParams: the token endpoint takes the app's id and
//     secret in HTTP Basic and grant_type and refresh_token in the form body
//     (Allegro's examples put them in the query string; OAuth2 allows both).
//   - [U] AssumedPickupTimeReading: a pickup command with pickupTime and
//     without the deprecated pickupDateProposalId is accepted (the file
//     still lists the proposal id as required, while its description says
//     "required if pickupTime not provided"; Allegro announced the new way
//     of ordering couriers for 15 October 2025). The test fake follows this
//     reading (fixSpec); checked against the sandbox.
//   - [U] AssumedProtocolPDF: the protocol's binary file is a PDF (the
//     file says "File in a binary format"); anything else is taken as no
//     protocol. Which carriers make one, and a limit of shipments per
//     protocol or pickup (only proposals say 100), the file does not say:
//     Allegro's tutorial "how to retrieve shipment protocol" and the
//     sandbox would tell.
//   - [U] AssumedWholeDayProposal: a proposed pickupTime without minTime
//     and maxTime is the whole day, answered as a window without times.
//   - [U] The pickup's error paths and codes (a window not proposed, a
//     shipment already on a pickup) are not in the file; they are read as
//     AssumedErrorPaths says, else blame no field.
package allegro

import (
	"context"
	"net/http"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Code is the provider code.
const Code = "allegro"

// Documented hosts and paths [V: the OpenAPI file's servers and securitySchemes].
const (
	ProductionHost     = "https://api.allegro.pl"
	SandboxHost        = "https://api.allegro.pl.allegrosandbox.pl"
	ProductionAuthHost = "https://allegro.pl"
	SandboxAuthHost    = AssumedSandboxAuthHost
	tokenPath          = "/auth/oauth/token"
	shipmentsBase      = "/shipment-management"
	// mediaType is Allegro's versioned JSON type of every request and answer.
	mediaType = "application/vnd.allegro.public.v1+json"
	// DefaultPollInterval is the wait between command polls when Allegro
	// suggests none (its Retry-After has minimum 1 [V]).
	DefaultPollInterval = time.Second
	// DefaultRenewalWait is the default of Config.RenewalWait: another
	// process stores a rotated token within one write after Allegro
	// answered it.
	DefaultRenewalWait = 3 * time.Second
)

// Assumptions not confirmed by Allegro's documentation; every one in one place.
const (
	AssumedRefreshRotation         = true
	AssumedSandboxAuthHost         = "https://allegro.pl.allegrosandbox.pl"
	AssumedDuplicateCommandRefused = true
	AssumedWaybillsInOrder         = true
	AssumedDefaultCarrierID        = "ALLEGRO"
	AssumedMaxParcels              = 10
	AssumedErrorPaths              = true
	AssumedTokenBodyParams         = true
	AssumedPickupTimeReading       = true
	AssumedProtocolPDF             = true
	AssumedWholeDayProposal        = true
)

// MaxParcels is the most packages one shipment takes (AssumedMaxParcels).
const MaxParcels = AssumedMaxParcels

// Product codes.
const (
	ProductCourier     = "COURIER"
	ProductPickupPoint = "PICKUP_POINT"
)

// Settings keys beyond the common ones.
const (
	settingClientID            = "clientId"
	settingClientSecret        = "clientSecret"
	settingRefreshToken        = "refreshToken"
	settingDeliveryMethod      = "deliveryMethodId"
	settingPointDeliveryMethod = "pickupPointDeliveryMethodId"
	settingCredentialsID       = "credentialsId"
	settingCarrierID           = "carrierId"
	settingPointCarrierID      = "pickupPointCarrierId"
	settingSenderPoint         = "senderPoint"
	settingCODIban             = "codIban"
	settingCODOwner            = "codOwnerName"
)

// labelFormats are the formats Allegro prints, shipd's name → Allegro's [V].
var labelFormats = map[string]string{"pdf": "PDF", "zpl": "ZPL"}

// codCurrencies are the currencies Allegro collects [V: CashOnDeliveryLimitDto].
var codCurrencies = map[string]bool{"PLN": true, "CZK": true}

// Config sets where the adapter sends its calls.
type Config struct {
	// ProductionURL and SandboxURL are the REST API hosts ("" =
	// ProductionHost, SandboxHost).
	ProductionURL, SandboxURL string
	// ProductionAuthURL and SandboxAuthURL are the OAuth hosts ("" =
	// ProductionAuthHost, SandboxAuthHost).
	ProductionAuthURL, SandboxAuthURL string
	// HTTPClient sends every call; nil = carrierhttp.DefaultClient.
	HTTPClient *http.Client
	// PollInterval, when set, is the wait between command polls whatever
	// Allegro's Retry-After says (tests); 0 honours Retry-After.
	PollInterval time.Duration
	// RenewalWait is how long a refresh token Allegro refused waits for
	// another process to store the one it rotated to; 0 =
	// DefaultRenewalWait.
	RenewalWait time.Duration
}

// Carrier is the Allegro adapter; one value serves every channel at once.
type Carrier struct {
	cfg     Config
	tokens  carrierhttp.Tokens
	rotated rotations
}

// New keeps cfg as given: empty hosts fall back to Allegro's on each call.
func New(cfg Config) *Carrier { return &Carrier{cfg: cfg} }

var (
	_ carrier.Provider   = (*Carrier)(nil)
	_ carrier.Shipper    = (*Carrier)(nil)
	_ carrier.Tracker    = (*Carrier)(nil)
	_ carrier.Dispatcher = (*Carrier)(nil)
)

// products are the two ways a Ship with Allegro delivery method delivers.
var products = []carrier.ProductType{
	{Code: ProductCourier, Name: "Ship with Allegro, courier to the address (delivery method of setting deliveryMethodId)",
		SupportsCOD: true, PickupPoint: carrier.PickupPointNone},
	{Code: ProductPickupPoint, Name: "Ship with Allegro, to a parcel locker or pickup point (delivery method of setting pickupPointDeliveryMethodId)",
		SupportsCOD: true, PickupPoint: carrier.PickupPointRequired},
}

// Info describes the settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "Allegro (Ship with Allegro)",
		Settings: []carrier.Setting{
			{Key: settingClientID, Type: carrier.TypeString, Required: true, Description: "Client ID of the Allegro app the merchant authorized (apps.developer.allegro.pl)."},
			{Key: settingClientSecret, Type: carrier.TypeString, Required: true, Secret: true, Description: "Client secret of that app."},
			{Key: settingRefreshToken, Type: carrier.TypeString, Required: true, Secret: true, Description: "Refresh token the merchant got authorizing the app (authorization-code or device flow, scopes allegro:api:shipments:read and :write)."},
			{Key: settingDeliveryMethod, Type: carrier.TypeString, Description: "Delivery method id (UUID) of product COURIER, as Allegro lists it for the account."},
			{Key: settingPointDeliveryMethod, Type: carrier.TypeString, Description: "Delivery method id (UUID) of product PICKUP_POINT (a parcel locker or pickup point method)."},
			{Key: settingCredentialsID, Type: carrier.TypeString, Description: "Id of the merchant's own carrier agreement registered at Allegro; empty for Allegro Standard methods."},
			{Key: settingCarrierID, Type: carrier.TypeString, Default: AssumedDefaultCarrierID, Description: "Allegro's carrier id of the COURIER method, for tracking (e.g. ALLEGRO, DPD, INPOST)."},
			{Key: settingPointCarrierID, Type: carrier.TypeString, Description: "Allegro's carrier id of the PICKUP_POINT method, for tracking; empty = carrierId."},
			{Key: settingSenderPoint, Type: carrier.TypeString, Description: "Drop-off point id where the merchant hands parcels in, for methods that need one."},
			{Key: settingCODIban, Type: carrier.TypeString, Description: "Bank account (IBAN) Allegro pays cash on delivery to, where the method needs one."},
			{Key: settingCODOwner, Type: carrier.TypeString, Description: "Owner of that bank account."},
			{Key: "productType", Type: carrier.TypeString, Enum: productCodes(), Default: ProductCourier, Description: "COURIER (to the address) or PICKUP_POINT (to a locker or pickup point)."},
			{Key: carrier.DefaultPickupPointSetting, Type: carrier.TypeString, Description: "Pickup point id of PICKUP_POINT shipments that name none."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use Allegro's sandbox (api.allegro.pl.allegrosandbox.pl) instead of production."},
			{Key: carrier.LabelFormatSetting, Type: carrier.TypeString, Enum: []string{"pdf", "zpl"}, Default: carrier.DefaultLabelFormat, Description: "Label format when a shipment names none."},
		},
		ProductTypes: products,
		LabelFormats: []string{"pdf", "zpl"},
		SupportsCOD:  true,
		MaxParcels:   MaxParcels,
		Dispatch: carrier.DispatchInfo{
			Pickups:             true,
			PickupCancel:        false,
			PickupAvailability:  carrier.AvailabilityCarrier,
			PickupShipments:     carrier.PickupNamesShipments,
			Manifest:            carrier.ManifestByCarrier,
			CancelAfterManifest: carrier.CancelAfterManifestCarrier,
			Note: "Allegro proposes pickup windows per shipment and has no pickup cancel; " +
				"its protocol exists for some carriers only, shipd's handover document stands in for the others.",
		},
	}
}

func productCodes() []string {
	out := make([]string, len(products))
	for i, p := range products {
		out[i] = p.Code
	}
	return out
}

// ValidateCredentials refreshes the access token: Allegro's token endpoint
// checks the app's id and secret and the merchant's refresh token together.
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
	for _, k := range []string{settingClientID, settingClientSecret, settingRefreshToken} {
		if strings.TrimSpace(s.String(k)) == "" {
			problems = append(problems, carrier.Reject(k, "is required by Allegro"))
		}
	}
	return carrier.RejectionOf(problems)
}

// apiHost is the REST host of the channel's mode.
func (c *Carrier) apiHost(s carrier.Settings) string {
	return carrierhttp.BaseURL(s, orDefault(c.cfg.ProductionURL, ProductionHost), orDefault(c.cfg.SandboxURL, SandboxHost))
}

// authHost is the OAuth host of the channel's mode.
func (c *Carrier) authHost(s carrier.Settings) string {
	return carrierhttp.BaseURL(s, orDefault(c.cfg.ProductionAuthURL, ProductionAuthHost), orDefault(c.cfg.SandboxAuthURL, SandboxAuthHost))
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return strings.TrimRight(v, "/")
}

// setting is a trimmed string setting, def when empty.
func setting(s carrier.Settings, key, def string) string {
	if v := strings.TrimSpace(s.String(key)); v != "" {
		return v
	}
	return def
}
