package domain_test

import (
	"testing"
	"time"

	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
)

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// created is a shipment of n parcels the carrier created, with cash on delivery.
func created(t *testing.T, n int) *domain.Shipment {
	t.Helper()
	sh := pending(t, n)
	numbers := make([]string, n)
	for i := range numbers {
		numbers[i] = "SB00000001" + string(rune('0'+i)) + "CZ"
	}
	if err := sh.Booked("X", numbers, &carrier.Money{Minor: 490, Currency: "EUR"}, domain.Label{}, t0); err != nil {
		t.Fatal(err)
	}
	return sh
}

func news(id string, status carrier.TrackingStatus, version int) domain.TrackedParcel {
	return domain.TrackedParcel{ID: id, Status: status, Version: version}
}

func TestShipmentFollowsItsParcels(t *testing.T) {
	sh := created(t, 2)
	steps := []struct {
		tp   domain.TrackedParcel
		want domain.Status
	}{
		{news("tp_a", carrier.StatusCreated, 1), domain.StatusCreated},
		{news("tp_b", carrier.StatusWaitingForShipment, 2), domain.StatusCreated},
		{news("tp_a", carrier.StatusInTransit, 3), domain.StatusShipped},
		{news("tp_a", carrier.StatusDelivered, 5), domain.StatusShipped}, // one of two
		{news("tp_b", carrier.StatusDeliveredWithException, 6), domain.StatusDelivered},
	}
	for i, s := range steps {
		if !sh.TrackingProgress(s.tp, nil, t0) {
			t.Fatalf("step %d changed nothing", i)
		}
		if sh.Status() != s.want {
			t.Fatalf("step %d: %s, want %s", i, sh.Status(), s.want)
		}
	}
	if ids := sh.Stored().TrackingParcelIDs; len(ids) != 2 || ids[0] != "tp_a" || ids[1] != "tp_b" {
		t.Fatalf("tracking parcel ids %v", ids)
	}
}

func TestOlderNewsNeverRollsBack(t *testing.T) {
	sh := created(t, 1)
	sh.TrackingProgress(news("tp_a", carrier.StatusDelivered, 7), nil, t0)
	if sh.TrackingProgress(news("tp_a", carrier.StatusInTransit, 4), nil, t0) || sh.TrackingProgress(news("tp_a", carrier.StatusDelivered, 7), nil, t0) {
		t.Fatal("older or repeated news changed the shipment")
	}
	if sh.Status() != domain.StatusDelivered {
		t.Fatalf("status %s", sh.Status())
	}
}

func TestReturnedOnceEveryJourneyEnded(t *testing.T) {
	sh := created(t, 2)
	sh.TrackingProgress(news("tp_a", carrier.StatusReturned, 9), nil, t0)
	sh.TrackingProgress(news("tp_b", carrier.StatusOutForDelivery, 5), nil, t0)
	if sh.Status() != domain.StatusShipped {
		t.Fatalf("one returned, one on its way: %s", sh.Status())
	}
	sh.TrackingProgress(news("tp_b", carrier.StatusDelivered, 6), nil, t0)
	if sh.Status() != domain.StatusReturned {
		t.Fatalf("one returned, one delivered: %s", sh.Status())
	}
}

func TestCODCollectionArrivesWhateverTheOrder(t *testing.T) {
	sh := created(t, 1)
	sh.TrackingProgress(news("tp_a", carrier.StatusDelivered, 8), nil, t0) // status_changed first
	at := t0.Add(26 * time.Hour)
	if !sh.TrackingProgress(news("tp_a", carrier.StatusDelivered, 8), &at, t0) { // then updated, same version
		t.Fatal("the collection was dropped as old news")
	}
	if got := sh.Stored().COD.CollectedAt; got == nil || !got.Equal(at) {
		t.Fatalf("collected at %v", got)
	}
}

func TestCancelledShipmentIsNotMovedByTracking(t *testing.T) {
	sh := created(t, 1)
	if err := sh.Cancelled(t0); err != nil {
		t.Fatal(err)
	}
	sh.TrackingProgress(news("tp_a", carrier.StatusInTransit, 2), nil, t0)
	if sh.Status() != domain.StatusCancelled {
		t.Fatalf("status %s", sh.Status())
	}
}
