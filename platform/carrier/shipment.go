package carrier

import (
	"context"
	"errors"
	"time"
)

// Shipper is the part of the port that makes shipments. Every provider that
// creates shipments implements it.
type Shipper interface {
	// CreateShipment books a shipment of N parcels. The answer has one
	// tracking number per parcel, in parcel order. A carrier that refuses
	// the request returns *Rejection (or *Rejections); one that cannot be
	// reached returns an error wrapping ErrUnavailable.
	CreateShipment(ctx context.Context, settings Settings, req ShipmentRequest) (CreatedShipment, error)
	// Labels returns the labels of a created shipment in format, one per
	// parcel in parcel order (or one file holding all parcels when the
	// carrier only gives that).
	Labels(ctx context.Context, settings Settings, ref ShipmentRef, format string) ([]Label, error)
	// CancelShipment cancels a created shipment while the carrier allows it;
	// a carrier that no longer allows it returns *Rejection. A shipment the
	// carrier has cancelled already (an earlier call worked, and its answer
	// or its record was lost) returns ErrAlreadyCancelled, so a retried
	// cancel is not reported as a failure.
	CancelShipment(ctx context.Context, settings Settings, ref ShipmentRef) error
}

// ErrAlreadyCancelled is a carrier saying the shipment is cancelled already.
var ErrAlreadyCancelled = errors.New("the carrier has already cancelled this shipment")

// Address is a postal address: the one type of the carrier port, of the
// shipments module's domain and of its published records (which alias it),
// so its JSON names are the API's and stored events' (testdata/events of
// modules/shipments/contract hold them fixed).
type Address struct {
	StreetName      string `json:"street_name"`
	HouseNumber     string `json:"house_number"`
	ApartmentNumber string `json:"apartment_number"`
	CityName        string `json:"city_name"`
	PostalCode      string `json:"postal_code"`
	CountryCode     string `json:"country_code"` // ISO 3166-1 alpha-2
}

// Contact is a sender or recipient.
type Contact struct {
	CompanyName string
	FirstName   string
	LastName    string
	Email       string
	Phone       string
}

// Parcel is one box of a shipment, in the units the client gave.
type Parcel struct {
	Type          string // package, envelope, pallet
	Length        float64
	Width         float64
	Height        float64
	DimensionUnit string // CM, MM, IN
	Weight        float64
	WeightUnit    string // KG, G, LB
}

// WeightKG returns the parcel's weight in kilograms.
func (p Parcel) WeightKG() float64 {
	switch p.WeightUnit {
	case "G":
		return p.Weight / 1000
	case "LB":
		return p.Weight * 0.45359237
	default:
		return p.Weight
	}
}

// DimensionsCM returns length, width and height in centimetres.
func (p Parcel) DimensionsCM() (l, w, h float64) {
	f := 1.0
	switch p.DimensionUnit {
	case "MM":
		f = 0.1
	case "IN":
		f = 2.54
	}
	return p.Length * f, p.Width * f, p.Height * f
}

// ShipmentRequest is what a carrier is asked to book.
type ShipmentRequest struct {
	Reference    string
	ProductType  string // already switched to the COD product when COD is set
	LabelFormat  string // pdf, zpl, epl
	ShippingDate time.Time
	Sender       Contact
	Recipient    Contact
	Origin       Address
	Destination  Address
	Parcels      []Parcel
	COD          *Money
	// PickupPoint is the carrier's id of the point the recipient collects
	// from (a parcel locker, a parcel shop), as the shipment named it;
	// empty for delivery to the address. The shipments module has checked
	// it against the product's PickupPointUse; adapters apply
	// Settings.PickupPoint, which falls back to the channel's default.
	PickupPoint string
	// Booking lets a retried booking resume the carrier's (ADR 0038).
	Booking Booking
}

// CreatedShipment is the carrier's answer to a booking.
type CreatedShipment struct {
	ProviderShipmentID string
	TrackingNumbers    []string // one per parcel, in parcel order
	// Price is what the carrier charges, nil when its answer names none
	// (never a made-up zero).
	Price *Money
	// Labels, when the carrier returns them with the booking; otherwise
	// they are fetched with Labels.
	Labels []Label
}

// ShipmentRef names a created shipment to its carrier.
type ShipmentRef struct {
	ProviderShipmentID string
	TrackingNumbers    []string
}

// Label is a label file as the carrier gave it.
type Label struct {
	Format string // pdf, zpl, epl
	Data   []byte
}

// Rejections is a carrier refusing a request for several reasons at once.
type Rejections []*Rejection

func (r Rejections) Error() string {
	if len(r) == 0 {
		return "rejected"
	}
	msg := r[0].Error()
	for _, x := range r[1:] {
		msg += "; " + x.Error()
	}
	return msg
}
