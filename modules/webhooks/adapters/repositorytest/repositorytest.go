// Package repositorytest is the contract of the webhooks module's
// domain.Repository and query.SubscriptionList as one suite, run against
// the PostgreSQL adapters (on a real database) and against the in-memory
// store the app-layer tests use, so a fake that drifts from the real
// adapters fails here, not in production (ADR 0037). What a pause or a
// delete does to pending deliveries is read through command.Deliveries.
package repositorytest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/contracttest"
	"shipd/platform/fault"
	"shipd/platform/ids"
)

// Subject is a repository under test with the list and the delivery store
// over the same data.
type Subject struct {
	Repo       domain.Repository
	List       query.SubscriptionList
	Deliveries command.Deliveries
}

// T0 is when the suite's clock starts.
var T0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

var eventTypes = []string{"shipment.updated", "shipment.created"}

func ptr[T any](v T) *T { return &v }

func newSubscription(t *testing.T, account, name string, at time.Time) *domain.Subscription {
	t.Helper()
	sub, err := domain.NewSubscription(ids.New(ids.WebhookSub), account, domain.Fields{Name: name, URL: "https://receiver.example.test/" + name,
		Events: []string{"shipment.updated"}, Secret: "s3cret-of-" + name, Active: true}, eventTypes, at)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func add(t *testing.T, s Subject, account, name string, at time.Time) *domain.Subscription {
	t.Helper()
	sub := newSubscription(t, account, name, at)
	if err := s.Repo.Add(t.Context(), sub); err != nil {
		t.Fatal(err)
	}
	return sub
}

func get(t *testing.T, s Subject, id string) domain.Stored {
	t.Helper()
	sub, err := s.Repo.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return sub.Stored()
}

// fanOut makes one delivery of a new event to each active subscription of
// the account that takes shipment.updated.
func fanOut(t *testing.T, s Subject, account string) int64 {
	t.Helper()
	e := command.OutboundEvent{ID: ids.New(ids.Event), Type: "shipment.updated", AccountID: account, CreatedAt: T0,
		ResourceID: ids.New(ids.Shipment), Body: []byte(`{"type":"shipment.updated"}`)}
	n, err := s.Deliveries.FanOut(t.Context(), []command.OutboundEvent{e}, T0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func due(t *testing.T, s Subject) int {
	t.Helper()
	n, err := s.Deliveries.Due(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Run holds the adapters newSubject makes (empty ones, on clk, for each
// test) to the contract of domain.Repository and query.SubscriptionList.
func Run(t *testing.T, newSubject func(t *testing.T, clk clock.Clock) Subject) {
	anHourIn := func(t *testing.T) Subject { return newSubject(t, clock.NewManual(T0.Add(time.Hour))) }
	contracttest.Run(t, anHourIn, []contracttest.Case[Subject]{
		{Name: "AddedIsReadBackAsStored", Test: addedIsReadBackAsStored},
		{Name: "MissingIsNotFound", Test: missingIsNotFound},
		{Name: "ATakenIdIsAnErrorNoFault", Test: aTakenIdIsAnErrorNoFault},
		{Name: "UpdateSavesWhatFnChanged", Test: updateSavesWhatFnChanged},
		{Name: "AFailedUpdateSavesNothing", Test: aFailedUpdateSavesNothing},
		{Name: "APauseCancelsPendingDeliveries", Test: aPauseCancelsPendingDeliveries},
		{Name: "DeleteLeavesATombstone", Test: deleteLeavesATombstone},
		{Name: "TheListIsTheAccountsNewestFirst", Test: theListIsTheAccountsNewestFirst},
		{Name: "ConcurrentUpdatesAreSerial", Test: concurrentUpdatesAreSerial},
		{Name: "AFanOutRunKeepsTheStreamsOrder", Test: aFanOutRunKeepsTheStreamsOrder},
	})
}

// What Add stored is what Get reads, the secret in the clear.
func addedIsReadBackAsStored(t *testing.T, s Subject) {
	sub := add(t, s, "acc_1", "main", T0)
	if got := get(t, s, sub.ID()); !reflect.DeepEqual(got, sub.Stored()) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, sub.Stored())
	}
}

// A subscription that is not there is fault.NotFound to Get, Update and
// Delete, and fn is not called.
func missingIsNotFound(t *testing.T, s Subject) {
	ctx := t.Context()
	called := false
	fn := func(*domain.Subscription) error { called = true; return nil }
	missing := ids.New(ids.WebhookSub)
	errs := map[string]error{
		"Get":    func() error { _, err := s.Repo.Get(ctx, missing); return err }(),
		"Update": func() error { _, err := s.Repo.Update(ctx, missing, fn); return err }(),
		"Delete": s.Repo.Delete(ctx, missing, fn),
	}
	contracttest.WantNotFound(t, "a missing subscription", errs, called)
}

// A taken id is the primary key's violation: an error, not a fault.
func aTakenIdIsAnErrorNoFault(t *testing.T, s Subject) {
	sub := add(t, s, "acc_1", "main", T0)
	again := newSubscription(t, "acc_1", "other", T0).Stored()
	again.ID = sub.ID()
	err := s.Repo.Add(t.Context(), domain.Restore(again))
	if _, isFault := fault.As(err); err == nil || isFault {
		t.Errorf("a taken id: %v, want an error that is no fault", err)
	}
	if got := get(t, s, sub.ID()); got.Name != "main" {
		t.Errorf("the taken id's subscription became %q", got.Name)
	}
}

// Update hands fn the stored subscription, saves what it changed and
// returns it.
func updateSavesWhatFnChanged(t *testing.T, s Subject) {
	sub := add(t, s, "acc_1", "main", T0)
	var seen domain.Stored
	out, err := s.Repo.Update(t.Context(), sub.ID(), func(sub *domain.Subscription) error {
		seen = sub.Stored()
		return sub.Apply(domain.Change{Name: ptr("renamed"), Events: []string{"shipment.created", "shipment.updated"}, Secret: "an0ther-secret"},
			eventTypes, T0.Add(time.Minute))
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, sub.Stored()) {
		t.Errorf("fn saw\n%+v\nwant\n%+v", seen, sub.Stored())
	}
	got := get(t, s, sub.ID())
	if !reflect.DeepEqual(got, out.Stored()) {
		t.Errorf("read back\n%+v\nUpdate returned\n%+v", got, out.Stored())
	}
	if got.Name != "renamed" || got.Secret != "an0ther-secret" || got.Version != 2 || len(got.Events) != 2 || !got.UpdatedAt.Equal(T0.Add(time.Minute)) {
		t.Errorf("after the update: %+v", got)
	}
}

// When fn fails, its error is Update's and nothing is saved.
func aFailedUpdateSavesNothing(t *testing.T, s Subject) {
	sub := add(t, s, "acc_1", "main", T0)
	refuse := errors.New("refused")
	if _, err := s.Repo.Update(t.Context(), sub.ID(), func(sub *domain.Subscription) error {
		if err := sub.Apply(domain.Change{Name: ptr("renamed"), Active: ptr(false)}, eventTypes, T0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		return refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v, want fn's", err)
	}
	if got := get(t, s, sub.ID()); !reflect.DeepEqual(got, sub.Stored()) {
		t.Errorf("a failed update was saved: %+v", got)
	}
}

// A subscription left inactive has its pending deliveries cancelled with
// the change; resuming it brings none back; another subscription's stay.
func aPauseCancelsPendingDeliveries(t *testing.T, s Subject) {
	ctx := t.Context()
	paused, other := add(t, s, "acc_1", "paused", T0), add(t, s, "acc_1", "other", T0)
	if n := fanOut(t, s, "acc_1"); n != 2 {
		t.Fatalf("fanned out to %d, want 2", n)
	}
	if _, err := s.Repo.Update(ctx, paused.ID(), func(sub *domain.Subscription) error {
		return sub.Apply(domain.Change{Name: ptr("still on")}, eventTypes, T0)
	}); err != nil {
		t.Fatal(err)
	}
	if n := due(t, s); n != 2 {
		t.Errorf("%d due after an edit that left it active, want 2", n)
	}
	setActive := func(active bool) {
		if _, err := s.Repo.Update(ctx, paused.ID(), func(sub *domain.Subscription) error {
			return sub.Apply(domain.Change{Active: &active}, eventTypes, T0)
		}); err != nil {
			t.Fatal(err)
		}
	}
	setActive(false)
	if n := due(t, s); n != 1 {
		t.Errorf("%d due after the pause, want the other subscription's 1", n)
	}
	setActive(true)
	claimed, err := s.Deliveries.Claim(ctx, 10, time.Minute)
	if err != nil || len(claimed) != 1 || claimed[0].SubscriptionID != other.ID() {
		t.Errorf("after resuming claimed %+v (%v), want the other subscription's delivery only", claimed, err)
	}
	if get(t, s, paused.ID()).Active != true {
		t.Error("the resume was not saved")
	}
}

// Delete lets fn veto (nothing changes), else removes the subscription
// from the API (Get, Update, Delete and the list find nothing), keeps its
// id taken and cancels its pending deliveries.
func deleteLeavesATombstone(t *testing.T, s Subject) {
	ctx := t.Context()
	sub := add(t, s, "acc_1", "main", T0)
	fanOut(t, s, "acc_1")
	veto := errors.New("veto")
	if err := s.Repo.Delete(ctx, sub.ID(), func(*domain.Subscription) error { return veto }); !errors.Is(err, veto) {
		t.Errorf("vetoed delete: %v", err)
	}
	if get(t, s, sub.ID()); due(t, s) != 1 {
		t.Error("a vetoed delete cancelled the delivery")
	}
	if err := s.Repo.Delete(ctx, sub.ID(), func(*domain.Subscription) error { return nil }); err != nil {
		t.Fatal(err)
	}
	keep := func(*domain.Subscription) error { return nil }
	for op, err := range map[string]error{
		"Get":    func() error { _, err := s.Repo.Get(ctx, sub.ID()); return err }(),
		"Update": func() error { _, err := s.Repo.Update(ctx, sub.ID(), keep); return err }(),
		"Delete": s.Repo.Delete(ctx, sub.ID(), keep),
	} {
		if !fault.Is(err, fault.KindNotFound) {
			t.Errorf("%s of a deleted subscription: %v, want not found", op, err)
		}
	}
	if n := due(t, s); n != 0 {
		t.Errorf("%d due after the delete, want 0", n)
	}
	if page, err := s.List.ListSubscriptions(ctx, query.ListSubscriptions{AccountID: "acc_1", Limit: 10}); err != nil || page.Total != 0 || len(page.Records) != 0 {
		t.Errorf("the list after the delete: %+v (%v)", page, err)
	}
	if err := s.Repo.Add(ctx, sub); err == nil {
		t.Error("a deleted subscription's id was taken again")
	}
}

// The list is the account's subscriptions but the deleted, newest first
// (then by id, highest first), a page of them and the count of all, each
// as the API shows it, secret masked.
func theListIsTheAccountsNewestFirst(t *testing.T, s Subject) {
	ctx := t.Context()
	old := add(t, s, "acc_1", "old", T0)
	b, c := add(t, s, "acc_1", "b", T0.Add(time.Second)), add(t, s, "acc_1", "c", T0.Add(time.Second))
	add(t, s, "acc_2", "foreign", T0.Add(time.Hour))
	gone := add(t, s, "acc_1", "gone", T0.Add(time.Hour))
	if err := s.Repo.Delete(ctx, gone.ID(), func(*domain.Subscription) error { return nil }); err != nil {
		t.Fatal(err)
	}
	newer := []string{b.ID(), c.ID()}
	slices.Sort(newer)
	want := []string{newer[1], newer[0], old.ID()}
	for _, tc := range []struct {
		offset, limit int
		want          []string
	}{{0, 10, want}, {1, 1, want[1:2]}, {5, 10, nil}} {
		page, err := s.List.ListSubscriptions(ctx, query.ListSubscriptions{AccountID: "acc_1", Offset: tc.offset, Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range page.Records {
			got = append(got, r.ID)
			if r.Secret != contract.MaskedSecret {
				t.Errorf("%s listed its secret %q", r.ID, r.Secret)
			}
		}
		if !slices.Equal(got, tc.want) || page.Total != 3 {
			t.Errorf("offset %d limit %d: %v of %d, want %v of 3", tc.offset, tc.limit, got, page.Total, tc.want)
		}
	}
	page, err := s.List.ListSubscriptions(ctx, query.ListSubscriptions{AccountID: "acc_1", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if r := page.Records[2]; r.Name != "old" || r.URL != "https://receiver.example.test/old" || !slices.Equal(r.Events, []string{"shipment.updated"}) ||
		!r.Active || !r.CreatedAt.Equal(T0) || !r.UpdatedAt.Equal(T0) {
		t.Errorf("listed %+v", r)
	}
}

// Updates of one subscription at the same time are applied one after the
// other: each fn sees the version the one before saved, and none is lost.
func concurrentUpdatesAreSerial(t *testing.T, s Subject) {
	sub := add(t, s, "acc_1", "main", T0)
	const n = 8
	contracttest.Concurrently(t, n, func(ctx context.Context) error {
		_, err := s.Repo.Update(ctx, sub.ID(), func(sub *domain.Subscription) error {
			return sub.Apply(domain.Change{}, eventTypes, T0)
		})
		return err
	})
	if got := get(t, s, sub.ID()); got.Version != 1+n {
		t.Errorf("version %d after %d updates: some were lost", got.Version, n)
	}
}
