package command_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
)

func news(id string, parcel string, status carrier.TrackingStatus, version int) command.TrackingNews {
	return command.TrackingNews{ShipmentID: id, Parcel: domain.TrackedParcel{ID: parcel, Status: status, Version: version}}
}

// run is a run of news, as a consumer group's batch hands it over.
func run(news ...command.TrackingNews) command.RecordTrackingProgress {
	return command.RecordTrackingProgress{News: news}
}

// News of the shipment's parcels moves it along (shipment.updated, and
// status_changed when the status moved); news older than what the
// shipment saw changes nothing.
func TestRecordTrackingProgressFollowsTheParcels(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.booked(t, "sh_1", 2)
	steps := []struct {
		news   command.TrackingNews
		events []string
	}{
		{news("sh_1", "tp_a", carrier.StatusCreated, 1), []string{"shipment.updated v3 created"}},
		{news("sh_1", "tp_a", carrier.StatusInTransit, 3), []string{"shipment.updated v4 shipped", "shipment.status_changed v4 created>shipped"}},
		{news("sh_1", "tp_a", carrier.StatusCreated, 2), nil},   // late news
		{news("sh_1", "tp_a", carrier.StatusInTransit, 3), nil}, // the same news again
		{news("sh_1", "tp_a", carrier.StatusDelivered, 5), []string{"shipment.updated v5 shipped"}},
		{news("sh_1", "tp_b", carrier.StatusDelivered, 4), []string{"shipment.updated v6 delivered", "shipment.status_changed v6 shipped>delivered"}},
	}
	for i, s := range steps {
		published := len(f.repo.Published())
		f.clock.Advance(time.Minute)
		if err := f.track.Handle(t.Context(), run(s.news)); err != nil {
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

// A run of news of several shipments is recorded as recording each news
// one after another would: the same events in the same order, a shipment
// that moved twice publishing both moves with rising versions, late and
// repeated news and news of a shipment gone changing nothing.
func TestARunOfNewsIsRecordedAsEachNewsInTurn(t *testing.T) {
	t.Parallel()
	all := []command.TrackingNews{
		news("sh_1", "tp_a", carrier.StatusCreated, 1),
		news("sh_2", "tp_c", carrier.StatusInTransit, 2),
		news("sh_1", "tp_a", carrier.StatusInTransit, 3),
		news("sh_gone", "tp_x", carrier.StatusInTransit, 2),
		news("sh_1", "tp_a", carrier.StatusCreated, 2),   // late news
		news("sh_2", "tp_c", carrier.StatusInTransit, 2), // the same news again
		news("sh_1", "tp_a", carrier.StatusDelivered, 5),
		news("sh_1", "tp_b", carrier.StatusDelivered, 4),
		news("sh_2", "tp_c", carrier.StatusDelivered, 4),
	}
	want := []string{
		"shipment.updated v3 created",
		"shipment.updated v3 shipped", "shipment.status_changed v3 created>shipped", // sh_2
		"shipment.updated v4 shipped", "shipment.status_changed v4 created>shipped",
		"shipment.updated v5 shipped",
		"shipment.updated v6 delivered", "shipment.status_changed v6 shipped>delivered",
		"shipment.updated v4 delivered", "shipment.status_changed v4 shipped>delivered", // sh_2
	}
	together, inTurn := newFixture(), newFixture()
	for _, f := range []*fixture{together, inTurn} {
		f.booked(t, "sh_1", 2)
		f.booked(t, "sh_2", 1)
	}
	published := len(together.repo.Published())
	if err := together.track.Handle(t.Context(), run(all...)); err != nil {
		t.Fatal(err)
	}
	for _, n := range all {
		if err := inTurn.track.Handle(t.Context(), run(n)); err != nil {
			t.Fatal(err)
		}
	}
	got, one := together.events(t, published), inTurn.events(t, published)
	if !slices.Equal(got, want) || !slices.Equal(one, want) {
		t.Errorf("events of the run %v\none by one %v\nwant %v", got, one, want)
	}
	for _, id := range []string{"sh_1", "sh_2"} {
		if a, b := together.state(t, id), inTurn.state(t, id); !reflect.DeepEqual(a, b) {
			t.Errorf("%s after the run\n%+v\none by one\n%+v", id, a, b)
		}
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
	delivered := news("sh_1", "tp_a", carrier.StatusDelivered, 4)
	if err := f.track.Handle(t.Context(), run(delivered)); err != nil {
		t.Fatal(err)
	}
	published := len(f.repo.Published())
	collected := time.Date(2026, 11, 3, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	delivered.CODCollectedAt = &collected
	if err := f.track.Handle(t.Context(), run(delivered, delivered)); err != nil {
		t.Fatal(err)
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
// returned, for the run to be handled again, and records nothing of it.
func TestRecordTrackingProgressOfAShipmentGone(t *testing.T) {
	t.Parallel()
	f := newFixture()
	if err := f.track.Handle(t.Context(), run(news("sh_gone", "tp_a", carrier.StatusInTransit, 2))); err != nil {
		t.Errorf("news of a deleted shipment: %v", err)
	}
	f.booked(t, "sh_1", 1)
	published := len(f.repo.Published())
	f.repo.Interfere(failOn("UpdateAll"))
	if err := f.track.Handle(t.Context(), run(news("sh_1", "tp_a", carrier.StatusInTransit, 2))); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
	if got := f.events(t, published); len(got) != 0 || f.state(t, "sh_1").Status != domain.StatusCreated {
		t.Errorf("a failed run published %v, left the shipment %s", got, f.state(t, "sh_1").Status)
	}
}
