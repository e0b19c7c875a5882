package dpdpl

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// generatePackagesNumbersV4 and its types, element names as the schema has
// them [C]; every element is optional in the schema, DPD's validation says
// what a package needs.
type (
	generatePackagesRequest struct {
		XMLName  xml.Name         `xml:"dpd:generatePackagesNumbersV4"`
		Packages []packageRequest `xml:"openUMLFeV3>packages"`
		Policy   string           `xml:"pkgNumsGenerationPolicyV1"`
		LangCode string           `xml:"langCode"`
		Auth     authData         `xml:"authDataV1"`
	}
	packageRequest struct {
		Parcels   []parcelRequest `xml:"parcels"`
		PayerType string          `xml:"payerType"`
		Receiver  address         `xml:"receiver"`
		Reference string          `xml:"reference,omitempty"`
		Sender    address         `xml:"sender"`
		Services  *services       `xml:"services,omitempty"`
	}
	parcelRequest struct {
		Reference string `xml:"reference,omitempty"`
		Weight    string `xml:"weight"`
		SizeX     string `xml:"sizeX,omitempty"`
		SizeY     string `xml:"sizeY,omitempty"`
		SizeZ     string `xml:"sizeZ,omitempty"`
	}
	address struct {
		Address     string `xml:"address"`
		City        string `xml:"city"`
		Company     string `xml:"company,omitempty"`
		CountryCode string `xml:"countryCode"`
		Email       string `xml:"email,omitempty"`
		Fid         int64  `xml:"fid,omitempty"`
		Name        string `xml:"name,omitempty"`
		Phone       string `xml:"phone,omitempty"`
		PostalCode  string `xml:"postalCode"`
	}
	services struct {
		COD       *cod       `xml:"cod,omitempty"`
		DPDPickup *dpdPickup `xml:"dpdPickup,omitempty"`
	}
	cod struct {
		Amount   string `xml:"amount"`
		Currency string `xml:"currency"`
	}
	dpdPickup struct {
		Pudo string `xml:"pudo"`
	}
)

func (*generatePackagesRequest) operationName() string { return "generatePackagesNumbersV4" }

// The answer: packagesGenerationResponseV2 (a sessionPGRV2) [C].
type (
	generatePackagesResponse struct {
		Return struct {
			Status    string            `xml:"Status"`
			SessionID string            `xml:"SessionId"`
			Packages  []packageResponse `xml:"Packages>Package"`
		} `xml:"return"`
	}
	packageResponse struct {
		Status     string           `xml:"Status"`
		PackageID  string           `xml:"PackageId"`
		Reference  string           `xml:"Reference"`
		Validation []validationInfo `xml:"ValidationDetails>ValidationInfo"`
		Parcels    []parcelResponse `xml:"Parcels>Parcel"`
	}
	parcelResponse struct {
		Status     string           `xml:"Status"`
		ParcelID   string           `xml:"ParcelId"`
		Reference  string           `xml:"Reference"`
		Waybill    string           `xml:"Waybill"`
		Validation []validationInfo `xml:"ValidationDetails>ValidationInfo"`
	}
	validationInfo struct {
		ErrorID    string `xml:"ErrorId"`
		ErrorCode  string `xml:"ErrorCode"`
		FieldNames string `xml:"FieldNames"`
		Info       string `xml:"Info"`
	}
)

// statusOK is every status of success (ValidationStatusPGREnumV1, StatusDGREnumV1).
const statusOK = "OK"

// currencies is ServiceCurrencyEnum [C] without UNKNOWN: what COD may be in.
var currencies = map[string]bool{
	"PLN": true, "EUR": true, "USD": true, "CHF": true, "SEK": true, "NOK": true, "CZK": true, "RON": true,
	"HUF": true, "HRK": true, "BGN": true, "DKK": true, "GBP": true, "RSD": true, "RUB": true, "TRY": true,
}

// CreateShipment books req as one DPD package of one parcel per shipd
// parcel; the waybills are the tracking numbers, in parcel order. As soon as
// DPD answers the package booked, its PackageId and waybills are recorded
// through req.Booking, and an attempt given that handle resumes the booking
// instead of making another (ADR 0041). Labels are printed by a second call
// (Labels).
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	auth, err := authOf(s)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if req.Booking.Handle != "" {
		return resume(req)
	}
	pkg, err := packageOf(req, s, auth.MasterFid)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	var out generatePackagesResponse
	err = c.call(ctx, c.base(s), packageNS, &generatePackagesRequest{
		Packages: []packageRequest{pkg},
		Policy:   "ALL_OR_NOTHING",
		LangCode: "PL",
		Auth:     auth,
	}, &out)
	if err != nil {
		return carrier.CreatedShipment{}, faultError(err, "booking")
	}
	if len(out.Return.Packages) != 1 {
		if out.Return.Status != statusOK {
			return carrier.CreatedShipment{}, carrier.Reject("", "DPD Poland refused the booking: %s", out.Return.Status)
		}
		return carrier.CreatedShipment{}, fmt.Errorf("dpd_pl: booking answered %d packages for 1", len(out.Return.Packages))
	}
	p := out.Return.Packages[0]
	if p.Status != statusOK || out.Return.Status != statusOK {
		return carrier.CreatedShipment{}, packageRejection(out.Return.Status, p)
	}
	if p.PackageID == "" {
		return carrier.CreatedShipment{}, fmt.Errorf("dpd_pl: the booked package came without a PackageId")
	}
	b := booking{PackageID: p.PackageID}
	for _, parcel := range p.Parcels {
		b.Waybills = append(b.Waybills, parcel.Waybill)
	}
	handle, _ := json.Marshal(b)
	if err := carrierhttp.Accept(ctx, req.Booking, string(handle)); err != nil {
		return carrier.CreatedShipment{}, err
	}
	// DPD holds the package now: waybills that do not make one per parcel
	// leave the answer short (shipd keeps none), never fail the booking.
	return b.created(), nil
}

// booking is the handle of a package DPD booked (ADR 0041): its PackageId
// and its parcels' waybills in parcel order, as DPD's answer named them.
type booking struct {
	PackageID string   `json:"package_id"`
	Waybills  []string `json:"waybills"`
}

func (b booking) created() carrier.CreatedShipment {
	return carrier.CreatedShipment{ProviderShipmentID: b.PackageID, TrackingNumbers: b.Waybills}
}

// resume answers for the package an earlier attempt recorded, from its
// handle; the labels are printed with Labels, by waybill. A handle short of
// a parcel's waybill is not completed: dpdservices has no operation that
// reads a package back (the WSDL's operations book, print, call pickups and
// find postal codes).
func resume(req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	var b booking
	if err := json.Unmarshal([]byte(req.Booking.Handle), &b); err != nil {
		return carrier.CreatedShipment{}, carrierhttp.Unavailable("dpd_pl: the booking's handle %q is unreadable: %v", req.Booking.Handle, err)
	}
	if b.PackageID == "" || len(b.Waybills) != len(req.Parcels) || slices.Contains(b.Waybills, "") {
		return carrier.CreatedShipment{}, carrierhttp.Unavailable("dpd_pl: DPD's answer to the booking did not name a waybill for each of its %d parcels (%s), "+
			"and DPD Poland's API has no operation that reads a package's waybills back", len(req.Parcels), req.Booking.Handle)
	}
	return b.created(), nil
}

// packageOf is req as DPD's package, refusing first what DPD is known to
// refuse: too many parcels, a parcel over the weight limit, a COD currency
// DPD does not know, a label format it does not print, PICKUP without a
// point, a point on CLASSIC.
func packageOf(req carrier.ShipmentRequest, s carrier.Settings, fid int64) (packageRequest, error) {
	var problems []*carrier.Rejection
	if n := len(req.Parcels); n == 0 || n > MaxParcels {
		problems = append(problems, carrier.Reject("parcels", "DPD Poland takes 1 to %d parcels per shipment, got %d", MaxParcels, n))
	}
	if f := s.LabelFormat(req.LabelFormat); labelFormats[f] == "" {
		problems = append(problems, carrier.Reject("label_format", "DPD Poland prints pdf, zpl and epl labels, not %q", f))
	}
	pkg := packageRequest{
		PayerType: "SENDER",
		Receiver:  addressOf(req.Recipient, req.Destination),
		Reference: req.Reference,
		Sender:    addressOf(req.Sender, req.Origin),
	}
	pkg.Sender.Fid = fid
	for i, p := range req.Parcels {
		kg := p.WeightKG()
		if kg <= 0 || kg > maxParcelKG {
			problems = append(problems, carrier.Reject(fmt.Sprintf("parcels.%d.weight_amount", i),
				"DPD Poland takes parcels of more than 0 and at most %.1f kg, this one weighs %.3f kg", maxParcelKG, kg))
		}
		l, w, h := p.DimensionsCM()
		pkg.Parcels = append(pkg.Parcels, parcelRequest{
			Reference: req.Reference,
			Weight:    strconv.FormatFloat(math.Round(kg*100)/100, 'f', -1, 64),
			SizeX:     cm(l), SizeY: cm(w), SizeZ: cm(h),
		})
	}
	var svc services
	if req.COD != nil {
		if !currencies[req.COD.Currency] {
			problems = append(problems, carrier.Reject("cash_on_delivery_currency", "DPD Poland collects cash on delivery in PLN, EUR, USD, CHF, SEK, NOK, CZK, RON, HUF, HRK, BGN, DKK, GBP, RSD, RUB or TRY, not %q", req.COD.Currency))
		}
		svc.COD = &cod{Amount: strconv.FormatFloat(req.COD.Float(), 'f', carrier.CurrencyDigits(req.COD.Currency), 64), Currency: req.COD.Currency}
	}
	point := s.PickupPoint(req.PickupPoint)
	switch product(s, req.ProductType) {
	case ProductPickup:
		if point == "" {
			problems = append(problems, carrier.Reject(carrier.PickupPointField, "DPD Pickup delivers only to a pickup point: name its id"))
		}
		svc.DPDPickup = &dpdPickup{Pudo: point}
	case ProductClassic:
		if strings.TrimSpace(req.PickupPoint) != "" {
			problems = append(problems, carrier.Reject(carrier.PickupPointField, "DPD Classic delivers to the address and takes no pickup point"))
		}
	default:
		problems = append(problems, carrier.Reject("product_type", "DPD Poland has no product %q (CLASSIC, PICKUP)", req.ProductType))
	}
	if svc.COD != nil || svc.DPDPickup != nil {
		pkg.Services = &svc
	}
	return pkg, carrier.RejectionOf(problems)
}

// addressOf is a contact at an address as DPD's packageAddressOpenUMLFeV1:
// the street line as Poles write it, the postal code in digits (DPD takes
// "02274", not "02-274" [C]).
func addressOf(c carrier.Contact, a carrier.Address) address {
	no := a.HouseNumber
	if a.ApartmentNumber != "" {
		no += "/" + a.ApartmentNumber
	}
	return address{
		Address:     strings.TrimSpace(a.StreetName + " " + no),
		City:        a.CityName,
		Company:     c.CompanyName,
		CountryCode: strings.ToUpper(a.CountryCode),
		Email:       c.Email,
		Name:        strings.TrimSpace(c.FirstName + " " + c.LastName),
		Phone:       c.Phone,
		PostalCode:  postalDigits(a.PostalCode),
	}
}

// postalDigits drops the dash and spaces of a postal code; letters stay
// (foreign codes have them).
func postalDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToUpper(r)
	}, s)
}

// cm is a size in whole centimetres, "" for none.
func cm(v float64) string {
	if v <= 0 {
		return ""
	}
	return strconv.Itoa(int(math.Ceil(v)))
}

// CancelShipment is refused: dpdservices has no cancel operation (the WSDL's
// portType has none), so a booked parcel is cancelled through DPD Poland's
// customer service, or by not handing it over.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	return carrier.Reject("", "DPD Poland's API cannot cancel a booked shipment: ask DPD Polska's customer service to cancel it, or do not hand the parcels over")
}
