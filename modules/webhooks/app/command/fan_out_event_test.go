package command_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
)

// An event reaches the account's active subscriptions to its type, and no
// other; every one gets the same body, rendered once.
func TestFanOutReachesMatchingSubscriptionsOnly(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_takes", created)
	f.subscribed(t, acme, "wh_takes_more", updated, created)
	f.subscribed(t, acme, "wh_other_type", updated)
	f.subscribed(t, acme, "wh_paused", created)
	f.subscribed(t, acme, "wh_deleted", created)
	f.subscribed(t, globex, "wh_other_account", created)
	if err := f.update.Handle(t.Context(), command.UpdateSubscription{AccountID: acme, ID: "wh_paused", Change: domain.Change{Active: new(false)}}); err != nil {
		t.Fatal(err)
	}
	if err := f.delete.Handle(t.Context(), command.DeleteSubscription{AccountID: acme, ID: "wh_deleted"}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	// The event's time in another zone: the body says it in UTC.
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	err := f.fanOut.Handle(t.Context(), command.FanOutEvent{ID: "evt_1", Type: created, AccountID: acme, CreatedAt: at,
		Data: map[string]any{"shipping_channel": map[string]any{"id": "ch_1"}}})
	if err != nil {
		t.Fatal(err)
	}

	var subs []string
	const body = `{"id":"evt_1","created_at":"2026-11-21T09:00:00Z","type":"shipping_channel.created","data":{"shipping_channel":{"id":"ch_1"}}}`
	for _, d := range f.store.Deliveries() {
		subs = append(subs, d.SubscriptionID)
		if string(d.Body) != body || d.EventID != "evt_1" || d.EventType != created || d.AccountID != acme || d.ResourceID != "ch_1" ||
			d.Outcome != domain.OutcomePending || d.Attempts != 0 || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(f.clock.Now()) {
			t.Errorf("delivery %+v (body %s)", d, d.Body)
		}
	}
	if want := []string{"wh_takes", "wh_takes_more"}; !slices.Equal(subs, want) {
		t.Fatalf("delivered to %v, want %v", subs, want)
	}
	if n := f.store.Signals(); n != 1 {
		t.Errorf("the delivery workers were signalled %d times, want once", n)
	}

	// The same event again (the bus redelivers) adds nothing; an event no
	// one takes stores nothing and wakes no one.
	f.happened(t, "evt_1", created, acme, "ch_1")
	f.happened(t, "evt_2", "shipment.created", acme, "ch_1")
	if n, signals := len(f.store.Deliveries()), f.store.Signals(); n != 2 || signals != 1 {
		t.Errorf("%d deliveries and %d signals after a repeat and an event no one takes, want 2 and 1", n, signals)
	}
}

// The resource an event is about keeps its events in order; it is read
// from data.<the type's resource>.id.
func TestFanOutNamesTheEventsResource(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, eventType string
		data            map[string]any
		want            string
	}{
		{"a channel's event", created, map[string]any{"shipping_channel": map[string]any{"id": "ch_1"}}, "ch_1"},
		{"a status change beside its previous status", "shipment.status_changed",
			map[string]any{"shipment": map[string]any{"id": "sh_1"}, "previous_status": "draft"}, "sh_1"},
		{"a tracking parcel's", "tracking_parcel.status_changed", map[string]any{"tracking_parcel": map[string]any{"id": "tp_1"}}, "tp_1"},
		{"a type without a resource part", "ping", map[string]any{"ping": map[string]any{"id": "x"}}, ""},
		{"data without the resource", created, map[string]any{"shipment": map[string]any{"id": "sh_1"}}, ""},
		{"a resource that is no object", created, map[string]any{"shipping_channel": "ch_1"}, ""},
		{"a resource without an id", created, map[string]any{"shipping_channel": map[string]any{"name": "Main"}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			if slices.Contains(command.EventTypes, tc.eventType) {
				f.subscribed(t, acme, "wh_1", tc.eventType)
			} else {
				// No client may subscribe to a type that is not offered; a
				// subscription stored before may hold one.
				f.stored(t, acme, "wh_1", tc.eventType)
			}
			if err := f.fanOut.Handle(t.Context(), command.FanOutEvent{ID: "evt_1", Type: tc.eventType, AccountID: acme,
				CreatedAt: t0, Data: tc.data}); err != nil {
				t.Fatal(err)
			}
			if d := f.store.Deliveries(); len(d) != 1 || d[0].ResourceID != tc.want {
				t.Fatalf("deliveries %+v, want one about %q", d, tc.want)
			}
		})
	}
}

// Data that cannot be rendered, or a store that fails, is the error: the
// bus redelivers the event.
func TestFanOutFailures(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	err := f.fanOut.Handle(t.Context(), command.FanOutEvent{ID: "evt_1", Type: created, AccountID: acme, CreatedAt: t0,
		Data: map[string]any{"shipping_channel": map[string]any{"id": "ch_1", "weight": func() {}}}})
	if err == nil || len(f.store.Deliveries()) != 0 {
		t.Errorf("unrenderable data: %v, %d deliveries", err, len(f.store.Deliveries()))
	}
	f.store.Interfere(failingOn("FanOut"))
	if err := f.fanOut.Handle(t.Context(), command.FanOutEvent{ID: "evt_2", Type: created, AccountID: acme, CreatedAt: t0}); !errors.Is(err, errDatabase) {
		t.Errorf("failing store: %v", err)
	}
}
