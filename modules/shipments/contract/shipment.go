// Package contract is the shipments module's published language: the
// shipment record and the events it publishes. The record is the events'
// snapshot, stored for good; the API answer and webhook payloads render it,
// so a change of its shape is a new event version (testdata/events, ADR 0030).
package contract

import (
	"encoding/json"
	"time"

	"shipd/platform/carrier"
)

// ShipmentSnapshot is a shipment as its events carry it (every shipment
// event, version 3: pickup_id and manifest_id added, null in version 2;
// version 2: pickup_point_id added, null in version 1): stored for good and read back by every later build, so
// its shape is kept in testdata/events and changes only with a new event
// version and an upcaster. TotalPrice and Currency are null until the
// carrier created the shipment, and stay null when its answer named no price
// (DHL Parcel DE, GLS, PPL, InPost without an offer).
type ShipmentSnapshot struct {
	ID                 string          `json:"id"`
	ReferenceNumber    string          `json:"reference_number"`
	ShippingChannelID  string          `json:"shipping_channel_id"`
	ProviderShipmentID *string         `json:"provider_shipment_id"`
	Status             string          `json:"status"`
	TotalPrice         *float64        `json:"total_price"`
	Currency           *string         `json:"currency"`
	Provider           string          `json:"provider"`
	ProductType        string          `json:"product_type"`
	IsSuccessful       *bool           `json:"is_successful"`
	HasLabel           bool            `json:"has_label"`
	LabelFormat        string          `json:"label_format"`
	ShippingDate       string          `json:"shipping_date"`
	SenderContact      Contact         `json:"sender_contact"`
	RecipientContact   Contact         `json:"recipient_contact"`
	OriginAddress      Address         `json:"origin_address"`
	DestinationAddress Address         `json:"destination_address"`
	Parcels            []Parcel        `json:"parcels"`
	CashOnDelivery     *CashOnDelivery `json:"cash_on_delivery"`
	Metadata           map[string]any  `json:"metadata"`
	EnableTracking     bool            `json:"enable_tracking"`
	AdditionalServices []string        `json:"additional_services"`
	PickupPointID      *string         `json:"pickup_point_id"` // since version 2
	PickupID           *string         `json:"pickup_id"`       // since version 3: the courier pickup collecting it
	ManifestID         *string         `json:"manifest_id"`     // since version 3: the manifest it was handed over on
	Errors             []Problem       `json:"errors"`
	TrackingParcelIDs  []string        `json:"tracking_parcel_ids"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
}

// Shipment is the public record of a shipment: the API's answer and the
// "shipment" of webhook payloads. It is built from the events' snapshot
// (Record), never the other way round: today it has the snapshot's shape;
// an API change the events should not carry gives it fields of its own and
// Record the mapping, and stored events stay as they are.
type Shipment ShipmentSnapshot

// Record is the public record the snapshot shows.
func (s ShipmentSnapshot) Record() Shipment { return Shipment(s) }

// UnmarshalJSON reads a snapshot as it was published. Events stored before
// missing prices were kept missing carry total_price 0 and currency "" for
// a carrier that named none; a price without a currency is no price, so
// they read as null and old events replayed (a projection rebuild, a
// webhook fan-out behind) tell no free shipment either.
func (s *ShipmentSnapshot) UnmarshalJSON(data []byte) error {
	type plain ShipmentSnapshot // without this method
	if err := json.Unmarshal(data, (*plain)(s)); err != nil {
		return err
	}
	if s.Currency == nil || *s.Currency == "" {
		s.TotalPrice, s.Currency = nil, nil
	}
	return nil
}

// Contact is a sender or recipient.
type Contact struct {
	CompanyName  string `json:"company_name"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
	PhoneNumber  string `json:"phone_number"`
}

// Address is a postal address. It is the carrier port's type (whose JSON
// names are these records'), so the shipment's addresses are one type from
// the request to the carrier; a change of its fields changes this published
// shape, and the shape tests of testdata/events would say so.
type Address = carrier.Address

// Parcel is one box, with its tracking number once the carrier gave one.
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

// CashOnDelivery is the amount the carrier collects, and when it did.
type CashOnDelivery struct {
	Amount      float64    `json:"amount"`
	Currency    string     `json:"currency"`
	CollectedAt *time.Time `json:"collected_at"`
}

// Problem is one reason the carrier refused the shipment.
type Problem struct {
	Field   *string `json:"field"`
	Message string  `json:"message"`
}

// Summary is the list item of a shipment.
type Summary struct {
	ID                 string    `json:"id"`
	ReferenceNumber    string    `json:"reference_number"`
	ShippingChannelID  string    `json:"shipping_channel_id"`
	ProviderShipmentID *string   `json:"provider_shipment_id"`
	Status             string    `json:"status"`
	TotalPrice         *float64  `json:"total_price"`
	Currency           *string   `json:"currency"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

// Summary returns the list item of the record.
func (s Shipment) Summary() Summary {
	return Summary{ID: s.ID, ReferenceNumber: s.ReferenceNumber, ShippingChannelID: s.ShippingChannelID,
		ProviderShipmentID: s.ProviderShipmentID, Status: s.Status, TotalPrice: s.TotalPrice, Currency: s.Currency,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}
