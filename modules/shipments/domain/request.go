package domain

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// Request is a shipment as a client asks for it, before its channel is
// known: what New makes a shipment of. Nil pointers and a nil Parcels were
// not given; field problems are named by the API's paths
// (sender_contact.email_address, parcels.1.weight_amount).
type Request struct {
	ChannelID       string
	LabelFormat     string // "" is the channel's default (carrier.Settings.LabelFormat)
	ReferenceNumber string
	ShippingDate    string // YYYY-MM-DD; "" is the day of creation
	Sender          *Contact
	Recipient       *Contact
	Origin          *Address
	Destination     *Address
	Parcels         []Parcel // TrackingNumber is the carrier's, never the client's: not read
	// CODAmount is the cash on delivery in the currency's major units, as
	// clients write money; New keeps it in minor units.
	CODAmount          *float64
	CODCurrency        *string
	Metadata           map[string]any
	EnableTracking     *bool // nil is true
	AdditionalServices []string
	// PickupPoint is the carrier's id of the point the recipient collects
	// from; "" for delivery to the address. New checks it against the
	// channel's product (carrier.ProviderInfo.CheckPickupPoint).
	PickupPoint string
}

// The bounds of a request's fields, in characters (items for
// maxAdditionalServices), and of a parcel's measures in its units.
const (
	maxText               = 255 // reference, names, email, street, city
	maxPhone              = 50
	maxHouseNumber        = 50
	maxPostalCode         = 20
	maxAdditionalServices = 20
	maxServiceLength      = 100
	maxPickupPoint        = 64 // the longest point id of a carrier we know (Allegro's) is 36
	maxDimension          = 10000
	maxWeight             = 100000
	// MaxShippingDaysAhead is how far ahead a shipment may be booked: a
	// shipping date later than today plus this is refused. Carriers book
	// days, not months, ahead (DHL Express's planned shipping date is at
	// most 10 days ahead), and a date a year away is a typo.
	MaxShippingDaysAhead = 30
)

// The least a parcel may measure in each unit: a gram and a millimetre (a
// carrier rounds less to 0), written in the unit.
var (
	minWeight    = map[string]float64{"KG": 0.001, "G": 1, "LB": 0.0025}
	minDimension = map[string]float64{"CM": 0.1, "MM": 1, "IN": 0.04}
)

// Check names every problem the request has on its own, its channel
// unknown, as a validation fault; nil when it has none. today is the
// service clock's now: a shipping date before its day is refused. New
// checks the same; Check is for callers that answer these problems before
// they look up the channel.
func (r Request) Check(today time.Time) error {
	_, err := r.checked(today)
	return err
}

// checked is the request with what clients write loosely made exact
// (codes in capitals, white space around codes and addresses dropped, the
// defaults filled in), or every problem.
func (r Request) checked(today time.Time) (checkedRequest, error) {
	errs := fault.FieldErrors{}
	c := checkedRequest{Request: r}
	if r.ChannelID == "" {
		errs.Add("shipping_channel_id", "is required")
	}
	name(errs, "reference_number", r.ReferenceNumber, maxText)
	c.Sender = checkContact(errs, "sender_contact", r.Sender)
	c.Recipient = checkContact(errs, "recipient_contact", r.Recipient)
	c.Origin = checkAddress(errs, "origin_address", r.Origin)
	c.Destination = checkAddress(errs, "destination_address", r.Destination)
	if n := len(r.AdditionalServices); n > maxAdditionalServices {
		errs.Add("additional_services", "must be at most "+strconv.Itoa(maxAdditionalServices))
	} else {
		for i, s := range r.AdditionalServices {
			name(errs, "additional_services."+strconv.Itoa(i), s, maxServiceLength)
		}
	}
	// Names: a sender may be a company, a recipient is a person.
	if s := c.Sender; s != nil && s.CompanyName == "" && (s.FirstName == "" || s.LastName == "") {
		errs.Add("sender_contact.company_name", "is required unless first_name and last_name are given")
	}
	if rc := c.Recipient; rc != nil {
		if rc.FirstName == "" {
			errs.Add("recipient_contact.first_name", "is required")
		}
		if rc.LastName == "" {
			errs.Add("recipient_contact.last_name", "is required")
		}
	}
	c.LabelFormat = strings.ToLower(r.LabelFormat)
	if c.LabelFormat != "" && !slices.Contains(labelFormats, c.LabelFormat) {
		errs.Add("label_format", "must be one of: "+strings.Join(labelFormats, ", "))
	}
	c.PickupPoint = strings.TrimSpace(r.PickupPoint)
	name(errs, carrier.PickupPointField, c.PickupPoint, maxPickupPoint)
	c.Parcels = checkParcels(errs, r.Parcels)
	c.cod = checkCOD(errs, r.CODAmount, r.CODCurrency)
	c.ShippingDate = today.Format(time.DateOnly)
	if r.ShippingDate != "" {
		d, err := time.Parse(time.DateOnly, r.ShippingDate)
		switch {
		case err != nil:
			errs.Add("shipping_date", "must be a date like 2026-11-21")
		case d.Before(today.Truncate(24 * time.Hour)):
			errs.Add("shipping_date", "must be today or later")
		case d.After(today.Truncate(24*time.Hour).AddDate(0, 0, MaxShippingDaysAhead)):
			errs.Add("shipping_date", "must be at most "+strconv.Itoa(MaxShippingDaysAhead)+" days after today")
		default:
			c.ShippingDate = d.Format(time.DateOnly)
		}
	}
	if p := carrier.MetadataProblem(r.Metadata); p != "" {
		errs.Add("metadata", p)
	}
	c.tracking = r.EnableTracking == nil || *r.EnableTracking
	return c, errs.Err()
}

// checkedRequest is a request that passed Check, made exact.
type checkedRequest struct {
	Request
	cod      *carrier.Money
	tracking bool
}

// labelFormats are the formats a shipment may ask for; its provider may
// print fewer (carrier.ProviderInfo.LabelFormats).
var labelFormats = []string{"pdf", "zpl", "epl"}

// maxLength adds the problem of a text longer than max characters.
func maxLength(errs fault.FieldErrors, path, s string, max int) bool {
	if utf8.RuneCountInString(s) > max {
		errs.Add(path, "must be at most "+strconv.Itoa(max)+" characters")
		return false
	}
	return true
}

// name adds the problem of an identifier, reference or name that breaks
// carrier.NameProblem's rule, else that of a long one.
func name(errs fault.FieldErrors, path, s string, max int) bool {
	if p := carrier.NameProblem(s); p != "" {
		errs.Add(path, p)
		return false
	}
	return maxLength(errs, path, s, max)
}

// text adds the problem of free text that breaks carrier.TextProblem's
// rule, else that of a long one.
func text(errs fault.FieldErrors, path, s string, max int) {
	if p := carrier.TextProblem(s); p != "" {
		errs.Add(path, p)
		return
	}
	maxLength(errs, path, s, max)
}

// required adds the problem of an empty text, else what check says of it.
func required(errs fault.FieldErrors, path, s string, max int, check func(fault.FieldErrors, string, string, int)) {
	if s == "" {
		errs.Add(path, "is required")
		return
	}
	check(errs, path, s, max)
}

// nameCheck is name as required's check.
func nameCheck(errs fault.FieldErrors, path, s string, max int) { name(errs, path, s, max) }

// checkContact checks a sender or recipient (names are the caller's: who
// must have which differs) and returns it with its email trimmed.
func checkContact(errs fault.FieldErrors, path string, c *Contact) *Contact {
	if c == nil {
		errs.Add(path, "is required")
		return nil
	}
	out := *c
	out.EmailAddress = strings.TrimSpace(c.EmailAddress)
	name(errs, path+".company_name", out.CompanyName, maxText)
	name(errs, path+".first_name", out.FirstName, maxText)
	name(errs, path+".last_name", out.LastName, maxText)
	switch p := carrier.NameProblem(out.EmailAddress); {
	case out.EmailAddress == "":
		errs.Add(path+".email_address", "is required")
	case p != "":
		errs.Add(path+".email_address", p)
	case !carrier.IsEmailAddress(out.EmailAddress):
		errs.Add(path+".email_address", "must be a valid email address")
	default:
		maxLength(errs, path+".email_address", out.EmailAddress, maxText)
	}
	required(errs, path+".phone_number", out.PhoneNumber, maxPhone, nameCheck)
	return &out
}

// checkAddress checks an address and returns it with its postal code
// trimmed and its country code trimmed and in capitals.
func checkAddress(errs fault.FieldErrors, path string, a *Address) *Address {
	if a == nil {
		errs.Add(path, "is required")
		return nil
	}
	out := *a
	out.PostalCode = strings.TrimSpace(a.PostalCode)
	out.CountryCode = strings.ToUpper(strings.TrimSpace(a.CountryCode))
	required(errs, path+".street_name", out.StreetName, maxText, text)
	required(errs, path+".house_number", out.HouseNumber, maxHouseNumber, nameCheck)
	name(errs, path+".apartment_number", out.ApartmentNumber, maxHouseNumber)
	required(errs, path+".city_name", out.CityName, maxText, text)
	required(errs, path+".postal_code", out.PostalCode, maxPostalCode, nameCheck)
	switch {
	case out.CountryCode == "":
		errs.Add(path+".country_code", "is required")
	case !carrier.IsCountryCode(out.CountryCode):
		errs.Add(path+".country_code", "must be an ISO 3166-1 alpha-2 country code")
	}
	return &out
}

// The values a parcel's type and units may take, the first the default.
var (
	parcelTypes    = []string{"package", "envelope", "pallet"}
	dimensionUnits = []string{"CM", "MM", "IN"}
	weightUnits    = []string{"KG", "G", "LB"}
)

// checkParcels checks the parcels' number and each parcel, and returns them
// with their types in lower case, their units in capitals and the defaults
// of those filled in.
func checkParcels(errs fault.FieldErrors, parcels []Parcel) []Parcel {
	switch n := len(parcels); {
	case parcels == nil:
		errs.Add("parcels", "is required (an array of parcels, or one object as parcel)")
		return nil
	case n == 0:
		errs.Add("parcels", "must have at least 1 item")
		return nil
	case n > carrier.MaxParcelsPerShipment:
		// No provider takes more, so more is refused before the channel is
		// known, as a whole; each provider's own limit is checked with its
		// channel.
		errs.Add("parcels", fmt.Sprintf("must have at most %d items, the most any provider takes per shipment (see max_parcels_per_shipment in GET /v1/providers)", carrier.MaxParcelsPerShipment))
		return nil
	}
	out := make([]Parcel, len(parcels))
	for i, p := range parcels {
		path := "parcels." + strconv.Itoa(i) + "."
		p.TrackingNumber = nil
		p.ParcelType = cmp.Or(strings.ToLower(p.ParcelType), parcelTypes[0])
		p.DimensionUnit = cmp.Or(strings.ToUpper(p.DimensionUnit), dimensionUnits[0])
		p.WeightUnit = cmp.Or(strings.ToUpper(p.WeightUnit), weightUnits[0])
		oneOf(errs, path+"parcel_type", p.ParcelType, parcelTypes)
		measure(errs, path+"length_dimension", p.LengthDimension, minDimension[p.DimensionUnit], p.DimensionUnit, maxDimension)
		measure(errs, path+"width_dimension", p.WidthDimension, minDimension[p.DimensionUnit], p.DimensionUnit, maxDimension)
		measure(errs, path+"height_dimension", p.HeightDimension, minDimension[p.DimensionUnit], p.DimensionUnit, maxDimension)
		oneOf(errs, path+"dimension_unit", p.DimensionUnit, dimensionUnits)
		measure(errs, path+"weight_amount", p.WeightAmount, minWeight[p.WeightUnit], p.WeightUnit, maxWeight)
		oneOf(errs, path+"weight_unit", p.WeightUnit, weightUnits)
		out[i] = p
	}
	return out
}

func oneOf(errs fault.FieldErrors, path, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		errs.Add(path, "must be one of: "+strings.Join(allowed, ", "))
	}
}

// measure checks 0 < v, min <= v (min 0: the unit is unknown, and named as
// such) and v <= max. The message past max is the one the API has always
// given (its validator's, for a rule it had no text for).
func measure(errs fault.FieldErrors, path string, v, min float64, unit string, max float64) {
	switch {
	case !(v > 0):
		errs.Add(path, "must be greater than 0")
	case v < min:
		errs.Add(path, "must be at least "+strconv.FormatFloat(min, 'f', -1, 64)+" "+unit+", the least a carrier measures")
	case v > max:
		errs.Add(path, "fails the lte rule")
	}
}

// checkCOD: both amount and currency or neither; a known currency, an
// amount above 0 with at most the currency's decimals. It returns the
// money, nil without cash on delivery or with a problem.
func checkCOD(errs fault.FieldErrors, amount *float64, currency *string) *carrier.Money {
	cur := ""
	if currency != nil {
		cur = strings.ToUpper(strings.TrimSpace(*currency))
	}
	switch {
	case amount == nil && cur == "":
		return nil
	case amount == nil:
		errs.Add("cash_on_delivery_amount", "is required with cash_on_delivery_currency")
		return nil
	case cur == "":
		errs.Add("cash_on_delivery_currency", "is required with cash_on_delivery_amount")
		return nil
	case !carrier.IsCurrencyCode(cur):
		errs.Add("cash_on_delivery_currency", "must be an ISO 4217 currency code")
		return nil
	case !carrier.IsCashCurrency(cur):
		errs.Add("cash_on_delivery_currency", "must be a currency a carrier can collect, not "+cur+" (ISO 4217's codes for no currency, testing, metals, units of account and funds are refused)")
		return nil
	case *amount <= 0:
		errs.Add("cash_on_delivery_amount", "must be greater than 0")
		return nil
	}
	m, err := carrier.MoneyFromFloat(*amount, cur)
	if err != nil {
		errs.Add("cash_on_delivery_amount", err.Error())
		return nil
	}
	return &m
}

// CheckEdit names the problems of an edit (a nil reference or metadata is
// left as it is), as Edit does; nil when it has none.
func CheckEdit(reference *string, metadata map[string]any) error {
	errs := fault.FieldErrors{}
	if reference != nil {
		name(errs, "reference_number", *reference, maxText)
	}
	if p := carrier.MetadataProblem(metadata); p != "" {
		errs.Add("metadata", p)
	}
	return errs.Err()
}
