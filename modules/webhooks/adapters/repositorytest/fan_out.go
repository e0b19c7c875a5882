package repositorytest

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/ids"
)

// A run of events fanned out together is what fanning them out one after
// the other makes: the deliveries' ids rise in the run's order, then by
// subscription, and a later run's are higher, so a resource's first
// attempts follow its events. An event seen again, in the run or a later
// one, adds nothing; one no subscription takes, nothing.
func aFanOutRunKeepsTheStreamsOrder(t *testing.T, s Subject) {
	first, second := add(t, s, "acc_1", "first", T0), add(t, s, "acc_1", "second", T0)
	add(t, s, "acc_2", "elsewhere", T0)
	subs := []string{first.ID(), second.ID()}
	slices.Sort(subs)
	shipment, other := ids.New(ids.Shipment), ids.New(ids.Shipment)
	event := func(resource string) command.OutboundEvent {
		id := ids.New(ids.Event)
		return command.OutboundEvent{ID: id, Type: "shipment.updated", AccountID: "acc_1", CreatedAt: T0, ResourceID: resource,
			Body: []byte(`{"id":"` + id + `"}`)}
	}
	e1, o1, e2, e3, e4 := event(shipment), event(other), event(shipment), event(shipment), event(shipment)
	untaken := event(shipment)
	untaken.Type = "shipment.created"
	if n, err := s.Deliveries.FanOut(t.Context(), nil, T0); err != nil || n != 0 {
		t.Fatalf("an empty run made %d (%v)", n, err)
	}
	if n := fanOutRun(t, s, e1, o1, e1, e2, untaken, e3); n != 8 {
		t.Fatalf("the run made %d deliveries, want 2 for each of its 4 events", n)
	}
	if n := fanOutRun(t, s, e1, o1, e2, e3); n != 0 {
		t.Fatalf("the run again made %d deliveries, want none", n)
	}
	if n := fanOutRun(t, s, e3, e4); n != 2 {
		t.Fatalf("a later run with one event seen made %d deliveries, want 2", n)
	}

	// As the delivery worker goes: claim what may go, make each attempt,
	// again until nothing is left.
	var claimed []command.DueDelivery
	var waves [][]string // the events each claim took, in id order
	for range 10 {
		due, err := s.Deliveries.Claim(t.Context(), 100, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 0 {
			break
		}
		slices.SortFunc(due, func(a, b command.DueDelivery) int { return cmp.Compare(a.ID, b.ID) })
		var wave []string
		for _, d := range due {
			claimed = append(claimed, d)
			if !slices.Contains(wave, d.EventID) {
				wave = append(wave, d.EventID)
			}
			succeeded(t, s, d)
		}
		waves = append(waves, wave)
	}
	slices.SortFunc(claimed, func(a, b command.DueDelivery) int { return cmp.Compare(a.ID, b.ID) })
	var byID, want []string
	for _, d := range claimed {
		byID = append(byID, d.EventID+" to "+d.SubscriptionID)
	}
	for _, e := range []command.OutboundEvent{e1, o1, e2, e3, e4} {
		for _, sub := range subs {
			want = append(want, e.ID+" to "+sub)
		}
	}
	if !slices.Equal(byID, want) {
		t.Errorf("deliveries by id:\n%v\nwant the runs' order, then by subscription:\n%v", byID, want)
	}
	// The shipment's events go one at a time, each after the one before
	// was attempted; the other shipment's goes beside its first.
	if wantWaves := [][]string{{e1.ID, o1.ID}, {e2.ID}, {e3.ID}, {e4.ID}}; fmt.Sprint(waves) != fmt.Sprint(wantWaves) {
		t.Errorf("claims took\n%v\nwant\n%v", waves, wantWaves)
	}
}

func fanOutRun(t *testing.T, s Subject, run ...command.OutboundEvent) int64 {
	t.Helper()
	n, err := s.Deliveries.FanOut(t.Context(), run, T0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// succeeded records a successful attempt on the claimed delivery.
func succeeded(t *testing.T, s Subject, d command.DueDelivery) {
	t.Helper()
	a := domain.Attempt{Number: d.Attempts + 1, At: T0, Request: domain.Request{LogID: ids.New(ids.WebhookLog), URL: d.URL},
		Result: domain.Response{Status: 204}}
	if err := s.Deliveries.Record(t.Context(), d.Delivery, func(cur *domain.Delivery, active bool) (domain.LogEntry, bool) {
		return cur.Attempted(a, active), true
	}); err != nil {
		t.Fatal(fmt.Errorf("recording %d: %w", d.ID, err))
	}
}
