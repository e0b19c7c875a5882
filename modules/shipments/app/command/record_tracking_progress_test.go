package command_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
)

func progress(id string, parcel string, status carrier.TrackingStatus, version int) command.RecordTrackingProgress {
	return command.RecordTrackingProgress{ShipmentID: id, Parcel: domain.TrackedParcel{ID: parcel, Status: status, Version: version}}
}

// News of the shipment's parcels moves it along (shipment.updated, and
// status_changed when the status moved); news older than what the
// shipment saw changes nothing.
func TestRecordTrackingProgressFollowsTheParcels(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.booked(t, "sh_1", 2)
	steps := []struct {
		news   command.RecordTrackingProgress
		events []string
	}{
		{progress("sh_1", "tp_a", carrier.StatusCreated, 1), []string{"shipment.updated v3 created"}},
		{progress("sh_1", "tp_a", carrier.StatusInTransit, 3), []string{"shipment.updated v4 shipped", "shipment.status_changed v4 created>shipped"}},
		{progress("sh_1", "tp_a", carrier.StatusCreated, 2), nil},   // late news
		{progress("sh_1", "tp_a", carrier.StatusInTransit, 3), nil}, // the same news again
		{progress("sh_1", "tp_a", carrier.StatusDelivered, 5), []string{"shipment.updated v5 shipped"}},
		{progress("sh_1", "tp_b", carrier.StatusDelivered, 4), []string{"shipment.updated v6 delivered", "shipment.status_changed v6 shipped>delivered"}},
	}
	for i, s := range steps {
		published := len(f.repo.Published())
		f.clock.Advance(time.Minute)
		if err := f.track.Handle(t.Context(), s.news); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := f.events(t, published); !slices.Equal(got, s.events) {
			t.Errorf("step %d: events %v, want %v", i, got, s.events)
		}
	}
	if snap := f.lastSnapshot(t); !slices.Equal(snap.TrackingParcelIDs, []string{"tp_a", "tp_b"}) {
		t.Errorf("tracking parcel ids %v", snap.TrackingParcelIDs)
	}
}

// The carrier's confirmation that the cash was collected is recorded once,
// whatever the news' version.
func TestRecordTrackingProgressRecordsTheCODCollection(t *testing.T) {
	t.Parallel()
	f := newFixture()
	cmd := request("sh_1", 1)
	withCOD(&cmd)
	f.created(t, cmd)
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	delivered := progress("sh_1", "tp_a", carrier.StatusDelivered, 4)
	if err := f.track.Handle(t.Context(), delivered); err != nil {
		t.Fatal(err)
	}
	published := len(f.repo.Published())
	collected := time.Date(2026, 11, 3, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	delivered.CODCollectedAt = &collected
	for range 2 {
		if err := f.track.Handle(t.Context(), delivered); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.events(t, published); !slices.Equal(got, []string{"shipment.updated v4 delivered"}) {
		t.Errorf("events %v", got)
	}
	snap := f.lastSnapshot(t)
	if snap.CashOnDelivery == nil || snap.CashOnDelivery.CollectedAt == nil || !snap.CashOnDelivery.CollectedAt.Equal(collected) ||
		snap.CashOnDelivery.CollectedAt.Location() != time.UTC {
		t.Errorf("cash on delivery %+v", snap.CashOnDelivery)
	}
}

// News of a shipment deleted meanwhile is dropped; the store's failure is
// returned, for the message to be handled again.
func TestRecordTrackingProgressOfAShipmentGone(t *testing.T) {
	t.Parallel()
	f := newFixture()
	if err := f.track.Handle(t.Context(), progress("sh_gone", "tp_a", carrier.StatusInTransit, 2)); err != nil {
		t.Errorf("news of a deleted shipment: %v", err)
	}
	f.booked(t, "sh_1", 1)
	f.repo.Interfere(failOn("Update"))
	if err := f.track.Handle(t.Context(), progress("sh_1", "tp_a", carrier.StatusInTransit, 2)); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
}
