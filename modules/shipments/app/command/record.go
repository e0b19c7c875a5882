// Package command holds the shipments module's write use cases.
package command

import (
	"time"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
)

// Record is the public record of a shipment, the API's answer: what its
// events' snapshot shows.
func Record(s domain.Stored) contract.Shipment { return Snapshot(s).Record() }

// Snapshot is the shipment as its events carry it.
func Snapshot(s domain.Stored) contract.ShipmentSnapshot {
	rec := contract.ShipmentSnapshot{
		ID: s.ID, ReferenceNumber: s.ReferenceNumber, ShippingChannelID: s.ChannelID, Status: string(s.Status),
		Provider: s.Provider, ProductType: s.ProductType, IsSuccessful: s.IsSuccessful, HasLabel: s.HasLabel,
		LabelFormat: s.LabelFormat, ShippingDate: s.ShippingDate,
		SenderContact: contract.Contact(s.Sender), RecipientContact: contract.Contact(s.Recipient),
		OriginAddress: s.Origin, DestinationAddress: s.Destination,
		Metadata: s.Metadata, EnableTracking: s.EnableTracking, AdditionalServices: s.AdditionalServices,
		TrackingParcelIDs: s.TrackingParcelIDs, CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(),
		Parcels: make([]contract.Parcel, len(s.Parcels)), Errors: make([]contract.Problem, len(s.Errors)),
	}
	for i, p := range s.Parcels {
		rec.Parcels[i] = contract.Parcel(p)
	}
	for i, p := range s.Errors {
		rec.Errors[i] = contract.Problem{Message: p.Message}
		if p.Field != "" {
			f := p.Field
			rec.Errors[i].Field = &f
		}
	}
	if s.PickupPoint != "" {
		point := s.PickupPoint
		rec.PickupPointID = &point
	}
	if s.ProviderShipmentID != "" {
		id := s.ProviderShipmentID
		rec.ProviderShipmentID = &id
	}
	if s.PickupID != "" {
		id := s.PickupID
		rec.PickupID = &id
	}
	if s.ManifestID != "" {
		id := s.ManifestID
		rec.ManifestID = &id
	}
	if p := s.Price(); p != nil {
		amount := p.Float()
		rec.TotalPrice, rec.Currency = &amount, &p.Currency
	}
	if s.COD != nil {
		rec.CashOnDelivery = &contract.CashOnDelivery{
			Amount:      carrier.Money{Minor: s.COD.AmountMinor, Currency: s.COD.Currency}.Float(),
			Currency:    s.COD.Currency,
			CollectedAt: utc(s.COD.CollectedAt),
		}
	}
	return rec
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func shipmentEvent(sh *domain.Shipment, now time.Time) contract.ShipmentEvent {
	s := sh.Stored()
	return contract.ShipmentEvent{AccountID: s.AccountID, Version: s.Version, OccurredAt: now, Shipment: Snapshot(s)}
}

// withStatusChange appends status_changed when the status moved.
func withStatusChange(events []domain.Event, sh *domain.Shipment, before domain.Status, now time.Time) []domain.Event {
	if sh.Status() == before {
		return events
	}
	return append(events, contract.ShipmentStatusChanged{ShipmentEvent: shipmentEvent(sh, now), PreviousStatus: string(before)})
}
