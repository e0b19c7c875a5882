package repositorytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/contracttest"
	"shipd/platform/ids"
	"shipd/platform/messaging/outboxtest"
)

// touched is a change that moves the shipment on and names its update.
func touched(id string) domain.Change {
	return domain.Change{ID: id, Apply: func(sh *domain.Shipment) []domain.Event {
		sh.Touch(t0)
		return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: event(sh)}}
	}}
}

// versions describes the shipment events published after the first n:
// "<shipment> v<version>", in order.
func versions(t *testing.T, msgs []outboxtest.Message, n int, names map[string]string) []string {
	t.Helper()
	var out []string
	for _, m := range msgs[n:] {
		var e contract.ShipmentEvent
		if err := json.Unmarshal(m.Payload, &e); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		out = append(out, fmt.Sprintf("%s v%d", names[e.Shipment.ID], e.Version))
	}
	return out
}

// UpdateAll applies its changes in their order as Update would one after
// another: each shipment's in turn, its events published in the order the
// changes named them, across shipments too; a change naming no event is
// saved when it changed what is stored; a shipment not found is skipped,
// its change never applied.
func updateAllAppliesInTurnAndSkipsTheGone(t *testing.T, s Subject) {
	a, b := add(t, s, false), add(t, s, false)
	names := map[string]string{a.ID(): "a", b.ID(): "b"}
	published := len(s.Published(t))
	gone := false
	changes := []domain.Change{
		touched(a.ID()),
		{ID: ids.New(ids.Shipment), Apply: func(*domain.Shipment) []domain.Event { gone = true; return nil }},
		touched(b.ID()),
		{ID: b.ID(), Apply: func(*domain.Shipment) []domain.Event { return nil }},
		touched(a.ID()),
		{ID: b.ID(), Apply: func(sh *domain.Shipment) []domain.Event {
			if err := sh.BookingAccepted("BATCH-7"); err != nil {
				t.Error(err)
			}
			return nil
		}},
	}
	if err := s.Repo.UpdateAll(t.Context(), changes); err != nil {
		t.Fatal(err)
	}
	if gone {
		t.Error("the change of a missing shipment was applied")
	}
	if got, want := versions(t, s.Published(t), published, names), []string{"a v2", "b v2", "a v3"}; !slices.Equal(got, want) {
		t.Errorf("published %v, want %v", got, want)
	}
	if st := get(t, s, a.ID()); st.Version != 3 {
		t.Errorf("a at version %d, want 3", st.Version)
	}
	if st := get(t, s, b.ID()); st.Version != 2 || st.BookingHandle != "BATCH-7" {
		t.Errorf("b at version %d with handle %q, want 2 and BATCH-7", st.Version, st.BookingHandle)
	}
	if err := s.Repo.UpdateAll(t.Context(), nil); err != nil {
		t.Errorf("no changes: %v", err)
	}
}

// A change that leaves a label or a tracking request to store is Update's:
// UpdateAll refuses it, and saves and publishes nothing of the run.
func updateAllRefusesALabelAndSavesNothing(t *testing.T, s Subject) {
	a, b := add(t, s, true), add(t, s, true)
	before := get(t, s, a.ID())
	booked := domain.Change{ID: b.ID(), Apply: func(sh *domain.Shipment) []domain.Event {
		events, err := book(sh)
		if err != nil {
			t.Error(err)
		}
		return events
	}}
	if err := s.Repo.UpdateAll(t.Context(), []domain.Change{touched(a.ID()), booked}); err == nil {
		t.Fatal("a booking with its label was saved by UpdateAll")
	}
	if got := get(t, s, a.ID()); got.Version != before.Version {
		t.Errorf("a moved to version %d in a run that failed", got.Version)
	}
	if got := get(t, s, b.ID()); got.Status != domain.StatusPending {
		t.Errorf("b %s after a run that failed", got.Status)
	}
	if l, err := s.Repo.Label(t.Context(), b.ID()); err != nil || l != nil {
		t.Errorf("label %v (%v) after a run that failed", l, err)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested, contract.EventRequested)
	outboxtest.WantNames(t, "sent", s.Sent(t))
}

// Runs sharing shipments, taken in either order, and updates of one of
// them, all at once, are applied one after the other: none is lost, and
// none waits on another for ever.
func concurrentUpdateAllsAreSerial(t *testing.T, s Subject) {
	a, b := add(t, s, false), add(t, s, false)
	const n = 8
	turn := make(chan int, n)
	for i := range n {
		turn <- i
	}
	contracttest.Concurrently(t, n, func(ctx context.Context) error {
		switch i := <-turn; i % 3 {
		case 0:
			return s.Repo.UpdateAll(ctx, []domain.Change{touched(a.ID()), touched(b.ID())})
		case 1:
			return s.Repo.UpdateAll(ctx, []domain.Change{touched(b.ID()), touched(a.ID()), touched(b.ID())})
		default:
			_, err := s.Repo.Update(ctx, a.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
				return touched(a.ID()).Apply(sh), nil
			})
			return err
		}
	})
	// Of the eight: 0, 3, 6 touch a and b once; 1, 4, 7 touch a once and
	// b twice; 2 and 5 touch a.
	if st := get(t, s, a.ID()); st.Version != 1+n {
		t.Errorf("a at version %d after %d changes: some were lost", st.Version, n)
	}
	if st := get(t, s, b.ID()); st.Version != 1+3+2*3 {
		t.Errorf("b at version %d after %d changes: some were lost", st.Version, 3+2*3)
	}
}
