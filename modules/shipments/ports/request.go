package ports

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// createRequest is the body of POST /v1/shipments. Parcels stay raw so each
// one is decoded on its own and a wrong type names parcels.N.field.
type createRequest struct {
	ShippingChannelID      string          `json:"shipping_channel_id" validate:"required"`
	LabelFormat            string          `json:"label_format"`
	ReferenceNumber        string          `json:"reference_number" validate:"max=255"`
	ShippingDate           string          `json:"shipping_date"`
	SenderContact          *contactRequest `json:"sender_contact" validate:"required"`
	RecipientContact       *contactRequest `json:"recipient_contact" validate:"required"`
	OriginAddress          *addressRequest `json:"origin_address" validate:"required"`
	DestinationAddress     *addressRequest `json:"destination_address" validate:"required"`
	Parcels                json.RawMessage `json:"parcels"`
	Parcel                 json.RawMessage `json:"parcel"`
	CashOnDeliveryAmount   *float64        `json:"cash_on_delivery_amount"`
	CashOnDeliveryCurrency *string         `json:"cash_on_delivery_currency"`
	Metadata               map[string]any  `json:"metadata"`
	EnableTracking         *bool           `json:"enable_tracking"`
	AdditionalServices     []string        `json:"additional_services" validate:"omitempty,max=20,dive,max=100"`
}

type contactRequest struct {
	CompanyName  string `json:"company_name" validate:"max=255"`
	FirstName    string `json:"first_name" validate:"max=255"`
	LastName     string `json:"last_name" validate:"max=255"`
	EmailAddress string `json:"email_address" validate:"required,email,max=255"`
	PhoneNumber  string `json:"phone_number" validate:"required,max=50"`
}

type addressRequest struct {
	StreetName      string `json:"street_name" validate:"required,max=255"`
	HouseNumber     string `json:"house_number" validate:"required,max=50"`
	ApartmentNumber string `json:"apartment_number" validate:"max=50"`
	CityName        string `json:"city_name" validate:"required,max=255"`
	PostalCode      string `json:"postal_code" validate:"required,max=20"`
	CountryCode     string `json:"country_code" validate:"required,iso3166_1_alpha2"`
}

type parcelRequest struct {
	ParcelType      string  `json:"parcel_type" validate:"oneof=package envelope pallet"`
	LengthDimension float64 `json:"length_dimension" validate:"gt=0,lte=10000"`
	WidthDimension  float64 `json:"width_dimension" validate:"gt=0,lte=10000"`
	HeightDimension float64 `json:"height_dimension" validate:"gt=0,lte=10000"`
	DimensionUnit   string  `json:"dimension_unit" validate:"oneof=CM MM IN"`
	WeightAmount    float64 `json:"weight_amount" validate:"gt=0,lte=100000"`
	WeightUnit      string  `json:"weight_unit" validate:"oneof=KG G LB"`
}

// checkedShipment is a request that passed every check of its own.
type checkedShipment struct {
	state domain.State
	cod   *carrier.Money
}

// check validates every field at once and returns the shipment to create.
// today is the service clock's date: shipping dates before it are refused.
func (req *createRequest) check(today time.Time) (checkedShipment, error) {
	normalise(req)
	errs := httpapi.Validate(req)
	if req.SenderContact != nil && req.SenderContact.CompanyName == "" &&
		(req.SenderContact.FirstName == "" || req.SenderContact.LastName == "") {
		errs.Add("sender_contact.company_name", "is required unless first_name and last_name are given")
	}
	if req.RecipientContact != nil {
		if req.RecipientContact.FirstName == "" {
			errs.Add("recipient_contact.first_name", "is required")
		}
		if req.RecipientContact.LastName == "" {
			errs.Add("recipient_contact.last_name", "is required")
		}
	}
	if f := strings.ToLower(req.LabelFormat); f != "" && f != "pdf" && f != "zpl" && f != "epl" {
		errs.Add("label_format", "must be one of: pdf, zpl, epl")
	}
	parcels := decodeParcels(req.Parcels, req.Parcel, errs)
	cod := checkCOD(req.CashOnDeliveryAmount, req.CashOnDeliveryCurrency, errs)
	date := today.Format(time.DateOnly)
	if req.ShippingDate != "" {
		d, err := time.Parse(time.DateOnly, req.ShippingDate)
		switch {
		case err != nil:
			errs.Add("shipping_date", "must be a date like 2026-11-21")
		case d.Before(today.Truncate(24 * time.Hour)):
			errs.Add("shipping_date", "must be today or later")
		default:
			date = d.Format(time.DateOnly)
		}
	}
	if err := errs.Err(); err != nil {
		return checkedShipment{}, err
	}
	enable := true
	if req.EnableTracking != nil {
		enable = *req.EnableTracking
	}
	return checkedShipment{cod: cod, state: domain.State{
		ChannelID: req.ShippingChannelID, LabelFormat: strings.ToLower(req.LabelFormat), ReferenceNumber: req.ReferenceNumber,
		ShippingDate: date, Sender: domain.Contact(*req.SenderContact), Recipient: domain.Contact(*req.RecipientContact),
		Origin: domain.Address(*req.OriginAddress), Destination: domain.Address(*req.DestinationAddress),
		Parcels: parcels, Metadata: req.Metadata, EnableTracking: enable, AdditionalServices: req.AdditionalServices,
	}}, nil
}

// normalise trims and upper-cases what users type loosely.
func normalise(req *createRequest) {
	for _, a := range []*addressRequest{req.OriginAddress, req.DestinationAddress} {
		if a != nil {
			a.CountryCode = strings.ToUpper(strings.TrimSpace(a.CountryCode))
			a.PostalCode = strings.TrimSpace(a.PostalCode)
		}
	}
	for _, c := range []*contactRequest{req.SenderContact, req.RecipientContact} {
		if c != nil {
			c.EmailAddress = strings.TrimSpace(c.EmailAddress)
		}
	}
	if req.CashOnDeliveryCurrency != nil {
		up := strings.ToUpper(strings.TrimSpace(*req.CashOnDeliveryCurrency))
		req.CashOnDeliveryCurrency = &up
	}
}

// decodeParcels reads "parcels" (an array) or "parcel" (one object).
func decodeParcels(many, one json.RawMessage, errs fault.FieldErrors) []domain.Parcel {
	var raws []json.RawMessage
	prefix := "parcels"
	switch {
	case len(many) > 0 && string(many) != "null":
		if err := json.Unmarshal(many, &raws); err != nil {
			errs.Add("parcels", "must be an array of parcel objects")
			return nil
		}
		if len(raws) == 0 {
			errs.Add("parcels", "must have at least 1 item")
		}
		// No provider takes more, so more is refused before the channel is
		// known; each provider's own limit is checked with its channel.
		if len(raws) > carrier.MaxParcelsPerShipment {
			errs.Add("parcels", fmt.Sprintf("must have at most %d items, the most any provider takes per shipment (see max_parcels_per_shipment in GET /v1/providers)", carrier.MaxParcelsPerShipment))
			return nil
		}
	case len(one) > 0 && string(one) != "null":
		raws = []json.RawMessage{one}
		prefix = "parcel"
	default:
		errs.Add("parcels", "is required (an array of parcels, or one object as parcel)")
		return nil
	}
	parcels := make([]domain.Parcel, 0, len(raws))
	for i, raw := range raws {
		path := fmt.Sprintf("%s.%d", prefix, i)
		if prefix == "parcel" {
			path = "parcel"
		}
		p, ok := decodeParcel(raw, path, errs)
		if ok {
			parcels = append(parcels, p)
		}
	}
	return parcels
}

func decodeParcel(raw json.RawMessage, path string, errs fault.FieldErrors) (domain.Parcel, bool) {
	var pr parcelRequest
	if err := json.Unmarshal(raw, &pr); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			errs.Add(path+"."+typeErr.Field, "has the wrong type")
		} else {
			errs.Add(path, "must be a parcel object")
		}
		return domain.Parcel{}, false
	}
	if pr.ParcelType == "" {
		pr.ParcelType = "package"
	}
	pr.ParcelType = strings.ToLower(pr.ParcelType)
	pr.DimensionUnit = strings.ToUpper(pr.DimensionUnit)
	if pr.DimensionUnit == "" {
		pr.DimensionUnit = "CM"
	}
	pr.WeightUnit = strings.ToUpper(pr.WeightUnit)
	if pr.WeightUnit == "" {
		pr.WeightUnit = "KG"
	}
	errs.Merge(path+".", httpapi.Validate(pr))
	return domain.Parcel{ParcelType: pr.ParcelType, LengthDimension: pr.LengthDimension, WidthDimension: pr.WidthDimension,
		HeightDimension: pr.HeightDimension, DimensionUnit: pr.DimensionUnit, WeightAmount: pr.WeightAmount, WeightUnit: pr.WeightUnit}, true
}

// checkCOD: both or neither, amount > 0 with at most the currency's digits.
func checkCOD(amount *float64, currency *string, errs fault.FieldErrors) *carrier.Money {
	switch {
	case amount == nil && (currency == nil || *currency == ""):
		return nil
	case amount == nil:
		errs.Add("cash_on_delivery_amount", "is required with cash_on_delivery_currency")
		return nil
	case currency == nil || *currency == "":
		errs.Add("cash_on_delivery_currency", "is required with cash_on_delivery_amount")
		return nil
	}
	if !validCurrency(*currency) {
		errs.Add("cash_on_delivery_currency", "must be an ISO 4217 currency code")
		return nil
	}
	if *amount <= 0 {
		errs.Add("cash_on_delivery_amount", "must be greater than 0")
		return nil
	}
	m, err := carrier.MoneyFromFloat(*amount, *currency)
	if err != nil {
		errs.Add("cash_on_delivery_amount", err.Error())
		return nil
	}
	return &m
}

func validCurrency(c string) bool {
	type probe struct {
		C string `validate:"iso4217"`
	}
	return len(httpapi.Validate(probe{C: c})) == 0
}

// updateRequest is the body of PUT and PATCH: absent fields stay as they are.
type updateRequest struct {
	ReferenceNumber *string         `json:"reference_number" validate:"omitnil,max=255"`
	Metadata        json.RawMessage `json:"metadata"`
	EnableTracking  *bool           `json:"enable_tracking"`
}
