package command_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
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
	err := f.fanOut.Handle(t.Context(), command.FanOutEvents{Events: []command.PublicEvent{{ID: "evt_1", Type: created, AccountID: acme, CreatedAt: at,
		Data: map[string]any{"shipping_channel": map[string]any{"id": "ch_1"}}}}})
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
			if err := f.fanOut.Handle(t.Context(), command.FanOutEvents{Events: []command.PublicEvent{{ID: "evt_1", Type: tc.eventType, AccountID: acme,
				CreatedAt: t0, Data: tc.data}}}); err != nil {
				t.Fatal(err)
			}
			if d := f.store.Deliveries(); len(d) != 1 || d[0].ResourceID != tc.want {
				t.Fatalf("deliveries %+v, want one about %q", d, tc.want)
			}
		})
	}
}

// Data that cannot be rendered fails the whole run, which stores nothing:
// the bus writes its events again one at a time, and the one at fault
// fails alone. A store that fails is the error too.
func TestFanOutFailures(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	unrenderable := command.PublicEvent{ID: "evt_2", Type: created, AccountID: acme, CreatedAt: t0,
		Data: map[string]any{"shipping_channel": map[string]any{"id": "ch_1", "weight": func() {}}}}
	run := []command.PublicEvent{channelEvent("evt_1", created, acme, "ch_1", t0), unrenderable, channelEvent("evt_3", created, acme, "ch_2", t0)}
	err := f.fanOut.Handle(t.Context(), command.FanOutEvents{Events: run})
	if err == nil || !strings.Contains(err.Error(), "evt_2") || len(f.store.Deliveries()) != 0 || f.store.Signals() != 0 {
		t.Errorf("a run with unrenderable data: %v, %d deliveries, %d signals", err, len(f.store.Deliveries()), f.store.Signals())
	}
	for _, e := range run {
		err := f.fanOut.Handle(t.Context(), command.FanOutEvents{Events: []command.PublicEvent{e}})
		if (err != nil) != (e.ID == "evt_2") {
			t.Errorf("%s alone: %v", e.ID, err)
		}
	}
	if got := eventsOf(f.store.Deliveries()); !slices.Equal(got, []string{"evt_1", "evt_3"}) {
		t.Errorf("one at a time delivered %v, want the two that render", got)
	}
	f.store.Interfere(failingOn("FanOut"))
	if err := f.fanOut.Handle(t.Context(), command.FanOutEvents{Events: []command.PublicEvent{channelEvent("evt_4", created, acme, "ch_1", t0)}}); !errors.Is(err, errDatabase) {
		t.Errorf("failing store: %v", err)
	}
}

// A run fanned out at once makes what its events fanned out one after the
// other make: the same deliveries with the same ids, so each resource's
// events reach the receiver in the order they happened. A run signals the
// delivery workers once; an event the bus brings again, within the run or
// after it, adds nothing; an empty run does nothing.
func TestARunIsItsEventsOneAfterTheOther(t *testing.T) {
	t.Parallel()
	run := []command.PublicEvent{
		channelEvent("evt_1", created, acme, "ch_1", t0),
		channelEvent("evt_2", created, acme, "ch_2", t0),
		channelEvent("evt_3", updated, acme, "ch_1", t0),
		channelEvent("evt_2", created, acme, "ch_2", t0), // the same message twice
		channelEvent("evt_4", updated, globex, "ch_9", t0),
		channelEvent("evt_5", updated, acme, "ch_1", t0),
		channelEvent("evt_6", updated, acme, "ch_1", t0),
	}
	setUp := func(t *testing.T) *fixture {
		f := newFixture()
		f.subscribed(t, acme, "wh_all", created, updated)
		f.subscribed(t, acme, "wh_updates", updated)
		f.subscribed(t, globex, "wh_globex", updated)
		return f
	}
	together, apart := setUp(t), setUp(t)
	if err := together.fanOut.Handle(t.Context(), command.FanOutEvents{}); err != nil || together.store.Signals() != 0 {
		t.Fatalf("an empty run: %v, %d signals", err, together.store.Signals())
	}
	if err := together.fanOut.Handle(t.Context(), command.FanOutEvents{Events: run}); err != nil {
		t.Fatal(err)
	}
	for _, e := range run {
		if err := apart.fanOut.Handle(t.Context(), command.FanOutEvents{Events: []command.PublicEvent{e}}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := together.store.Deliveries(), apart.store.Deliveries(); !reflect.DeepEqual(got, want) || len(got) != 9 {
		t.Fatalf("fanned out together:\n%+v\none by one:\n%+v\nwant the same 9", got, want)
	}
	if n := together.store.Signals(); n != 1 {
		t.Errorf("the run signalled %d times, want once", n)
	}
	if err := together.fanOut.Handle(t.Context(), command.FanOutEvents{Events: run[2:]}); err != nil {
		t.Fatal(err)
	}
	if n, signals := len(together.store.Deliveries()), together.store.Signals(); n != 9 || signals != 1 {
		t.Errorf("the run's tail again: %d deliveries, %d signals, want 9 and 1", n, signals)
	}

	for together.deliverDue(t) > 0 {
	}
	byReceiver := map[string][]string{}
	for _, r := range together.sender.requests() {
		var d struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(r.Body, &d); err != nil {
			t.Fatal(err)
		}
		byReceiver[r.URL] = append(byReceiver[r.URL], d.ID)
	}
	want := map[string][]string{
		"https://hooks.example.com/wh_all":     {"evt_1", "evt_2", "evt_3", "evt_5", "evt_6"},
		"https://hooks.example.com/wh_updates": {"evt_3", "evt_5", "evt_6"},
		"https://hooks.example.com/wh_globex":  {"evt_4"},
	}
	for url, events := range want {
		if got := byReceiver[url]; !slices.Equal(got, events) {
			t.Errorf("%s received %v, want %v", url, got, events)
		}
	}
}

func eventsOf(ds []domain.Delivery) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.EventID)
	}
	return out
}
