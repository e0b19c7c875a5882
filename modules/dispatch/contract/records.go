package contract

import (
	"time"

	"shipd/platform/carrier"
)

// Address is a postal address, the carrier port's type (as the shipments
// module's records alias it), so a pickup's address reads like a
// shipment's.
type Address = carrier.Address

// Contact is who the courier asks for: the shipments' contact shape.
type Contact struct {
	CompanyName  string `json:"company_name"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
	PhoneNumber  string `json:"phone_number"`
}

// ContactOf is c in the records' shape.
func ContactOf(c carrier.Contact) Contact {
	return Contact{CompanyName: c.CompanyName, FirstName: c.FirstName, LastName: c.LastName, EmailAddress: c.Email, PhoneNumber: c.Phone}
}

// Carrier is the contact in the carrier port's shape.
func (c Contact) Carrier() carrier.Contact {
	return carrier.Contact{CompanyName: c.CompanyName, FirstName: c.FirstName, LastName: c.LastName, Email: c.EmailAddress, Phone: c.PhoneNumber}
}

// ConfirmedWindow is what the carrier confirmed of a pickup's window; a
// member it did not confirm is null, and the requested one stands.
type ConfirmedWindow struct {
	Date       *string `json:"date"`
	ReadyFrom  *string `json:"ready_from"`
	ReadyUntil *string `json:"ready_until"`
}

// PickupSnapshot is a pickup as its events carry it (version 1), stored
// for good: its shape is kept in testdata/events.
type PickupSnapshot struct {
	ID                 string          `json:"id"`
	ShippingChannelID  string          `json:"shipping_channel_id"`
	Provider           string          `json:"provider"`
	Status             string          `json:"status"`
	Date               string          `json:"date"`
	ReadyFrom          string          `json:"ready_from"`
	ReadyUntil         string          `json:"ready_until"`
	Address            Address         `json:"address"`
	Contact            Contact         `json:"contact"`
	ShipmentIDs        []string        `json:"shipment_ids"`
	ParcelCount        int             `json:"parcel_count"`
	TotalWeightKG      float64         `json:"total_weight_kg"`
	Note               string          `json:"note"`
	ConfirmationNumber *string         `json:"confirmation_number"`
	Confirmed          ConfirmedWindow `json:"confirmed"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
	CancelledAt        *time.Time      `json:"cancelled_at"`
}

// Pickup is the public record of a pickup: the API's answer and the
// "pickup" of webhook payloads, built from the snapshot.
type Pickup PickupSnapshot

// Record is the public record the snapshot shows.
func (s PickupSnapshot) Record() Pickup { return Pickup(s) }

// ManifestSnapshot is a manifest as its events carry it (version 1).
// Document says who made its document (carrier or shipd); the document
// itself is GET /v1/manifests/{id}/document.
type ManifestSnapshot struct {
	ID                string    `json:"id"`
	ShippingChannelID string    `json:"shipping_channel_id"`
	Provider          string    `json:"provider"`
	Status            string    `json:"status"`
	Date              string    `json:"date"`
	ShipmentIDs       []string  `json:"shipment_ids"`
	ShipmentCount     int       `json:"shipment_count"`
	ParcelCount       int       `json:"parcel_count"`
	TotalWeightKG     float64   `json:"total_weight_kg"`
	SenderContact     Contact   `json:"sender_contact"`
	OriginAddress     Address   `json:"origin_address"`
	Document          string    `json:"document"`
	CarrierReference  *string   `json:"carrier_reference"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

// Manifest is the public record of a manifest.
type Manifest ManifestSnapshot

// Record is the public record the snapshot shows.
func (s ManifestSnapshot) Record() Manifest { return Manifest(s) }
