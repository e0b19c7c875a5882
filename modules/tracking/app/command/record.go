// Package command holds the tracking module's write use cases.
package command

import (
	"time"

	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
)

// Record is the public record of a tracking parcel, the API's answer: what
// its events' snapshot shows.
func Record(s domain.Stored) contract.TrackingParcel { return Snapshot(s).Record() }

// Snapshot is the tracking parcel as its events carry it.
func Snapshot(s domain.Stored) contract.TrackingParcelSnapshot {
	return contract.TrackingParcelSnapshot{
		ID: s.ID, TrackingNumber: s.TrackingNumber, ShippingChannelID: s.ChannelID, Provider: s.Provider,
		Status: string(s.Status), ShipmentID: optional(s.ShipmentID),
		RecipientName: optional(s.Recipient.Name), RecipientEmail: optional(s.Recipient.Email), RecipientPhone: optional(s.Recipient.Phone),
		CheckDelayHours: s.CheckDelayHours, MaxChecks: s.MaxChecks, ChecksDone: s.ChecksDone,
		LastCheckedAt: utc(s.LastCheckedAt), NextCheckAt: utc(s.NextCheckAt), LastCheckError: optional(s.LastCheckError),
		CODCollectedAt: utc(s.CODCollectedAt), ExternalData: s.ExternalData,
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(),
	}
}

// Detail is the record with its status updates, newest first.
func Detail(p *domain.Parcel) contract.Detail {
	updates := p.Updates()
	d := contract.Detail{TrackingParcel: Record(p.Stored()), StatusUpdates: make([]contract.StatusUpdate, len(updates))}
	for i, u := range updates {
		d.StatusUpdates[i] = contract.StatusUpdate{ID: u.ID, Status: optional(string(u.Status)), Location: u.Location,
			Description: u.Description, Timestamp: u.At.UTC(), CarrierCode: u.CarrierCode}
	}
	return d
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func parcelEvent(p *domain.Parcel, now time.Time) contract.TrackingParcelEvent {
	s := p.Stored()
	return contract.TrackingParcelEvent{AccountID: s.AccountID, Version: s.Version, OccurredAt: now, TrackingParcel: Snapshot(s)}
}

// changeEvents are the events of a change: updated when the parcel's
// version moved, and status_changed as well when its status did.
func changeEvents(p *domain.Parcel, versionBefore int, statusBefore carrier.TrackingStatus, now time.Time) []domain.Event {
	if p.Version() == versionBefore {
		return nil
	}
	events := []domain.Event{contract.TrackingParcelUpdated{TrackingParcelEvent: parcelEvent(p, now)}}
	if p.Status() == statusBefore {
		return events
	}
	s := p.Stored()
	return append(events, contract.TrackingParcelStatusChanged{
		AccountID: s.AccountID, Version: s.Version, OccurredAt: now, ShipmentID: optional(s.ShipmentID),
		TrackingParcel: contract.StatusChange{ID: s.ID, TrackingNumber: s.TrackingNumber, ShippingChannelID: s.ChannelID,
			Status: string(s.Status), PreviousStatus: string(statusBefore), CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()},
	})
}
