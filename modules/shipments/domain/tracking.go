package domain

import (
	"slices"
	"time"

	"shipd/platform/carrier"
)

// TrackedParcel is what the shipment knows of one of its tracking parcels:
// the latest version of it seen, so that news arriving out of order is
// applied once and never rolls the status back.
type TrackedParcel struct {
	ID             string                 `json:"id"`
	TrackingNumber string                 `json:"tracking_number"`
	Status         carrier.TrackingStatus `json:"status"`
	Version        int                    `json:"version"`
}

// TrackingProgress records news of one of the shipment's tracking parcels
// and moves the shipment along: shipped at the first movement of any
// parcel, delivered when every parcel is delivered, returned when every
// parcel's journey ended and one came back. A carrier's confirmation that
// the cash on delivery was collected sets its collection time. It reports
// whether anything changed.
func (sh *Shipment) TrackingProgress(tp TrackedParcel, codCollectedAt *time.Time, now time.Time) bool {
	changed := false
	// The collection comes on updated events only, which may arrive after a
	// status_changed of the same version: it is not version-guarded.
	if codCollectedAt != nil && sh.s.COD != nil && sh.s.COD.CollectedAt == nil {
		at := codCollectedAt.UTC()
		sh.s.COD.CollectedAt = &at
		changed = true
	}
	if known, seen := sh.s.Tracked[tp.ID]; !seen || known.Version < tp.Version {
		if sh.s.Tracked == nil {
			sh.s.Tracked = map[string]TrackedParcel{}
		}
		sh.s.Tracked[tp.ID] = tp
		if !slices.Contains(sh.s.TrackingParcelIDs, tp.ID) {
			sh.s.TrackingParcelIDs = append(sh.s.TrackingParcelIDs, tp.ID)
		}
		if next := sh.trackedStatus(); next != "" {
			sh.s.Status = next
		}
		changed = true
	}
	if changed {
		sh.touch(now)
	}
	return changed
}

// trackedStatus is the status the parcels' journeys say, or "" when they
// say nothing yet (or the shipment is not one tracking may move).
func (sh *Shipment) trackedStatus() Status {
	switch sh.s.Status {
	case StatusCreated, StatusShipped, StatusDelivered, StatusReturned:
	default:
		return ""
	}
	var delivered, ended, returned, moving int
	for _, tp := range sh.s.Tracked {
		switch {
		case tp.Status.Delivered():
			delivered++
		case tp.Status == carrier.StatusReturned:
			returned++
		}
		if tp.Status.Terminal() {
			ended++
		}
		if tp.Status.Moving() {
			moving++
		}
	}
	parcels := len(sh.s.Parcels)
	switch {
	case delivered >= parcels:
		return StatusDelivered
	case ended >= parcels && returned > 0:
		return StatusReturned
	case moving > 0:
		return StatusShipped
	}
	return ""
}
