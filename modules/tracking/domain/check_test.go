package domain_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
)

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

func newParcel() *domain.Parcel {
	p, err := domain.New("tp_1", "acc_1", "sandbox", domain.Request{TrackingNumber: "SB000000014CZ", ChannelID: "ch_1", MaxChecks: ptr(3)}, t0)
	if err != nil {
		panic(err)
	}
	return p
}

func ev(code string, status carrier.TrackingStatus, h int) carrier.TrackingEvent {
	return carrier.TrackingEvent{Code: code, Status: status, Description: code + " happened", At: t0.Add(time.Duration(h) * time.Hour)}
}

func recognized(events ...carrier.TrackingEvent) carrier.Tracking {
	return carrier.Tracking{Recognized: true, Events: events}
}

func TestStatusIsTheNewestMappedUpdate(t *testing.T) {
	p := newParcel()
	// Reported newest first, as some carriers do.
	p.Checked(recognized(ev("OUT", carrier.StatusOutForDelivery, 3), ev("PICK", carrier.StatusInTransit, 1)), t0.Add(4*time.Hour), time.Hour)
	if p.Status() != carrier.StatusOutForDelivery || p.Version() != 2 {
		t.Fatalf("status %s v%d", p.Status(), p.Version())
	}
	ups := p.Updates()
	if len(ups) != 2 || ups[0].CarrierCode != "OUT" || ups[1].CarrierCode != "PICK" {
		t.Fatalf("updates newest first: %+v", ups)
	}
	if added := p.TakeAdded(); len(added) != 2 || added[0].CarrierCode != "PICK" {
		t.Fatalf("added oldest first: %+v", added)
	}
}

func TestUnmappedCodeKeepsStatusAndIsRecorded(t *testing.T) {
	p := newParcel()
	p.Checked(recognized(ev("PICK", carrier.StatusInTransit, 1)), t0.Add(2*time.Hour), time.Hour)
	p.Checked(recognized(ev("PICK", carrier.StatusInTransit, 1), ev("WEIRD", "", 2)), t0.Add(3*time.Hour), time.Hour)
	if p.Status() != carrier.StatusInTransit {
		t.Fatalf("an unmapped code moved the status to %s", p.Status())
	}
	ups := p.Updates()
	if len(ups) != 2 || ups[0].CarrierCode != "WEIRD" || ups[0].Status != "" {
		t.Fatalf("the unmapped update: %+v", ups)
	}
	// An adapter's status outside the 13 is treated as unmapped, never guessed.
	p.Checked(recognized(ev("TYPO", "in-transit", 3)), t0.Add(4*time.Hour), time.Hour)
	if p.Status() != carrier.StatusInTransit || p.Updates()[0].Status != "" {
		t.Fatalf("an invalid status was taken: %s %+v", p.Status(), p.Updates()[0])
	}
}

func TestOnlyUnmappedCodesMeanError(t *testing.T) {
	p := newParcel()
	p.Checked(recognized(ev("X1", "", 1), ev("X2", "", 2)), t0.Add(3*time.Hour), time.Hour)
	if p.Status() != carrier.StatusError {
		t.Fatalf("status %s", p.Status())
	}
}

func TestRepeatedReportsAreRecordedOnce(t *testing.T) {
	p := newParcel()
	tr := recognized(ev("PICK", carrier.StatusInTransit, 1))
	p.Checked(tr, t0.Add(2*time.Hour), time.Hour)
	p.TakeAdded()
	v := p.Version()
	p.Checked(tr, t0.Add(3*time.Hour), time.Hour)
	if len(p.TakeAdded()) != 0 || p.Version() != v || len(p.Updates()) != 1 {
		t.Fatalf("a repeated report was recorded again (v%d → v%d)", v, p.Version())
	}
	if s := p.Stored(); s.ChecksDone != 2 || !s.LastCheckedAt.Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("the check itself is counted: %+v", s)
	}
}

func TestNotRecognizedUntilTheCarrierKnowsIt(t *testing.T) {
	p := newParcel()
	p.Checked(carrier.Tracking{}, t0, time.Hour)
	if p.Status() != carrier.StatusNotRecognized {
		t.Fatalf("status %s", p.Status())
	}
	p.Checked(recognized(), t0.Add(time.Hour), time.Hour)
	if p.Status() != carrier.StatusCreated {
		t.Fatalf("known but silent: %s", p.Status())
	}
	p.Checked(recognized(ev("PICK", carrier.StatusInTransit, 1)), t0.Add(2*time.Hour), time.Hour)
	// A carrier that forgets a number it reported does not undo its history.
	p.Checked(carrier.Tracking{}, t0.Add(3*time.Hour), time.Hour)
	if p.Status() != carrier.StatusInTransit {
		t.Fatalf("forgotten: %s", p.Status())
	}
}

func TestScheduleStopsAtTerminalStatusOrMaxChecks(t *testing.T) {
	p := newParcel()
	p.Checked(recognized(ev("PICK", carrier.StatusInTransit, 1)), t0.Add(time.Hour), 6*time.Hour)
	if next := p.Stored().NextCheckAt; next == nil || !next.Equal(t0.Add(7*time.Hour)) {
		t.Fatalf("next check %v", next)
	}
	p.Checked(recognized(ev("DLV", carrier.StatusDelivered, 2)), t0.Add(7*time.Hour), 6*time.Hour)
	if p.Tracked() {
		t.Fatal("a delivered parcel is still tracked")
	}
	q := newParcel() // max 3 checks
	for i := range 3 {
		q.CheckFailed("503", t0.Add(time.Duration(i)*time.Hour), time.Hour)
	}
	if s := q.Stored(); q.Tracked() || s.ChecksDone != 3 || s.LastCheckError != "503" || s.Status != carrier.StatusCreated || s.Version != 1 {
		t.Fatalf("after failed checks: %+v", s)
	}
}

func TestCODParcelIsCheckedPastDeliveryUntilCollected(t *testing.T) {
	p := domain.NewForShipment("tp_3", "acc_1", "ch_1", "sandbox", "sh_1", "SB000000014CZ", domain.Recipient{}, true, t0)
	p.Checked(recognized(ev("DLV", carrier.StatusDelivered, 1)), t0.Add(2*time.Hour), time.Hour)
	if !p.Tracked() {
		t.Fatal("checks stopped before the COD was collected")
	}
	paid := ev("PAID", carrier.StatusDelivered, 3)
	paid.CODCollected = true
	p.Checked(recognized(ev("DLV", carrier.StatusDelivered, 1), paid), t0.Add(4*time.Hour), time.Hour)
	if p.Tracked() || p.Stored().CODCollectedAt == nil {
		t.Fatalf("after the collection: tracked %v, %+v", p.Tracked(), p.Stored())
	}
}

func TestCODCollectionIsRecordedOnce(t *testing.T) {
	p := newParcel()
	paid := ev("PAID", carrier.StatusDelivered, 5)
	paid.CODCollected = true
	p.Checked(recognized(ev("DLV", carrier.StatusDelivered, 4), paid), t0.Add(6*time.Hour), time.Hour)
	if at := p.Stored().CODCollectedAt; at == nil || !at.Equal(t0.Add(5*time.Hour)) {
		t.Fatalf("collected at %v", at)
	}
}

func TestEditAndDelete(t *testing.T) {
	p := newParcel()
	name := "Jana"
	if changed, err := p.Edit(&name, nil, nil, nil, t0); !changed || err != nil {
		t.Fatalf("edit: %v %v", changed, err)
	}
	if changed, _ := p.Edit(&name, nil, nil, nil, t0); changed {
		t.Fatal("edit reports a change only when there is one")
	}
	if p.CheckDelete() != nil {
		t.Fatal("an external parcel may be deleted")
	}
	internal := domain.NewForShipment("tp_2", "acc_1", "ch_1", "sandbox", "sh_1", "SB000000014CZ", domain.Recipient{}, false, t0)
	if internal.CheckDelete() == nil {
		t.Fatal("a shipment's parcel was allowed to be deleted")
	}
}

func TestStopTrackingOnce(t *testing.T) {
	p := newParcel()
	p.StopTracking("channel deleted", t0)
	v := p.Version()
	p.StopTracking("channel deleted", t0.Add(time.Hour))
	if p.Tracked() || p.Version() != v || p.Stored().LastCheckError != "channel deleted" {
		t.Fatalf("stopping again changed the parcel: %+v", p.Stored())
	}
}

// Updates with the same carrier time keep the carrier's order when the
// repository reloads them by (occurred_at, id): their ids ascend in that
// order though each is random, so the status a later check derives from a
// reloaded parcel is the one this check derived.
func TestUpdatesOfOneTimeKeepTheCarriersOrderThroughAReload(t *testing.T) {
	for range 50 { // random ids: an order that held by chance would fail one of these
		p := newParcel()
		p.Checked(recognized(ev("HUB", carrier.StatusInTransit, 2), ev("OUT", carrier.StatusOutForDelivery, 2),
			ev("FAIL", carrier.StatusDeliveryFailed, 2)), t0.Add(3*time.Hour), time.Hour)
		if p.Status() != carrier.StatusDeliveryFailed {
			t.Fatalf("status %s, want the carrier's last of one time", p.Status())
		}
		stored := p.TakeAdded()
		slices.SortFunc(stored, func(a, b domain.StatusUpdate) int {
			return cmp.Or(a.At.Compare(b.At), strings.Compare(a.ID, b.ID))
		})
		var codes []string
		for _, u := range stored {
			codes = append(codes, u.CarrierCode)
		}
		if strings.Join(codes, ",") != "HUB,OUT,FAIL" {
			t.Fatalf("reloaded by (time, id): %v, want the carrier's order", codes)
		}
		reloaded := domain.Restore(p.Stored(), stored)
		reloaded.Checked(recognized(), t0.Add(4*time.Hour), time.Hour)
		if reloaded.Status() != carrier.StatusDeliveryFailed {
			t.Fatalf("after a reload: %s", reloaded.Status())
		}
	}
}
