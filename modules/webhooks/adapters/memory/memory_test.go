package memory_test

import (
	"slices"
	"testing"
	"time"

	"shipd/modules/webhooks/adapters/memory"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
)

// The app-layer tests rely on the in-memory store keeping the PostgreSQL
// adapters' contract; these are the points of it they do not exercise
// themselves.

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func newStore(t *testing.T, subs ...string) (*memory.Store, *clock.Manual) {
	t.Helper()
	clk := clock.NewManual(t0)
	s := memory.NewStore(clk)
	for i, id := range subs {
		sub, err := domain.NewSubscription(id, "acc_1", domain.Fields{Name: id, URL: "https://example.com/" + id,
			Events: []string{"shipment.updated"}, Secret: "secret-" + id, Active: true}, command.EventTypes, t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Add(t.Context(), sub); err != nil {
			t.Fatal(err)
		}
	}
	return s, clk
}

func fanOut(t *testing.T, s *memory.Store, eventID, resource string, at time.Time) {
	t.Helper()
	if _, err := s.FanOut(t.Context(), []command.OutboundEvent{{ID: eventID, Type: "shipment.updated", AccountID: "acc_1",
		CreatedAt: at, ResourceID: resource, Body: []byte(`{}`)}}, at); err != nil {
		t.Fatal(err)
	}
}

func events(due []command.DueDelivery) []string {
	var out []string
	for _, d := range due {
		out = append(out, d.EventID)
	}
	return out
}

// record makes the attempt the delivery worker makes on d, answered status.
func record(t *testing.T, s *memory.Store, d command.DueDelivery, status int, at time.Time) {
	t.Helper()
	a := domain.Attempt{Number: d.Attempts + 1, At: at, Request: domain.Request{LogID: "whl_" + d.EventID + at.Format("150405")},
		Result: domain.Response{Status: status}}
	if err := s.Record(t.Context(), d.Delivery, func(cur *domain.Delivery, active bool) (domain.LogEntry, bool) {
		return cur.Attempted(a, active), true
	}); err != nil {
		t.Fatal(err)
	}
}

// A first attempt waits for the earlier events of its resource to the same
// subscription to have had theirs; retries and events without a resource
// do not wait. Each recorded first attempt of a resource signals.
func TestClaimKeepsEachResourcesFirstAttemptsInOrder(t *testing.T) {
	t.Parallel()
	s, clk := newStore(t, "wh_1")
	fanOut(t, s, "evt_1", "sh_1", t0)
	fanOut(t, s, "evt_2", "sh_1", t0)
	fanOut(t, s, "evt_3", "sh_2", t0)
	fanOut(t, s, "evt_4", "", t0)
	due, _ := s.Claim(t.Context(), 10, time.Minute)
	if got := events(due); !slices.Equal(got, []string{"evt_1", "evt_3", "evt_4"}) {
		t.Fatalf("claimed %v", got)
	}
	record(t, s, due[0], 500, t0)
	select {
	case <-s.FirstAttemptsRecorded():
	default:
		t.Error("no signal after a first attempt of a resource")
	}
	next, _ := s.Claim(t.Context(), 10, time.Minute)
	if got := events(next); !slices.Equal(got, []string{"evt_2"}) {
		t.Fatalf("after evt_1's first attempt: %v", got)
	}
	// Leased: not claimed again until the lease runs out, unless released.
	if again, _ := s.Claim(t.Context(), 10, time.Minute); len(again) != 0 {
		t.Fatalf("claimed within the lease: %v", events(again))
	}
	if err := s.Release(t.Context(), next); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Claim(t.Context(), 1, time.Minute); !slices.Equal(events(again), []string{"evt_2"}) {
		t.Fatalf("after release: %v", events(again))
	}
	clk.Advance(5 * time.Minute)
	if n, _ := s.Due(t.Context()); n != 4 {
		t.Errorf("%d due, want every delivery but none finished", n)
	}
}

// An attempt recorded on a claim whose lease ran out and whose delivery
// another worker meanwhile finished is logged and schedules nothing.
func TestRecordOfAStaleClaimIsLoggedOnly(t *testing.T) {
	t.Parallel()
	s, clk := newStore(t, "wh_1")
	fanOut(t, s, "evt_1", "sh_1", t0)
	stale, _ := s.Claim(t.Context(), 1, time.Minute)
	clk.Advance(2 * time.Minute)
	fresh, _ := s.Claim(t.Context(), 1, time.Minute)
	if len(stale) != 1 || len(fresh) != 1 {
		t.Fatalf("claims %v and %v", events(stale), events(fresh))
	}
	record(t, s, fresh[0], 204, clk.Now())
	record(t, s, stale[0], 500, clk.Now())
	if d := s.Deliveries(); len(d) != 0 {
		t.Errorf("deliveries %+v, want the success's deletion to stand", d)
	}
	page, _ := s.ListDeliveryLogs(t.Context(), query.ListDeliveryLogs{SubscriptionID: "wh_1", Limit: 10})
	if page.Total != 2 || page.Records[0].NextRetryAt != nil || page.Records[1].NextRetryAt != nil {
		t.Errorf("logs %+v, want both attempts, no retry", page.Records)
	}
}

// The purge also takes finished deliveries, unused bodies and deleted
// subscriptions older than its bound, and says how many rows went.
func TestPurgeTakesWhatIsOverAndOld(t *testing.T) {
	t.Parallel()
	s, clk := newStore(t, "wh_1", "wh_2")
	fanOut(t, s, "evt_1", "", t0)
	due, _ := s.Claim(t.Context(), 10, time.Minute)
	for _, d := range due {
		record(t, s, d, 500, t0)
	}
	if err := s.Delete(t.Context(), "wh_2", func(*domain.Subscription) error { return nil }); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	n, err := s.Purge(t.Context(), t0.Add(time.Minute))
	// Both logs; wh_2's cancelled delivery; wh_2 itself. wh_1's delivery
	// waits for its retry, so the body stays.
	if err != nil || n != 4 {
		t.Fatalf("purged %d (%v), want 4", n, err)
	}
	if _, err := s.SubscriptionAccount(t.Context(), "wh_2"); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("the deleted subscription is still known: %v", err)
	}
	if d := s.Deliveries(); len(d) != 1 || d[0].SubscriptionID != "wh_1" || string(d[0].Body) != "{}" {
		t.Errorf("deliveries kept %+v", d)
	}
}

// Subscriptions list newest first, without deleted ones, a page at a time.
func TestListSubscriptions(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, "wh_1", "wh_2", "wh_3")
	if err := s.Delete(t.Context(), "wh_2", func(*domain.Subscription) error { return nil }); err != nil {
		t.Fatal(err)
	}
	page, err := s.ListSubscriptions(t.Context(), query.ListSubscriptions{AccountID: "acc_1", Offset: 1, Limit: 5})
	if err != nil || page.Total != 2 || len(page.Records) != 1 || page.Records[0].ID != "wh_1" {
		t.Fatalf("page %+v (%v)", page, err)
	}
}
