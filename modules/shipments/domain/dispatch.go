package domain

import (
	"time"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// The dispatch module's news of a shipment (ADR 0054): the courier pickup
// that collects it and the manifest that hands it over. Its events may come
// again or late, so each change is judged against what the shipment knows.

// CollectedBy records that pickupID is to collect the shipment, and
// reports whether that was news.
func (sh *Shipment) CollectedBy(pickupID string, now time.Time) bool {
	if sh.s.PickupID == pickupID {
		return false
	}
	sh.s.PickupID = pickupID
	sh.touch(now)
	return true
}

// PickupCancelled records that pickupID will not come: the shipment is on
// no pickup, unless it was on another one since.
func (sh *Shipment) PickupCancelled(pickupID string, now time.Time) bool {
	if sh.s.PickupID != pickupID {
		return false
	}
	sh.s.PickupID = ""
	sh.touch(now)
	return true
}

// HandedOver records the manifest the shipment was handed over on (a
// shipment is on one at most), and reports whether that was news.
func (sh *Shipment) HandedOver(manifestID string, now time.Time) bool {
	if sh.s.ManifestID != "" {
		return false
	}
	sh.s.ManifestID = manifestID
	sh.touch(now)
	return true
}

// checkNotHandedOver refuses an edit of a shipment on a manifest: the
// driver has signed for it as it was.
func (sh *Shipment) checkNotHandedOver() error {
	if sh.s.ManifestID == "" {
		return nil
	}
	return fault.Conflict("shipment_handed_over", "The shipment is on manifest "+sh.s.ManifestID+
		": it was handed over to the carrier as it is and can no longer be edited.")
}

// CheckCancelAfterManifest refuses the cancel of a shipment on a manifest
// where its provider says such a shipment cannot be cancelled
// (carrier.DispatchInfo.CancelAfterManifest); elsewhere the carrier judges.
func (sh *Shipment) CheckCancelAfterManifest(dispatch carrier.DispatchInfo) error {
	if sh.s.ManifestID == "" || dispatch.CancelAfterManifest != carrier.CancelAfterManifestRefused {
		return nil
	}
	return fault.Conflict("shipment_handed_over", "The shipment is on manifest "+sh.s.ManifestID+
		"; provider "+sh.s.Provider+" cancels no shipment once it is handed over.")
}
