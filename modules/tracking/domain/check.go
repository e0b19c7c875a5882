package domain

import (
	"slices"
	"strconv"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/ids"
)

// StatusUpdate is one carrier event as recorded: the carrier's raw code
// beside the standard status it maps to (empty when it maps to none).
type StatusUpdate struct {
	ID          string                 `db:"id"`
	Status      carrier.TrackingStatus `db:"status"`
	CarrierCode string                 `db:"carrier_code"`
	Description string                 `db:"description"`
	Location    string                 `db:"location"`
	At          time.Time              `db:"occurred_at"`
	Fingerprint string                 `db:"fingerprint"`
}

// fingerprint identifies a carrier event across reports of it.
func fingerprint(e carrier.TrackingEvent) string {
	return e.Code + "|" + strconv.FormatInt(e.At.Unix(), 10) + "|" + e.Location + "|" + e.Description
}

// Checked records a carrier's answer: events not seen before become status
// updates, and the status becomes that of the newest update whose code the
// carrier's table maps. Updates whose codes map to nothing leave the status
// as it was, or make it error when no update at all was recognized. A number
// the carrier does not know is not_recognized until it first knows it.
// nextIn is the pause before the next check.
func (p *Parcel) Checked(tr carrier.Tracking, now time.Time, nextIn time.Duration) {
	before := p.s
	if !tr.Recognized {
		if len(p.updates) == 0 {
			p.s.Status = carrier.StatusNotRecognized
		}
	} else {
		p.record(tr.Events, now)
		p.s.Status = p.derivedStatus()
	}
	p.scheduleAfterCheck(now, nextIn)
	p.s.LastCheckError = ""
	if p.s.Status != before.Status || len(p.added) > 0 || !sameTime(p.s.CODCollectedAt, before.CODCollectedAt) {
		p.touch(now)
	}
}

// CheckFailed records a check the carrier did not answer; the status stays.
func (p *Parcel) CheckFailed(reason string, now time.Time, nextIn time.Duration) {
	p.scheduleAfterCheck(now, nextIn)
	p.s.LastCheckError = reason
}

// StopTracking ends the checks for good (the channel is gone).
func (p *Parcel) StopTracking(reason string, now time.Time) {
	if p.s.NextCheckAt == nil && p.s.LastCheckError == reason {
		return // stopped already, for the same reason
	}
	p.s.NextCheckAt = nil
	p.s.LastCheckError = reason
	p.touch(now)
}

// BringCheckForward makes the next check due by latest when it was planned
// later, and reports whether it was. It is a change of schedule only: a
// carrier whose clock now runs faster (SANDBOX_TIME_SCALE raised) must not
// wait out a delay planned on the slower one. Nothing a client sees of the
// journey changes, so the parcel's version and updated_at stay.
func (p *Parcel) BringCheckForward(latest time.Time) bool {
	if p.s.NextCheckAt == nil || !p.s.NextCheckAt.After(latest) {
		return false
	}
	p.s.NextCheckAt = &latest
	return true
}

// CheckDelay is the pause between two checks of the parcel on real time.
func (p *Parcel) CheckDelay() time.Duration { return time.Duration(p.s.CheckDelayHours) * time.Hour }

// Tracked reports whether checks are still scheduled.
func (p *Parcel) Tracked() bool { return p.s.NextCheckAt != nil }

func (p *Parcel) record(events []carrier.TrackingEvent, now time.Time) {
	seen := map[string]bool{}
	for _, u := range p.updates {
		seen[u.Fingerprint] = true
	}
	// Oldest first; ties keep the carrier's order.
	sorted := slices.Clone(events)
	slices.SortStableFunc(sorted, func(a, b carrier.TrackingEvent) int { return a.At.Compare(b.At) })
	var fresh []carrier.TrackingEvent
	var fps []string
	for _, e := range sorted {
		fp := fingerprint(e)
		if !seen[fp] {
			seen[fp] = true
			fresh, fps = append(fresh, e), append(fps, fp)
		}
	}
	// Updates are reloaded by (occurred_at, id): ascending ids keep the
	// carrier's order of one check's updates with the same time, and the
	// ids of a check in a later second sort after these by their time part.
	updateIDs := ids.NewSortedAt(ids.StatusUpdate, now, len(fresh))
	for i, e := range fresh {
		status := e.Status
		if !status.Valid() {
			status = "" // an adapter's typo must not become a status
		}
		u := StatusUpdate{ID: updateIDs[i], Status: status, CarrierCode: e.Code,
			Description: e.Description, Location: e.Location, At: e.At.UTC(), Fingerprint: fps[i]}
		p.updates = append(p.updates, u)
		p.added = append(p.added, u)
		if e.CODCollected && p.s.CODCollectedAt == nil {
			at := e.At.UTC()
			p.s.CODCollectedAt = &at
		}
	}
	slices.SortStableFunc(p.updates, func(a, b StatusUpdate) int { return a.At.Compare(b.At) })
}

// derivedStatus is the status of the newest mapped update; error when there
// are updates but none is mapped; the current status when there are none.
func (p *Parcel) derivedStatus() carrier.TrackingStatus {
	for i := len(p.updates) - 1; i >= 0; i-- {
		if p.updates[i].Status != "" {
			return p.updates[i].Status
		}
	}
	if len(p.updates) > 0 {
		return carrier.StatusError
	}
	if p.s.Status == carrier.StatusNotRecognized {
		return carrier.StatusCreated // known now, nothing to tell yet
	}
	return p.s.Status
}

// scheduleAfterCheck counts the check and plans the next one, unless the
// journey ended (and no COD collection is awaited) or the checks are used up.
func (p *Parcel) scheduleAfterCheck(now time.Time, nextIn time.Duration) {
	p.s.ChecksDone++
	p.s.LastCheckedAt = &now
	awaitingCOD := p.s.AwaitsCOD && p.s.CODCollectedAt == nil && p.s.Status.Delivered()
	if (p.s.Status.Terminal() && !awaitingCOD) || p.s.ChecksDone >= p.s.MaxChecks {
		p.s.NextCheckAt = nil
		return
	}
	next := now.Add(nextIn)
	p.s.NextCheckAt = &next
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
