package command

import (
	"time"

	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
)

// PickupSnapshot is the pickup as its events and the API show it.
func PickupSnapshot(s pickup.Stored) contract.PickupSnapshot {
	out := contract.PickupSnapshot{ID: s.ID, ShippingChannelID: s.ChannelID, Provider: s.Provider, Status: string(s.Status),
		Date: s.Date, ReadyFrom: s.ReadyFrom, ReadyUntil: s.ReadyUntil, Address: s.Address, Contact: contract.ContactOf(s.Contact),
		ShipmentIDs: s.ShipmentIDs, ParcelCount: s.ParcelCount, TotalWeightKG: s.TotalWeightKG, Note: s.Note,
		ConfirmationNumber: optional(s.ConfirmationNumber),
		Confirmed: contract.ConfirmedWindow{Date: optional(s.ConfirmedDate), ReadyFrom: optional(s.ConfirmedFrom),
			ReadyUntil: optional(s.ConfirmedUntil)},
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, CancelledAt: s.CancelledAt}
	if out.ShipmentIDs == nil {
		out.ShipmentIDs = []string{}
	}
	return out
}

// ManifestSnapshot is the manifest as its events and the API show it.
func ManifestSnapshot(s manifest.Stored) contract.ManifestSnapshot {
	return contract.ManifestSnapshot{ID: s.ID, ShippingChannelID: s.ChannelID, Provider: s.Provider, Status: string(s.Status),
		Date: s.Date, ShipmentIDs: s.ShipmentIDs, ShipmentCount: len(s.ShipmentIDs), ParcelCount: s.ParcelCount,
		TotalWeightKG: s.TotalWeightKG, SenderContact: contract.ContactOf(s.Sender), OriginAddress: s.Origin,
		Document: s.Document, CarrierReference: optional(s.CarrierReference), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

func pickupEvent(p *pickup.Pickup, now time.Time) contract.PickupEvent {
	s := p.Stored()
	return contract.PickupEvent{AccountID: s.AccountID, Version: s.Version, OccurredAt: now, Pickup: PickupSnapshot(s)}
}

func manifestEvent(m *manifest.Manifest, now time.Time) contract.ManifestEvent {
	s := m.Stored()
	return contract.ManifestEvent{AccountID: s.AccountID, Version: s.Version, OccurredAt: now, Manifest: ManifestSnapshot(s)}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
