// Package repositorytest is the contract of the tracking module's
// domain.Repository and command.CheckQueue as one suite, run against the
// PostgreSQL adapters (on a real database) and against the in-memory ones
// the app-layer tests use, so a fake that drifts from the real adapter fails
// here, not in production (ADR 0037).
package repositorytest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/contracttest"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/messaging/outboxtest"
)

// Subject is a repository under test, its check queue (on the clock the
// suite moves) and what the repository wrote to the outbox.
type Subject struct {
	Repo  domain.Repository
	Queue command.CheckQueue
	// Written returns every message the repository wrote so far, in order.
	Written func(t *testing.T) []outboxtest.Message

	clk *clock.Manual // the suite's clock, the one the subject was made on
}

// T0 is when the suite's clock starts.
var T0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

var hub = carrier.TrackingEvent{Code: "HUB", Status: carrier.StatusInTransit, Location: "Praha", Description: "At the hub", At: T0.Add(time.Hour)}

// parcel is a new parcel of the account tracked through the channel.
func parcel(t *testing.T, account, channel, number string) *domain.Parcel {
	t.Helper()
	hours, checks := 6, 20
	p, err := domain.New(ids.New(ids.TrackingParcel), account, "fake", domain.Request{TrackingNumber: number, ChannelID: channel,
		CheckDelayHours: &hours, MaxChecks: &checks, Recipient: domain.Recipient{Name: "Jana"},
		ExternalData: map[string]any{"order": "A-1", "n": 2.0}}, T0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func updated(p *domain.Parcel) domain.Event {
	st := p.Stored()
	return contract.TrackingParcelUpdated{TrackingParcelEvent: contract.TrackingParcelEvent{AccountID: st.AccountID, Version: st.Version}}
}

func add(t *testing.T, s Subject, account, channel, number string) *domain.Parcel {
	t.Helper()
	p := parcel(t, account, channel, number)
	if err := s.Repo.Add(t.Context(), p, contract.TrackingParcelCreated{}); err != nil {
		t.Fatal(err)
	}
	return p
}

func stored(t *testing.T, s Subject, id string) domain.Stored {
	t.Helper()
	st, err := s.Repo.GetStored(t.Context(), id)
	if err != nil {
		t.Fatalf("GetStored %s: %v", id, err)
	}
	return st
}

func wantNames(t *testing.T, s Subject, want ...string) {
	t.Helper()
	outboxtest.WantNames(t, "written", s.Written(t), want...)
}

// sameStored compares states as a database round trip keeps them: times
// by instant.
func sameStored(a, b domain.Stored) bool {
	norm := func(s domain.Stored) domain.Stored {
		s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
		for _, p := range []**time.Time{&s.LastCheckedAt, &s.NextCheckAt, &s.CODCollectedAt} {
			if *p != nil {
				u := (*p).UTC()
				*p = &u
			}
		}
		return s
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func checked(p *domain.Parcel, events ...carrier.TrackingEvent) {
	p.Checked(carrier.Tracking{Recognized: true, Events: events}, T0.Add(2*time.Hour), time.Hour)
}

func claimedIDs(t *testing.T, s Subject, limit int) []string {
	t.Helper()
	got, err := s.Queue.Claim(t.Context(), limit, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(got))
	for i, st := range got {
		out[i] = st.ID
	}
	return out
}

// Run holds the adapters newSubject makes (empty ones, on clk, for each
// test) to the contract of domain.Repository and command.CheckQueue.
func Run(t *testing.T, newSubject func(t *testing.T, clk clock.Clock) Subject) {
	onItsClock := func(t *testing.T) Subject {
		clk := clock.NewManual(T0)
		s := newSubject(t, clk)
		s.clk = clk
		return s
	}
	contracttest.Run(t, onItsClock, []contracttest.Case[Subject]{
		{Name: "AddedIsReadBackAsStored", Test: addedIsReadBackAsStored},
		{Name: "MissingIsNotFound", Test: missingIsNotFound},
		{Name: "ANumberIsTrackedOncePerChannel", Test: aNumberIsTrackedOncePerChannel},
		{Name: "ATakenIdIsAnErrorNoFault", Test: aTakenIdIsAnErrorNoFault},
		{Name: "AddAllMakesTheFirstOfEachNumberInOrder", Test: addAllMakesTheFirstOfEachNumberInOrder},
		{Name: "AddAllKeepsAllOrNone", Test: addAllKeepsAllOrNone},
		{Name: "UpdateSavesEveryCheckAndEachCarrierEventOnce", Test: updateSavesEveryCheckAndEachCarrierEventOnce},
		{Name: "AFailedUpdateSavesNothing", Test: aFailedUpdateSavesNothing},
		{Name: "UpdateAllAppliesInOrderAndSkipsTheGone", Test: updateAllAppliesInOrderAndSkipsTheGone},
		{Name: "UpdateAllKeepsAllOrNone", Test: updateAllKeepsAllOrNone},
		{Name: "TrackedThroughListsTheChannelsCheckedParcels", Test: trackedThroughListsTheChannelsCheckedParcels},
		{Name: "DeleteRemovesAndVetoKeeps", Test: deleteRemovesAndVetoKeeps},
		{Name: "AClaimIsALease", Test: aClaimIsALease},
		{Name: "ARecordedCheckReleasesItsLease", Test: aRecordedCheckReleasesItsLease},
		{Name: "ConcurrentUpdatesAreSerial", Test: concurrentUpdatesAreSerial},
	})
}

// What Add stored is what Get and GetStored read, and the events are
// written with it.
func addedIsReadBackAsStored(t *testing.T, s Subject) {
	p := add(t, s, "acc_1", "ch_1", "TN1")
	got, err := s.Repo.Get(t.Context(), p.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !sameStored(got.Stored(), p.Stored()) || len(got.Updates()) != 0 {
		t.Errorf("Get read\n%+v\nwant\n%+v", got.Stored(), p.Stored())
	}
	if st := stored(t, s, p.ID()); !sameStored(st, p.Stored()) {
		t.Errorf("GetStored read\n%+v\nwant\n%+v", st, p.Stored())
	}
	wantNames(t, s, contract.EventCreated)
}

// A parcel that is not there is fault.NotFound to Get, GetStored, Update
// and Delete, and fn is not called.
func missingIsNotFound(t *testing.T, s Subject) {
	ctx := t.Context()
	called := false
	fn := func(*domain.Parcel) ([]domain.Event, error) { called = true; return nil, nil }
	missing := ids.New(ids.TrackingParcel)
	errs := map[string]error{
		"Get":       func() error { _, err := s.Repo.Get(ctx, missing); return err }(),
		"GetStored": func() error { _, err := s.Repo.GetStored(ctx, missing); return err }(),
		"Update":    func() error { _, err := s.Repo.Update(ctx, missing, fn); return err }(),
		"Delete":    s.Repo.Delete(ctx, missing, fn),
	}
	contracttest.WantNotFound(t, "a missing parcel", errs, called)
	wantNames(t, s)
}

// A number is tracked once per account and channel (a validation fault on
// tracking_number naming the parcel that tracks it) until that parcel is
// deleted; another channel or account may track it too.
func aNumberIsTrackedOncePerChannel(t *testing.T, s Subject) {
	ctx := t.Context()
	first := add(t, s, "acc_1", "ch_1", "TN1")
	err := s.Repo.Add(ctx, parcel(t, "acc_1", "ch_1", "TN1"), contract.TrackingParcelCreated{})
	if f, ok := fault.As(err); !ok || f.Kind != fault.KindValidation || len(f.Fields["tracking_number"]) == 0 ||
		!slices.ContainsFunc(f.Fields["tracking_number"], func(m string) bool { return len(m) > len(first.ID()) && m[len(m)-len(first.ID()):] == first.ID() }) {
		t.Errorf("a number tracked twice: %v", err)
	}
	add(t, s, "acc_1", "ch_2", "TN1")
	add(t, s, "acc_2", "ch_1", "TN1")
	if err := s.Repo.Delete(ctx, first.ID(), func(*domain.Parcel) ([]domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	add(t, s, "acc_1", "ch_1", "TN1")
	wantNames(t, s, contract.EventCreated, contract.EventCreated, contract.EventCreated, contract.EventCreated)
}

// A taken id is the primary key's violation: an error, not a fault.
func aTakenIdIsAnErrorNoFault(t *testing.T, s Subject) {
	p := add(t, s, "acc_1", "ch_1", "TN1")
	again, err := domain.New(p.ID(), "acc_1", "fake", domain.Request{TrackingNumber: "TN2", ChannelID: "ch_1"}, T0)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Repo.Add(t.Context(), again, contract.TrackingParcelCreated{})
	if _, isFault := fault.As(err); err == nil || isFault {
		t.Errorf("a taken id: %v, want an error that is no fault", err)
	}
	wantNames(t, s, contract.EventCreated)
}

// addition is a new parcel of the run and its created event, which names
// the parcel (so the order they were written in shows).
func addition(t *testing.T, account, channel, number string) domain.Addition {
	p := parcel(t, account, channel, number)
	return domain.Addition{Parcel: p, Events: []domain.Event{contract.TrackingParcelCreated{
		TrackingParcelEvent: contract.TrackingParcelEvent{AccountID: account, Version: 1, TrackingParcel: contract.TrackingParcelSnapshot{ID: p.ID()}}}}}
}

// writtenParcels are the parcels named by the events written, in order.
func writtenParcels(t *testing.T, s Subject) []string {
	t.Helper()
	var out []string
	for _, m := range s.Written(t) {
		var e struct {
			TrackingParcel struct{ ID string } `json:"tracking_parcel"`
		}
		if err := json.Unmarshal(m.Payload, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e.TrackingParcel.ID)
	}
	return out
}

// AddAll inserts each parcel whose number is not tracked yet, neither
// before the run nor by an earlier parcel of it, with its events in the
// order given; it returns the others, in order, and writes nothing of
// theirs. Added again (a redelivered run), it makes nothing. What it made
// is read back as stored, and is due for its first check.
func addAllMakesTheFirstOfEachNumberInOrder(t *testing.T, s Subject) {
	ctx := t.Context()
	add(t, s, "acc_1", "ch_1", "TN2")
	run := []domain.Addition{
		addition(t, "acc_1", "ch_1", "TN3"), addition(t, "acc_1", "ch_1", "TN2"), addition(t, "acc_1", "ch_1", "TN1"),
		addition(t, "acc_1", "ch_1", "TN3"), addition(t, "acc_1", "ch_2", "TN3"), addition(t, "acc_2", "ch_1", "TN3"),
	}
	kept, err := s.Repo.AddAll(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(as ...domain.Addition) []string {
		out := make([]string, len(as))
		for i, a := range as {
			out[i] = a.Parcel.ID()
		}
		return out
	}
	keptIDs := make([]string, len(kept))
	for i, p := range kept {
		keptIDs[i] = p.ID()
	}
	if want := ids(run[1], run[3]); !slices.Equal(keptIDs, want) {
		t.Errorf("passed over %v, want %v (TN2 tracked before, TN3 by the run's first)", keptIDs, want)
	}
	made := []domain.Addition{run[0], run[2], run[4], run[5]}
	// The first event is the one add wrote for the parcel tracked before.
	if got, want := writtenParcels(t, s), ids(made...); len(got) == 0 || !slices.Equal(got[1:], want) {
		t.Errorf("events written for %v, want the one before's and then %v", got, want)
	}
	for _, a := range made {
		if st := stored(t, s, a.Parcel.ID()); !sameStored(st, a.Parcel.Stored()) {
			t.Errorf("read back\n%+v\nwant\n%+v", st, a.Parcel.Stored())
		}
	}
	for _, a := range []domain.Addition{run[1], run[3]} {
		if _, err := s.Repo.GetStored(ctx, a.Parcel.ID()); !fault.Is(err, fault.KindNotFound) {
			t.Errorf("a parcel passed over was stored (%v)", err)
		}
	}
	if n, err := s.Queue.Due(ctx); err != nil || n != 5 {
		t.Errorf("%d parcels due (%v), want the one before and the four made", n, err)
	}
	again := []domain.Addition{addition(t, "acc_1", "ch_1", "TN3"), addition(t, "acc_1", "ch_1", "TN1")}
	if kept, err := s.Repo.AddAll(ctx, again); err != nil || len(kept) != 2 {
		t.Errorf("added again: passed over %d of 2 (%v)", len(kept), err)
	}
	if kept, err := s.Repo.AddAll(ctx, nil); err != nil || len(kept) != 0 {
		t.Errorf("an empty run: %v (%v)", kept, err)
	}
	if got := writtenParcels(t, s); len(got) != 5 {
		t.Errorf("%d events written, want the 5 of the first parcels alone", len(got))
	}
}

// A run that cannot be inserted whole (a taken id: an error, no fault) is
// inserted not at all, and none of its events are written.
func addAllKeepsAllOrNone(t *testing.T, s Subject) {
	ctx := t.Context()
	taken := add(t, s, "acc_1", "ch_1", "TN1")
	fresh := addition(t, "acc_1", "ch_1", "TN2")
	again, err := domain.New(taken.ID(), "acc_1", "fake", domain.Request{TrackingNumber: "TN3", ChannelID: "ch_1"}, T0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Repo.AddAll(ctx, []domain.Addition{fresh, {Parcel: again, Events: []domain.Event{contract.TrackingParcelCreated{}}}})
	if _, isFault := fault.As(err); err == nil || isFault {
		t.Errorf("a taken id in the run: %v, want an error that is no fault", err)
	}
	if _, err := s.Repo.GetStored(ctx, fresh.Parcel.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("part of a failed run was kept (%v)", err)
	}
	wantNames(t, s, contract.EventCreated)
}

// Update saves the change whether or not fn names events (a failed check
// names none, and is still recorded), with each carrier event kept once
// however often it is reported, in the order they happened; it returns what it saved.
func updateSavesEveryCheckAndEachCarrierEventOnce(t *testing.T, s Subject) {
	ctx := t.Context()
	p := add(t, s, "acc_1", "ch_1", "TN1")
	early := carrier.TrackingEvent{Code: "PICKED", Status: carrier.StatusInTransit, At: T0.Add(time.Minute)}
	for range 2 {
		if _, err := s.Repo.Update(ctx, p.ID(), func(p *domain.Parcel) ([]domain.Event, error) {
			checked(p, hub, early)
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := s.Repo.Update(ctx, p.ID(), func(p *domain.Parcel) ([]domain.Event, error) {
		p.CheckFailed("carrier away", T0.Add(3*time.Hour), time.Hour)
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Repo.Get(ctx, p.ID())
	if err != nil {
		t.Fatal(err)
	}
	st := got.Stored()
	if st.ChecksDone != 3 || st.LastCheckError != "carrier away" || st.Status != carrier.StatusInTransit || st.Version != 2 {
		t.Errorf("after three checks: %+v", st)
	}
	if !sameStored(st, out.Stored()) {
		t.Errorf("read back\n%+v\nUpdate returned\n%+v", st, out.Stored())
	}
	ups := got.Updates() // newest first
	if len(ups) != 2 || ups[0].CarrierCode != "HUB" || ups[1].CarrierCode != "PICKED" || ups[0].Location != "Praha" ||
		ups[0].Description != "At the hub" || ups[0].Status != carrier.StatusInTransit || !ups[0].At.Equal(hub.At) ||
		ups[1].ID == "" || ups[1].Fingerprint == "" {
		t.Errorf("status updates %+v, want HUB then PICKED (newest first), once each", ups)
	}
	wantNames(t, s, contract.EventCreated)
}

// When fn fails, its error is Update's and nothing is saved or written.
func aFailedUpdateSavesNothing(t *testing.T, s Subject) {
	p := add(t, s, "acc_1", "ch_1", "TN1")
	refuse := errors.New("refused")
	if _, err := s.Repo.Update(t.Context(), p.ID(), func(p *domain.Parcel) ([]domain.Event, error) {
		checked(p, hub)
		return []domain.Event{updated(p)}, refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v, want fn's", err)
	}
	got, err := s.Repo.Get(t.Context(), p.ID())
	if err != nil || !sameStored(got.Stored(), p.Stored()) || len(got.Updates()) != 0 {
		t.Errorf("a failed update was saved: %+v, %d updates (%v)", got.Stored(), len(got.Updates()), err)
	}
	if _, err := s.Repo.Update(t.Context(), p.ID(), func(p *domain.Parcel) ([]domain.Event, error) {
		_, err := p.Edit(nil, nil, nil, map[string]any{"bad": func() {}}, T0) // no JSON for a func
		return nil, err
	}); err == nil {
		t.Error("a state that cannot be stored was saved")
	}
	wantNames(t, s, contract.EventCreated)
}

// UpdateAll applies each change in the order given, skips a parcel that is
// gone, saves them with their status updates and writes their events.
func updateAllAppliesInOrderAndSkipsTheGone(t *testing.T, s Subject) {
	a, b := add(t, s, "acc_1", "ch_1", "TN1"), add(t, s, "acc_1", "ch_1", "TN2")
	var order []string
	change := func(id string) domain.Change {
		return domain.Change{ID: id, Apply: func(p *domain.Parcel) []domain.Event {
			order = append(order, id)
			checked(p, hub)
			return []domain.Event{updated(p)}
		}}
	}
	if err := s.Repo.UpdateAll(t.Context(), []domain.Change{change(b.ID()), change(ids.New(ids.TrackingParcel)), change(a.ID())}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{b.ID(), a.ID()}) {
		t.Errorf("applied %v, want %v", order, []string{b.ID(), a.ID()})
	}
	for _, id := range []string{a.ID(), b.ID()} {
		got, err := s.Repo.Get(t.Context(), id)
		if err != nil || got.Version() != 2 || len(got.Updates()) != 1 || got.Stored().ChecksDone != 1 {
			t.Errorf("%s after UpdateAll: %+v (%v)", id, got, err)
		}
	}
	if err := s.Repo.UpdateAll(t.Context(), nil); err != nil {
		t.Errorf("no changes: %v", err)
	}
	wantNames(t, s, contract.EventCreated, contract.EventCreated, contract.EventUpdated, contract.EventUpdated)
}

// A batch that cannot be saved whole is saved not at all.
func updateAllKeepsAllOrNone(t *testing.T, s Subject) {
	a, b := add(t, s, "acc_1", "ch_1", "TN1"), add(t, s, "acc_1", "ch_1", "TN2")
	good := domain.Change{ID: a.ID(), Apply: func(p *domain.Parcel) []domain.Event { checked(p, hub); return []domain.Event{updated(p)} }}
	unsavable := domain.Change{ID: b.ID(), Apply: func(p *domain.Parcel) []domain.Event {
		_, _ = p.Edit(nil, nil, nil, map[string]any{"bad": func() {}}, T0) // no JSON for a func; the error is the save's to find
		return []domain.Event{updated(p)}
	}}
	if err := s.Repo.UpdateAll(t.Context(), []domain.Change{good, unsavable}); err == nil {
		t.Fatal("a state that cannot be stored was saved")
	}
	if got, err := s.Repo.Get(t.Context(), a.ID()); err != nil || got.Version() != 1 || len(got.Updates()) != 0 {
		t.Errorf("part of a failed batch was kept: %+v (%v)", got, err)
	}
	wantNames(t, s, contract.EventCreated, contract.EventCreated)
}

// TrackedThrough lists, by id, the account's parcels of the channel whose
// checks go on.
func trackedThroughListsTheChannelsCheckedParcels(t *testing.T, s Subject) {
	ctx := t.Context()
	var want []string
	for _, n := range []string{"TN1", "TN2", "TN3"} {
		want = append(want, add(t, s, "acc_1", "ch_1", n).ID())
	}
	add(t, s, "acc_1", "ch_2", "TN1")
	add(t, s, "acc_2", "ch_1", "TN1")
	if _, err := s.Repo.Update(ctx, want[1], func(p *domain.Parcel) ([]domain.Event, error) {
		p.StopTracking("the channel is gone", T0)
		return []domain.Event{updated(p)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	want = slices.Delete(want, 1, 2)
	slices.Sort(want)
	got, err := s.Repo.TrackedThrough(ctx, "acc_1", "ch_1")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("tracked through ch_1: %v (%v), want %v", got, err, want)
	}
	if got, err := s.Repo.TrackedThrough(ctx, "acc_1", "ch_none"); err != nil || len(got) != 0 {
		t.Errorf("tracked through a channel of none: %v (%v)", got, err)
	}
}

// Delete lets fn veto (nothing changes) or removes the parcel, its status
// updates with it, and writes fn's events.
func deleteRemovesAndVetoKeeps(t *testing.T, s Subject) {
	ctx := t.Context()
	p := add(t, s, "acc_1", "ch_1", "TN1")
	if _, err := s.Repo.Update(ctx, p.ID(), func(p *domain.Parcel) ([]domain.Event, error) { checked(p, hub); return nil, nil }); err != nil {
		t.Fatal(err)
	}
	veto := errors.New("veto")
	if err := s.Repo.Delete(ctx, p.ID(), func(*domain.Parcel) ([]domain.Event, error) { return nil, veto }); !errors.Is(err, veto) {
		t.Errorf("vetoed delete: %v", err)
	}
	stored(t, s, p.ID())
	if err := s.Repo.Delete(ctx, p.ID(), func(p *domain.Parcel) ([]domain.Event, error) {
		if len(p.Updates()) != 1 {
			t.Errorf("fn saw %d updates, want 1", len(p.Updates()))
		}
		return []domain.Event{contract.TrackingParcelDeleted{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Repo.Get(ctx, p.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a deleted parcel: %v", err)
	}
	wantNames(t, s, contract.EventCreated, contract.EventDeleted)
}

// Claim leases due parcels, the longest overdue first, up to its limit;
// a leased parcel is not claimed again until its lease runs out or it is
// released; Due counts the due ones, leased or not.
func aClaimIsALease(t *testing.T, s Subject) {
	ctx := t.Context()
	late := add(t, s, "acc_1", "ch_1", "TN1") // due at T0
	later := parcel(t, "acc_1", "ch_1", "TN2")
	if err := s.Repo.Add(ctx, later); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Repo.Update(ctx, later.ID(), func(p *domain.Parcel) ([]domain.Event, error) {
		p.CheckFailed("away", T0, time.Minute) // due at T0+1m
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Queue.Due(ctx); err != nil || n != 1 {
		t.Errorf("due at T0: %d (%v), want 1", n, err)
	}
	s.clk.Advance(2 * time.Minute)
	if got := claimedIDs(t, s, 1); !slices.Equal(got, []string{late.ID()}) {
		t.Errorf("claimed %v, want the longest overdue %s", got, late.ID())
	}
	if got := claimedIDs(t, s, 10); !slices.Equal(got, []string{later.ID()}) {
		t.Errorf("claimed %v, want only the unleased %s", got, later.ID())
	}
	if got := claimedIDs(t, s, 10); len(got) != 0 {
		t.Errorf("claimed leased parcels again: %v", got)
	}
	if n, err := s.Queue.Due(ctx); err != nil || n != 2 {
		t.Errorf("due, leased: %d (%v), want 2", n, err)
	}
	if err := s.Queue.Release(ctx, []string{later.ID()}); err != nil {
		t.Fatal(err)
	}
	if got := claimedIDs(t, s, 10); !slices.Equal(got, []string{later.ID()}) {
		t.Errorf("after a release claimed %v, want %s", got, later.ID())
	}
	s.clk.Advance(2 * time.Minute) // both leases (a minute) run out
	if got := claimedIDs(t, s, 10); len(got) != 2 {
		t.Errorf("after the leases ran out claimed %v, want both", got)
	}
}

// Recording a check (Update or UpdateAll) ends the parcel's lease: it is
// claimed again when its next check is due, not when the lease runs out.
func aRecordedCheckReleasesItsLease(t *testing.T, s Subject) {
	ctx := t.Context()
	a, b := add(t, s, "acc_1", "ch_1", "TN1"), add(t, s, "acc_1", "ch_1", "TN2")
	claimed, err := s.Queue.Claim(ctx, 10, time.Hour)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %d (%v)", len(claimed), err)
	}
	for _, st := range claimed {
		if st.ID == a.ID() && !sameStored(st, a.Stored()) {
			t.Errorf("claimed\n%+v\nwant the parcel as stored\n%+v", st, a.Stored())
		}
	}
	due := func(p *domain.Parcel) { p.CheckFailed("away", T0, time.Second) }
	if _, err := s.Repo.Update(ctx, a.ID(), func(p *domain.Parcel) ([]domain.Event, error) { due(p); return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Repo.UpdateAll(ctx, []domain.Change{{ID: b.ID(), Apply: func(p *domain.Parcel) []domain.Event { due(p); return nil }}}); err != nil {
		t.Fatal(err)
	}
	s.clk.Advance(time.Minute)
	if got := claimedIDs(t, s, 10); len(got) != 2 {
		t.Errorf("claimed %v after the checks were recorded, want both again", got)
	}
}

// Updates of one parcel at the same time are applied one after the other:
// none is lost.
func concurrentUpdatesAreSerial(t *testing.T, s Subject) {
	p := add(t, s, "acc_1", "ch_1", "TN1")
	const n = 8
	contracttest.Concurrently(t, n, func(ctx context.Context) error {
		_, err := s.Repo.Update(ctx, p.ID(), func(p *domain.Parcel) ([]domain.Event, error) {
			p.CheckFailed("away", T0, time.Hour)
			return nil, nil
		})
		return err
	})
	if st := stored(t, s, p.ID()); st.ChecksDone != n {
		t.Errorf("%d checks recorded of %d: some were lost", st.ChecksDone, n)
	}
}
