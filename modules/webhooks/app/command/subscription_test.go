package command_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/fault"
)

func TestCreateSubscriptionStoresItAsGiven(t *testing.T) {
	t.Parallel()
	f := newFixture()
	err := f.create.Handle(t.Context(), command.CreateSubscription{AccountID: acme, SubscriptionID: "wh_1", Fields: domain.Fields{
		Name: "Orders", URL: "https://hooks.example.com/shipd?x=1", Events: []string{created, updated, created},
		Secret: "chosen-secret", Active: false}})
	if err != nil {
		t.Fatal(err)
	}
	want := domain.Stored{ID: "wh_1", AccountID: acme, Name: "Orders", URL: "https://hooks.example.com/shipd?x=1",
		Events: []string{created, updated}, Secret: "chosen-secret", Active: false, Version: 1, CreatedAt: t0, UpdatedAt: t0}
	if got := f.subscription(t, "wh_1").Stored(); !reflect.DeepEqual(got, want) {
		t.Fatalf("stored %+v, want %+v", got, want)
	}
	f.store.Interfere(failingOn("Add"))
	if err := f.create.Handle(t.Context(), command.CreateSubscription{AccountID: acme, SubscriptionID: "wh_2", Fields: domain.Fields{
		Name: "Other", URL: "https://hooks.example.com/other", Events: []string{created}, Secret: "chosen-secret"}}); !errors.Is(err, errDatabase) {
		t.Fatalf("failing repository: %v", err)
	}
}

// Each case changes wh_1, acme's active subscription to created with the
// secret "secret-wh_1" (version 1, made at t0), an hour later.
func TestUpdateSubscription(t *testing.T) {
	t.Parallel()
	later := t0.Add(time.Hour)
	base := domain.Stored{ID: "wh_1", AccountID: acme, Name: "wh_1", URL: "https://hooks.example.com/wh_1", Events: []string{created},
		Secret: "secret-wh_1", Active: true, Version: 1, CreatedAt: t0, UpdatedAt: t0}
	changed := func(f func(*domain.Stored)) domain.Stored {
		s := base
		s.Events = slices.Clone(base.Events)
		s.Version, s.UpdatedAt = 2, later
		f(&s)
		return s
	}
	cases := []struct {
		name    string
		account string
		id      string
		change  domain.Change
		kind    fault.Kind // 0: the change is made
		want    domain.Stored
	}{
		{name: "every field", account: acme, id: "wh_1",
			change: domain.Change{Name: new("Orders"), URL: new("https://other.example.com/h"), Events: []string{updated, updated},
				Secret: "new-secret", Active: new(false)},
			want: changed(func(s *domain.Stored) {
				s.Name, s.URL, s.Events, s.Secret, s.Active = "Orders", "https://other.example.com/h", []string{updated}, "new-secret", false
			})},
		{name: "an empty secret keeps the secret", account: acme, id: "wh_1", change: domain.Change{Name: new("Orders")},
			want: changed(func(s *domain.Stored) { s.Name = "Orders" })},
		{name: "another account's", account: globex, id: "wh_1", change: domain.Change{Name: new("Stolen")},
			kind: fault.KindForbidden, want: base},
		{name: "missing", account: acme, id: "wh_missing", change: domain.Change{Name: new("x")}, kind: fault.KindNotFound, want: base},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.subscribed(t, acme, "wh_1", created)
			f.clock.Set(later)
			err := f.update.Handle(t.Context(), command.UpdateSubscription{AccountID: tc.account, ID: tc.id, Change: tc.change})
			if tc.kind == 0 && err != nil || tc.kind != 0 && !fault.Is(err, tc.kind) {
				t.Fatalf("error %v, want a fault of kind %d", err, tc.kind)
			}
			if got := f.subscription(t, "wh_1").Stored(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("stored %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Pausing cancels what is pending, for good: resuming delivers new events
// only.
func TestPausingCancelsPendingDeliveries(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.subscribed(t, acme, "wh_2", created)
	f.happened(t, "evt_1", created, acme, "ch_1")
	if err := f.update.Handle(t.Context(), command.UpdateSubscription{AccountID: acme, ID: "wh_1", Change: domain.Change{Active: new(false)}}); err != nil {
		t.Fatal(err)
	}
	if err := f.update.Handle(t.Context(), command.UpdateSubscription{AccountID: acme, ID: "wh_1", Change: domain.Change{Active: new(true)}}); err != nil {
		t.Fatal(err)
	}
	f.happened(t, "evt_2", created, acme, "ch_2")
	var got []string
	for _, d := range f.claim(t) {
		got = append(got, d.SubscriptionID+":"+d.EventID)
	}
	if want := []string{"wh_1:evt_2", "wh_2:evt_1", "wh_2:evt_2"}; !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("due %v, want %v", got, want)
	}
	for _, d := range f.store.Deliveries() {
		if d.SubscriptionID == "wh_1" && d.EventID == "evt_1" && d.Outcome != domain.OutcomeCancelled {
			t.Errorf("the paused delivery is %s", d.Outcome)
		}
	}
}

func TestDeleteSubscription(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.happened(t, "evt_1", created, acme, "ch_1")

	for _, tc := range []struct {
		account, id string
		kind        fault.Kind
	}{
		{globex, "wh_1", fault.KindForbidden},
		{acme, "wh_missing", fault.KindNotFound},
	} {
		if err := f.delete.Handle(t.Context(), command.DeleteSubscription{AccountID: tc.account, ID: tc.id}); !fault.Is(err, tc.kind) {
			t.Errorf("delete %s as %s: %v, want a fault of kind %d", tc.id, tc.account, err, tc.kind)
		}
	}
	if f.subscription(t, "wh_1").Version() != 1 || len(f.claim(t)) != 1 {
		t.Fatal("a refused delete changed the subscription or its deliveries")
	}
	if err := f.delete.Handle(t.Context(), command.DeleteSubscription{AccountID: acme, ID: "wh_1"}); err != nil {
		t.Fatal(err)
	}
	// Gone from the API, its pending delivery cancelled; its owner is still
	// known, for its logs.
	if _, err := f.store.Get(t.Context(), "wh_1"); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("after delete: %v", err)
	}
	if d := f.store.Deliveries(); len(d) != 1 || d[0].Outcome != domain.OutcomeCancelled || d[0].NextAttemptAt != nil {
		t.Errorf("deliveries after delete: %+v", d)
	}
	if owner, err := f.store.SubscriptionAccount(t.Context(), "wh_1"); owner != acme || err != nil {
		t.Errorf("owner after delete: %q (%v)", owner, err)
	}
	if err := f.delete.Handle(t.Context(), command.DeleteSubscription{AccountID: acme, ID: "wh_1"}); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("deleting again: %v", err)
	}
	if err := f.update.Handle(t.Context(), command.UpdateSubscription{AccountID: acme, ID: "wh_1", Change: domain.Change{Active: new(true)}}); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("updating the deleted subscription: %v", err)
	}
}

func TestSubscriptionCommandsPassOnTheRepositorysFailure(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.store.Interfere(failingOn("Update"))
	if err := f.update.Handle(t.Context(), command.UpdateSubscription{AccountID: acme, ID: "wh_1"}); !errors.Is(err, errDatabase) {
		t.Errorf("update: %v", err)
	}
	f.store.Interfere(failingOn("Delete"))
	if err := f.delete.Handle(t.Context(), command.DeleteSubscription{AccountID: acme, ID: "wh_1"}); !errors.Is(err, errDatabase) {
		t.Errorf("delete: %v", err)
	}
}
