// Package domain is the shipment: parcels sent through a carrier, with their
// tracking numbers, label and lifecycle. Pure Go.
package domain

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// Stored is everything a shipment is, as a repository keeps it and the
// shipment's events show it.
type Stored struct {
	ID                 string          `json:"id"`
	AccountID          string          `json:"account_id"`
	ChannelID          string          `json:"shipping_channel_id"`
	Provider           string          `json:"provider"`
	ProductType        string          `json:"product_type"`
	LabelFormat        string          `json:"label_format"`
	ReferenceNumber    string          `json:"reference_number"`
	ShippingDate       string          `json:"shipping_date"` // YYYY-MM-DD
	Sender             Contact         `json:"sender_contact"`
	Recipient          Contact         `json:"recipient_contact"`
	Origin             Address         `json:"origin_address"`
	Destination        Address         `json:"destination_address"`
	Parcels            []Parcel        `json:"parcels"`
	COD                *CashOnDelivery `json:"cash_on_delivery"`
	Metadata           map[string]any  `json:"metadata"`
	EnableTracking     bool            `json:"enable_tracking"`
	AdditionalServices []string        `json:"additional_services"`
	PickupPoint        string          `json:"pickup_point_id"` // "" for delivery to the address
	Status             Status          `json:"status"`
	IsSuccessful       *bool           `json:"is_successful"` // nil while the carrier has not answered
	Errors             []Problem       `json:"errors"`
	ProviderShipmentID string          `json:"provider_shipment_id"`
	TotalPriceMinor    *int64          `json:"total_price_minor"` // nil while the carrier named no price; see Price
	Currency           string          `json:"currency"`
	HasLabel           bool            `json:"has_label"`
	// BookingHandle is the carrier's id of a booking it accepted and has
	// yet to finish (carrier.Booking.Handle): a retried booking resumes it.
	// Internal: no event shows it.
	BookingHandle string `json:"booking_handle,omitempty"`
	// LabelAttempts counts the failed tries to fetch and merge the label
	// of a shipment the carrier holds (ADR 0041); internal.
	LabelAttempts int `json:"label_attempts,omitempty"`
	// LabelGivenUp marks a shipment the carrier holds whose label could not
	// be had: created, without a label, its errors saying why, until a
	// client asks for the label again (RetryLabel).
	LabelGivenUp bool `json:"label_given_up,omitempty"`
	// PickupID and ManifestID are the courier pickup that collects the
	// shipment and the manifest it was handed over on, as the dispatch
	// module's events said them (dispatch.go); "" for none.
	PickupID          string   `json:"pickup_id,omitempty"`
	ManifestID        string   `json:"manifest_id,omitempty"`
	TrackingParcelIDs []string `json:"tracking_parcel_ids"`
	// Tracked is the latest news of each tracking parcel, by its id.
	Tracked   map[string]TrackedParcel `json:"tracked,omitempty"`
	Version   int                      `json:"version"`
	CreatedAt time.Time                `json:"created_at"`
	UpdatedAt time.Time                `json:"updated_at"`
}

// Price is what the carrier charges, nil when it named no price. States
// stored before the carriers' missing prices were kept as missing hold 0
// with currency "" for them; a price without a currency is no price, so
// those read as none too (migration 00009 rewrites them).
func (s Stored) Price() *carrier.Money {
	if s.TotalPriceMinor == nil || s.Currency == "" {
		return nil
	}
	return &carrier.Money{Minor: *s.TotalPriceMinor, Currency: s.Currency}
}

// Shipment is the module's aggregate: made by New, which enforces its rules,
// or by Restore in a repository; its state changes only through the methods
// below (Stored hands out a copy), and a label Booked recorded waits in it
// until the repository takes it (TakeNewLabel).
type Shipment struct {
	s        Stored
	newLabel *Label
	tracking *TrackingRequest // RequestTracking's, until the repository takes it
	// partsChange is what KeepLabelParts or DropLabelParts asked of the
	// repository, until it takes it.
	partsChange *LabelParts
}

// New makes a pending shipment of the account, under id, of what r asks,
// on a channel of provider whose settings are settings: it refuses what r
// has against it on its own (Check, at now), and then what the provider
// does not take (a label format it does not print, more parcels than its
// product takes, a parcel heavier than it takes, cash on delivery it does
// not carry, a pickup point its
// product does not use or none where it needs one), each as a validation
// fault naming the field. Cash on delivery moves the shipment to the
// product that carries it.
func New(id, accountID string, r Request, provider carrier.ProviderInfo, settings carrier.Settings, now time.Time) (*Shipment, error) {
	c, err := r.checked(now)
	if err != nil {
		return nil, err
	}
	errs := fault.FieldErrors{}
	format := settings.LabelFormat(c.LabelFormat)
	if !slices.Contains(provider.LabelFormats, format) {
		errs.Add("label_format", "provider "+provider.Code+" prints only: "+strings.Join(provider.LabelFormats, ", "))
	}
	product := productType(provider, settings)
	if problem := parcelCount(provider, product, len(c.Parcels)); problem != "" {
		errs.Add("parcels", problem)
	}
	parcelWeights(errs, provider, product, c.Parcels)
	if problem := provider.CheckPickupPoint(product, settings, c.PickupPoint); problem != "" {
		errs.Add(carrier.PickupPointField, problem)
	}
	var cod *CashOnDelivery
	if c.cod != nil {
		codProduct, problem := codProduct(provider, product)
		if problem != "" {
			errs.Add("cash_on_delivery_amount", problem)
		}
		product = codProduct
		cod = &CashOnDelivery{AmountMinor: c.cod.Minor, Currency: c.cod.Currency}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	metadata := maps.Clone(c.Metadata)
	if metadata == nil {
		metadata = map[string]any{}
	}
	services := slices.Clone(c.AdditionalServices)
	if services == nil {
		services = []string{}
	}
	return &Shipment{s: Stored{
		ID: id, AccountID: accountID, ChannelID: c.ChannelID, Provider: provider.Code, ProductType: product,
		LabelFormat: format, ReferenceNumber: c.ReferenceNumber, ShippingDate: c.ShippingDate,
		Sender: *c.Sender, Recipient: *c.Recipient, Origin: *c.Origin, Destination: *c.Destination,
		Parcels: c.Parcels, COD: cod, Metadata: metadata, EnableTracking: c.tracking, AdditionalServices: services,
		PickupPoint: c.PickupPoint,
		Status:      StatusPending, Errors: []Problem{}, TrackingParcelIDs: []string{},
		Version: 1, CreatedAt: now, UpdatedAt: now,
	}}, nil
}

// Restore rebuilds a shipment a repository kept.
func Restore(s Stored) *Shipment { return &Shipment{s: s} }

// Stored returns a copy of the shipment's state.
func (sh *Shipment) Stored() Stored {
	s := sh.s
	s.Parcels = slices.Clone(sh.s.Parcels)
	s.Metadata = maps.Clone(sh.s.Metadata)
	s.Errors = slices.Clone(sh.s.Errors)
	s.TrackingParcelIDs = slices.Clone(sh.s.TrackingParcelIDs)
	s.AdditionalServices = slices.Clone(sh.s.AdditionalServices)
	s.Tracked = maps.Clone(sh.s.Tracked)
	if sh.s.COD != nil {
		cod := *sh.s.COD
		s.COD = &cod
	}
	return s
}

// ID returns the shipment's id.
func (sh *Shipment) ID() string { return sh.s.ID }

// HoldsMoreThanItsRecord reports whether a change left something for the
// repository to store beside the shipment's record: a label Booked
// recorded, a change of the kept label parts, or a tracking request.
func (sh *Shipment) HoldsMoreThanItsRecord() bool {
	return sh.newLabel != nil || sh.partsChange != nil || sh.tracking != nil
}

// Status returns the shipment's status.
func (sh *Shipment) Status() Status { return sh.s.Status }

// BelongsTo reports whether the shipment is the account's.
func (sh *Shipment) BelongsTo(accountID string) bool { return sh.s.AccountID == accountID }

// CheckCancel says whether the shipment may be cancelled with the carrier:
// a created one, or one the carrier holds whose label is still being
// fetched (HeldByCarrier).
func (sh *Shipment) CheckCancel() error {
	if sh.s.Status == StatusCreated || (sh.s.Status == StatusPending && sh.HeldByCarrier()) {
		return nil
	}
	return fault.Field("status", "only a created shipment can be cancelled; this one is "+string(sh.s.Status))
}

// Cancelled records that the carrier cancelled the shipment.
func (sh *Shipment) Cancelled(now time.Time) error {
	if err := sh.CheckCancel(); err != nil {
		return err
	}
	sh.s.Status = StatusCancelled
	sh.s.LabelGivenUp = false // nothing more to fetch for a cancelled shipment
	sh.touch(now)
	return nil
}

// Edit changes what the client may change after creation; nil leaves a
// field as it is. An edit CheckEdit refuses (a reference number longer than
// a request may have) changes nothing. It reports whether anything changed.
func (sh *Shipment) Edit(reference *string, metadata map[string]any, enableTracking *bool, now time.Time) (bool, error) {
	if err := CheckEdit(reference, metadata); err != nil {
		return false, err
	}
	if err := sh.checkNotHandedOver(); err != nil {
		return false, err
	}
	changed := false
	if reference != nil && *reference != sh.s.ReferenceNumber {
		sh.s.ReferenceNumber = *reference
		changed = true
	}
	if metadata != nil && !reflect.DeepEqual(metadata, sh.s.Metadata) { // decoded JSON objects
		sh.s.Metadata = maps.Clone(metadata)
		changed = true
	}
	if enableTracking != nil && *enableTracking != sh.s.EnableTracking {
		sh.s.EnableTracking = *enableTracking
		changed = true
	}
	if changed {
		sh.touch(now)
	}
	return changed, nil
}

// CheckDelete allows deleting only a shipment the carrier did not create:
// one it holds (even while its label is being fetched) is cancelled instead.
func (sh *Shipment) CheckDelete() error {
	accepted := sh.AcceptedByCarrier() && sh.s.IsSuccessful == nil // a booking the carrier is finishing
	if sh.HeldByCarrier() || accepted || (sh.s.IsSuccessful != nil && *sh.s.IsSuccessful) {
		return fault.Field("status", "a shipment the carrier created cannot be deleted; cancel it instead")
	}
	return nil
}

// Touch marks a change without other effect (e.g. a deletion's last version).
func (sh *Shipment) Touch(now time.Time) { sh.touch(now) }

func (sh *Shipment) touch(now time.Time) {
	sh.s.Version++
	sh.s.UpdatedAt = now
}

// TakeNewLabel returns the label recorded by Booked, once.
func (sh *Shipment) TakeNewLabel() *Label {
	l := sh.newLabel
	sh.newLabel = nil
	return l
}
