package domain

import (
	"time"

	"shipd/platform/carrier"
)

// Contact is a sender or recipient.
type Contact struct {
	CompanyName  string `json:"company_name"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
	PhoneNumber  string `json:"phone_number"`
}

// Address is a postal address, the carrier port's own: a shipment's
// addresses go to its carrier as they are.
type Address = carrier.Address

// Parcel is one box of the shipment; TrackingNumber is the carrier's once
// the shipment is created.
type Parcel struct {
	ParcelType      string  `json:"parcel_type"`
	LengthDimension float64 `json:"length_dimension"`
	WidthDimension  float64 `json:"width_dimension"`
	HeightDimension float64 `json:"height_dimension"`
	DimensionUnit   string  `json:"dimension_unit"`
	WeightAmount    float64 `json:"weight_amount"`
	WeightUnit      string  `json:"weight_unit"`
	TrackingNumber  *string `json:"tracking_number"`
}

// CashOnDelivery is money the carrier collects from the recipient, in the
// currency's minor units.
type CashOnDelivery struct {
	AmountMinor int64      `json:"amount_minor"`
	Currency    string     `json:"currency"`
	CollectedAt *time.Time `json:"collected_at"`
}

// Problem is one reason the carrier refused the shipment.
type Problem struct {
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Label is the merged label file of all parcels.
type Label struct {
	Format   string
	MIMEType string
	Data     []byte
}
