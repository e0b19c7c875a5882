package ports

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// The request bodies carry what the domain checks (domain.Request); the
// port only reads them. A body whose shape is wrong somewhere is answered
// with that and the domain's verdict on the rest (httpapi.Refusal).

// createRequest is the body of POST /v1/shipments. Parcels stay raw so each
// one is decoded on its own and a wrong type names parcels.N.field; their
// shape is still declared, so that Decode refuses a parcel's unknown member.
type createRequest struct {
	ShippingChannelID      string                       `json:"shipping_channel_id"`
	LabelFormat            string                       `json:"label_format"`
	ReferenceNumber        string                       `json:"reference_number"`
	ShippingDate           string                       `json:"shipping_date"`
	SenderContact          *contactRequest              `json:"sender_contact"`
	RecipientContact       *contactRequest              `json:"recipient_contact"`
	OriginAddress          *addressRequest              `json:"origin_address"`
	DestinationAddress     *addressRequest              `json:"destination_address"`
	Parcels                httpapi.Raw[[]parcelRequest] `json:"parcels"`
	Parcel                 httpapi.Raw[parcelRequest]   `json:"parcel"`
	CashOnDeliveryAmount   *float64                     `json:"cash_on_delivery_amount"`
	CashOnDeliveryCurrency *string                      `json:"cash_on_delivery_currency"`
	Metadata               map[string]any               `json:"metadata"`
	EnableTracking         *bool                        `json:"enable_tracking"`
	AdditionalServices     []string                     `json:"additional_services"`
	PickupPointID          string                       `json:"pickup_point_id"`
}

type contactRequest struct {
	CompanyName  string `json:"company_name"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
	PhoneNumber  string `json:"phone_number"`
}

type addressRequest struct {
	StreetName      string `json:"street_name"`
	HouseNumber     string `json:"house_number"`
	ApartmentNumber string `json:"apartment_number"`
	CityName        string `json:"city_name"`
	PostalCode      string `json:"postal_code"`
	CountryCode     string `json:"country_code"`
}

type parcelRequest struct {
	ParcelType      string  `json:"parcel_type"`
	LengthDimension float64 `json:"length_dimension"`
	WidthDimension  float64 `json:"width_dimension"`
	HeightDimension float64 `json:"height_dimension"`
	DimensionUnit   string  `json:"dimension_unit"`
	WeightAmount    float64 `json:"weight_amount"`
	WeightUnit      string  `json:"weight_unit"`
}

// decoded is a create body read into the domain's terms.
type decoded struct {
	request domain.Request
	shape   fault.FieldErrors // what could not be read
	unread  []string          // parcels not read, by their paths in the body (placeholders in request)
	single  bool              // one parcel sent as "parcel": the domain's parcels.0 is parcel
}

// request reads the body into the domain's request.
func (req *createRequest) request() decoded {
	d := decoded{shape: fault.FieldErrors{}, request: domain.Request{
		ChannelID: req.ShippingChannelID, LabelFormat: req.LabelFormat, ReferenceNumber: req.ReferenceNumber,
		ShippingDate: req.ShippingDate, CODAmount: req.CashOnDeliveryAmount, CODCurrency: req.CashOnDeliveryCurrency,
		Metadata: req.Metadata, EnableTracking: req.EnableTracking, AdditionalServices: req.AdditionalServices,
		PickupPoint: req.PickupPointID,
	}}
	if c := req.SenderContact; c != nil {
		d.request.Sender = &domain.Contact{CompanyName: c.CompanyName, FirstName: c.FirstName, LastName: c.LastName, EmailAddress: c.EmailAddress, PhoneNumber: c.PhoneNumber}
	}
	if c := req.RecipientContact; c != nil {
		d.request.Recipient = &domain.Contact{CompanyName: c.CompanyName, FirstName: c.FirstName, LastName: c.LastName, EmailAddress: c.EmailAddress, PhoneNumber: c.PhoneNumber}
	}
	d.request.Origin = req.OriginAddress.address()
	d.request.Destination = req.DestinationAddress.address()
	d.readParcels(json.RawMessage(req.Parcels), json.RawMessage(req.Parcel))
	return d
}

func (a *addressRequest) address() *domain.Address {
	if a == nil {
		return nil
	}
	return &domain.Address{StreetName: a.StreetName, HouseNumber: a.HouseNumber, ApartmentNumber: a.ApartmentNumber,
		CityName: a.CityName, PostalCode: a.PostalCode, CountryCode: a.CountryCode}
}

// readParcels reads "parcels" (an array) or else "parcel" (one object);
// neither leaves the domain's parcels nil (not given). A parcel that cannot
// be read holds its place with a zero parcel, so the others keep their
// index in problems' paths.
func (d *decoded) readParcels(many, one json.RawMessage) {
	var raws []json.RawMessage
	switch {
	case len(many) > 0 && string(many) != "null":
		if err := json.Unmarshal(many, &raws); err != nil {
			d.shape.Add("parcels", "must be an array of parcel objects")
			return
		}
		// Past the most any provider takes the parcels are refused as a
		// whole (the domain's rule): their items are not read.
		if len(raws) > carrier.MaxParcelsPerShipment {
			d.request.Parcels = make([]domain.Parcel, len(raws))
			return
		}
	case len(one) > 0 && string(one) != "null":
		raws = []json.RawMessage{one}
		d.single = true
	default:
		return
	}
	d.request.Parcels = make([]domain.Parcel, len(raws))
	for i, raw := range raws {
		path := d.parcelPath(i)
		var pr parcelRequest
		if err := json.Unmarshal(raw, &pr); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) && typeErr.Field != "" {
				d.shape.Add(path+"."+typeErr.Field, "has the wrong type")
			} else {
				d.shape.Add(path, "must be a parcel object")
			}
			d.unread = append(d.unread, path)
			continue
		}
		d.request.Parcels[i] = domain.Parcel{ParcelType: pr.ParcelType, LengthDimension: pr.LengthDimension, WidthDimension: pr.WidthDimension,
			HeightDimension: pr.HeightDimension, DimensionUnit: pr.DimensionUnit, WeightAmount: pr.WeightAmount, WeightUnit: pr.WeightUnit}
	}
}

// parcelPath is where the body holds parcel i.
func (d *decoded) parcelPath(i int) string {
	if d.single {
		return "parcel"
	}
	return "parcels." + strconv.Itoa(i)
}

// answer puts err (the domain's, through the app, or nil) in the body's
// terms: a single parcel's problems are named under parcel, not parcels.0.
func (d *decoded) answer(err error) error {
	fe, ok := fault.As(err)
	if !d.single || !ok || fe.Kind != fault.KindValidation {
		return err
	}
	fields := make(map[string][]string, len(fe.Fields))
	for path, msgs := range fe.Fields {
		if rest, found := strings.CutPrefix(path, "parcels.0"); found && (rest == "" || rest[0] == '.') {
			path = "parcel" + rest
		}
		fields[path] = msgs
	}
	return fault.Fields(fields)
}

// updateRequest is the body of PUT and PATCH: absent fields stay as they are.
type updateRequest struct {
	ReferenceNumber *string         `json:"reference_number"`
	Metadata        json.RawMessage `json:"metadata"`
	EnableTracking  *bool           `json:"enable_tracking"`
}
