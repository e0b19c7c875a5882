package dashboard

import (
	"strings"
	"time"
)

// The shipments and tracking parcels of the /v1 API, as far as the pages
// show them.

// apiShipmentSummary is a row of GET /v1/shipments.
type apiShipmentSummary struct {
	ID                 string    `json:"id"`
	ReferenceNumber    string    `json:"reference_number"`
	ShippingChannelID  string    `json:"shipping_channel_id"`
	ProviderShipmentID *string   `json:"provider_shipment_id"`
	Status             string    `json:"status"`
	TotalPrice         *float64  `json:"total_price"`
	Currency           *string   `json:"currency"`
	CreatedAt          time.Time `json:"created_at"`
}

// apiShipment is GET /v1/shipments/{id}: the row and the rest.
type apiShipment struct {
	apiShipmentSummary
	Provider           string             `json:"provider"`
	ProductType        string             `json:"product_type"`
	IsSuccessful       *bool              `json:"is_successful"`
	HasLabel           bool               `json:"has_label"`
	LabelFormat        string             `json:"label_format"`
	ShippingDate       string             `json:"shipping_date"`
	SenderContact      apiContact         `json:"sender_contact"`
	RecipientContact   apiContact         `json:"recipient_contact"`
	OriginAddress      apiAddress         `json:"origin_address"`
	DestinationAddress apiAddress         `json:"destination_address"`
	Parcels            []apiParcel        `json:"parcels"`
	CashOnDelivery     *apiCashOnDelivery `json:"cash_on_delivery"`
	EnableTracking     bool               `json:"enable_tracking"`
	AdditionalServices []string           `json:"additional_services"`
	Errors             []apiCarrierError  `json:"errors"`
	TrackingParcelIDs  []string           `json:"tracking_parcel_ids"`
	UpdatedAt          time.Time          `json:"updated_at"`
}

type apiContact struct {
	CompanyName  string `json:"company_name"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
	PhoneNumber  string `json:"phone_number"`
}

// Name is the contact's person, or empty.
func (c apiContact) Name() string {
	return strings.TrimSpace(c.FirstName + " " + c.LastName)
}

type apiAddress struct {
	StreetName      string `json:"street_name"`
	HouseNumber     string `json:"house_number"`
	ApartmentNumber string `json:"apartment_number"`
	CityName        string `json:"city_name"`
	PostalCode      string `json:"postal_code"`
	CountryCode     string `json:"country_code"`
}

// Street is the street line: "Dlouhá 12/3".
func (a apiAddress) Street() string {
	s := strings.TrimSpace(a.StreetName + " " + a.HouseNumber)
	if a.ApartmentNumber != "" {
		s += "/" + a.ApartmentNumber
	}
	return s
}

// City is the city line: "60200 Brno, CZ".
func (a apiAddress) City() string {
	s := strings.TrimSpace(a.PostalCode + " " + a.CityName)
	if a.CountryCode != "" {
		s += ", " + a.CountryCode
	}
	return s
}

type apiParcel struct {
	ParcelType      string  `json:"parcel_type"`
	LengthDimension float64 `json:"length_dimension"`
	WidthDimension  float64 `json:"width_dimension"`
	HeightDimension float64 `json:"height_dimension"`
	DimensionUnit   string  `json:"dimension_unit"`
	WeightAmount    float64 `json:"weight_amount"`
	WeightUnit      string  `json:"weight_unit"`
	TrackingNumber  *string `json:"tracking_number"`
}

type apiCashOnDelivery struct {
	Amount      float64    `json:"amount"`
	Currency    string     `json:"currency"`
	CollectedAt *time.Time `json:"collected_at"`
}

// Shown is the amount with its currency: "1250.50 CZK".
func (c apiCashOnDelivery) Shown() string { return money(c.Amount, c.Currency) }

// apiCarrierError is what the carrier said against a shipment, about one of
// its fields or the whole.
type apiCarrierError struct {
	Field   *string `json:"field"`
	Message string  `json:"message"`
}

// apiTrackingParcel is GET /v1/tracking-parcels/{id}, and a row of the list.
type apiTrackingParcel struct {
	ID             string            `json:"id"`
	TrackingNumber string            `json:"tracking_number"`
	Status         string            `json:"status"`
	ShipmentID     *string           `json:"shipment_id"`
	ChecksDone     int               `json:"checks_done"`
	LastCheckedAt  *time.Time        `json:"last_checked_at"`
	NextCheckAt    *time.Time        `json:"next_check_at"`
	LastCheckError *string           `json:"last_check_error"`
	CODCollectedAt *time.Time        `json:"cod_collected_at"`
	StatusUpdates  []apiStatusUpdate `json:"status_updates"`
}

// apiStatusUpdate is one event the carrier reported for a tracking parcel.
type apiStatusUpdate struct {
	Status      *string   `json:"status"` // nil when no shipd status maps the carrier's
	Location    string    `json:"location"`
	Description string    `json:"description"`
	Timestamp   time.Time `json:"timestamp"`
	CarrierCode string    `json:"carrier_code"`
}
