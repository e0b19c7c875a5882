// Package repositorytest is the contract of the channels module's
// domain.Repository as one suite, run against the PostgreSQL repository (on
// a real database) and against the in-memory one the app-layer tests use,
// so a fake that drifts from the real repository fails here, not in
// production (ADR 0037).
package repositorytest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/contracttest"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/messaging/outboxtest"

	tracking "shipd/modules/tracking/contract"
)

// Subject is a repository under test and what it wrote to the outbox.
type Subject struct {
	Repo domain.Repository
	// Written returns every event the repository published so far, in
	// order; Sent every command it sent to another module.
	Written, Sent func(t *testing.T) []outboxtest.Message
}

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// testProvider is the provider "test": a number of retries and a secret
// token.
type testProvider struct{}

func (testProvider) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: "test", Settings: []carrier.Setting{
		{Key: "retries", Type: carrier.TypeInteger},
		{Key: "token", Type: carrier.TypeString, Required: true, Secret: true},
	}}
}

func (testProvider) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

// Providers are the providers the suite's channels use.
var Providers = carrier.NewRegistry(testProvider{})

func ptr[T any](v T) *T { return &v }

func newChannel(t *testing.T, id, account, name string) *domain.Channel {
	t.Helper()
	ch, err := domain.NewChannel(id, account, name, "the "+name, "test", map[string]any{"retries": 3.0, "token": "x"}, Providers, t0)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func event(ch *domain.Channel) contract.ChannelEvent {
	return contract.ChannelEvent{AccountID: ch.AccountID(), Version: ch.Version(), OccurredAt: t0,
		ShippingChannel: contract.ShippingChannelSnapshot(ch.Snapshot())}
}

func add(t *testing.T, s Subject, account, name string) *domain.Channel {
	t.Helper()
	ch := newChannel(t, ids.New(ids.ShippingChannel), account, name)
	if err := s.Repo.Add(t.Context(), ch, contract.ShippingChannelCreated{ChannelEvent: event(ch)}); err != nil {
		t.Fatal(err)
	}
	return ch
}

func get(t *testing.T, s Subject, id string) domain.Stored {
	t.Helper()
	ch, err := s.Repo.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return ch.Stored()
}

// onField reports whether err is a validation fault on field.
func onField(err error, field string) bool {
	f, ok := fault.As(err)
	return ok && f.Kind == fault.KindValidation && len(f.Fields[field]) > 0
}

func wantNames(t *testing.T, s Subject, want ...string) {
	t.Helper()
	outboxtest.WantNames(t, "written", s.Written(t), want...)
}

// Run holds the repository newSubject makes (an empty one for each test)
// to the contract of domain.Repository.
func Run(t *testing.T, newSubject func(t *testing.T) Subject) {
	contracttest.Run(t, newSubject, []contracttest.Case[Subject]{
		{Name: "AddedIsReadBackAsStored", Test: addedIsReadBackAsStored},
		{Name: "MissingIsNotFound", Test: missingIsNotFound},
		{Name: "ANameIsTheAccountsOnce", Test: aNameIsTheAccountsOnce},
		{Name: "ATakenIdIsAnErrorNoFault", Test: aTakenIdIsAnErrorNoFault},
		{Name: "UpdateSavesAChangeWithEvents", Test: updateSavesAChangeWithEvents},
		{Name: "UpdateWithoutEventsSavesNothing", Test: updateWithoutEventsSavesNothing},
		{Name: "AFailedUpdateSavesNothing", Test: aFailedUpdateSavesNothing},
		{Name: "DeleteRemovesAndVetoKeeps", Test: deleteRemovesAndVetoKeeps},
		{Name: "ADeletionStopsTracking", Test: aDeletionStopsTracking},
		{Name: "ConcurrentUpdatesAreSerial", Test: concurrentUpdatesAreSerial},
	})
}

// What Add stored is what Get reads: every field, settings as a JSON round
// trip gives them, secret keys known, in UTC; the event is written with it.
func addedIsReadBackAsStored(t *testing.T, s Subject) {
	ch := newChannel(t, ids.New(ids.ShippingChannel), "acc_1", "Main")
	ch.ValidationFailed("bad token")
	want := ch.Stored()
	if err := s.Repo.Add(t.Context(), ch, contract.ShippingChannelCreated{ChannelEvent: event(ch)}); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, want.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	wantNames(t, s, contract.EventCreated)
	msgs := s.Written(t)
	if len(msgs) != 1 || !outboxtest.SameJSON(t, msgs[0].Payload, contract.ShippingChannelCreated{ChannelEvent: event(ch)}) {
		t.Errorf("written %s", msgs)
	}
}

// A channel that is not there is fault.NotFound to Get, Update and Delete,
// and nothing is written.
func missingIsNotFound(t *testing.T, s Subject) {
	ctx := t.Context()
	called := false
	fn := func(*domain.Channel) ([]domain.Event, error) { called = true; return nil, nil }
	missing := ids.New(ids.ShippingChannel)
	errs := map[string]error{
		"Get":    func() error { _, err := s.Repo.Get(ctx, missing); return err }(),
		"Update": func() error { _, err := s.Repo.Update(ctx, missing, fn); return err }(),
		"Delete": s.Repo.Delete(ctx, missing, fn),
	}
	contracttest.WantNotFound(t, "a missing channel", errs, called)
	wantNames(t, s)
}

// A name is unique within an account, on Add and on Update: a validation
// fault on "name"; another account may have it.
func aNameIsTheAccountsOnce(t *testing.T, s Subject) {
	ctx := t.Context()
	add(t, s, "acc_1", "Main")
	second := add(t, s, "acc_1", "Second")
	err := s.Repo.Add(ctx, newChannel(t, ids.New(ids.ShippingChannel), "acc_1", "Main"))
	if !onField(err, "name") {
		t.Errorf("a taken name on add: %v", err)
	}
	add(t, s, "acc_2", "Main")
	_, err = s.Repo.Update(ctx, second.ID(), func(ch *domain.Channel) ([]domain.Event, error) {
		if err := ch.Edit(domain.Edit{Name: ptr("Main")}, Providers); err != nil {
			t.Errorf("renaming: %v", err)
		}
		ch.Touch(t0.Add(time.Second))
		return []domain.Event{contract.ShippingChannelUpdated{ChannelEvent: event(ch)}}, nil
	})
	if !onField(err, "name") {
		t.Errorf("renamed to a taken name: %v", err)
	}
	if got := get(t, s, second.ID()); got.Name != "Second" || got.Version != 1 {
		t.Errorf("after a refused rename: %q version %d", got.Name, got.Version)
	}
	wantNames(t, s, contract.EventCreated, contract.EventCreated, contract.EventCreated)
}

// An id that is taken is the primary key's violation: an error, not a fault
// a client could be shown, and nothing is written.
func aTakenIdIsAnErrorNoFault(t *testing.T, s Subject) {
	ch := add(t, s, "acc_1", "Main")
	err := s.Repo.Add(t.Context(), newChannel(t, ch.ID(), "acc_1", "Other"), contract.ShippingChannelCreated{ChannelEvent: event(ch)})
	if _, isFault := fault.As(err); err == nil || isFault {
		t.Errorf("a taken id: %v, want an error that is no fault", err)
	}
	wantNames(t, s, contract.EventCreated)
}

// Update hands fn the stored channel, saves what it changed with the events
// it names, and returns the saved channel.
func updateSavesAChangeWithEvents(t *testing.T, s Subject) {
	ch := add(t, s, "acc_1", "Main")
	var seen domain.Stored
	out, err := s.Repo.Update(t.Context(), ch.ID(), func(c *domain.Channel) ([]domain.Event, error) {
		seen = c.Stored()
		if err := c.Edit(domain.Edit{Settings: map[string]any{"retries": 5.0, "token": domain.MaskedSecret}}, Providers); err != nil {
			return nil, err
		}
		c.ValidationPassed(t0.Add(time.Minute))
		c.Touch(t0.Add(time.Minute))
		return []domain.Event{contract.ShippingChannelUpdated{ChannelEvent: event(c)}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, ch.Stored()) {
		t.Errorf("fn saw\n%+v\nwant\n%+v", seen, ch.Stored())
	}
	got := get(t, s, ch.ID())
	if !reflect.DeepEqual(got, out.Stored()) {
		t.Errorf("read back\n%+v\nUpdate returned\n%+v", got, out.Stored())
	}
	if got.Version != 2 || got.Settings["retries"] != 5.0 || got.Settings["token"] != "x" || !got.SecretKeys["token"] ||
		got.ValidatedAt == nil || !got.ValidatedAt.Equal(t0.Add(time.Minute)) || !got.UpdatedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("after the update: %+v", got)
	}
	wantNames(t, s, contract.EventCreated, contract.EventUpdated)
}

// A change that names no event is not saved (nothing a client sees may
// change without an event saying so), though Update returns it as fn left it.
func updateWithoutEventsSavesNothing(t *testing.T, s Subject) {
	ch := add(t, s, "acc_1", "Main")
	out, err := s.Repo.Update(t.Context(), ch.ID(), func(c *domain.Channel) ([]domain.Event, error) {
		c.Touch(t0.Add(time.Hour))
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Version() != 2 {
		t.Errorf("Update returned version %d, want the changed channel's 2", out.Version())
	}
	if got := get(t, s, ch.ID()); !reflect.DeepEqual(got, ch.Stored()) {
		t.Errorf("a change without an event was saved: %+v", got)
	}
	wantNames(t, s, contract.EventCreated)
}

// When fn fails, its error is Update's and nothing is saved or written,
// whatever fn changed or named.
func aFailedUpdateSavesNothing(t *testing.T, s Subject) {
	ch := add(t, s, "acc_1", "Main")
	refuse := errors.New("refused")
	if _, err := s.Repo.Update(t.Context(), ch.ID(), func(c *domain.Channel) ([]domain.Event, error) {
		c.Touch(t0.Add(time.Hour))
		return []domain.Event{contract.ShippingChannelUpdated{ChannelEvent: event(c)}}, refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v, want fn's", err)
	}
	if got := get(t, s, ch.ID()); !reflect.DeepEqual(got, ch.Stored()) {
		t.Errorf("a failed update was saved: %+v", got)
	}
	wantNames(t, s, contract.EventCreated)
}

// Delete lets fn veto (nothing changes) or removes the channel with fn's
// events; its name is free again.
func deleteRemovesAndVetoKeeps(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := add(t, s, "acc_1", "Main")
	veto := errors.New("veto")
	if err := s.Repo.Delete(ctx, ch.ID(), func(*domain.Channel) ([]domain.Event, error) { return nil, veto }); !errors.Is(err, veto) {
		t.Errorf("vetoed delete: %v", err)
	}
	get(t, s, ch.ID())
	var seen string
	if err := s.Repo.Delete(ctx, ch.ID(), func(c *domain.Channel) ([]domain.Event, error) {
		seen = c.ID()
		c.Touch(t0.Add(time.Minute))
		return []domain.Event{contract.ShippingChannelDeleted{ChannelEvent: event(c)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if seen != ch.ID() {
		t.Errorf("fn saw %q", seen)
	}
	if _, err := s.Repo.Get(ctx, ch.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a deleted channel: %v", err)
	}
	wantNames(t, s, contract.EventCreated, contract.EventDeleted)
	if sent := s.Sent(t); len(sent) != 0 {
		t.Errorf("a deletion that asked nothing of tracking sent %v", outboxtest.Names(sent))
	}
	add(t, s, "acc_1", "Main")
}

// A deletion that stops its parcels' tracking (Channel.Deleted) sends the
// stop with it, once; a vetoed one sends nothing.
func aDeletionStopsTracking(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := add(t, s, "acc_1", "Main")
	veto := errors.New("veto")
	if err := s.Repo.Delete(ctx, ch.ID(), func(c *domain.Channel) ([]domain.Event, error) { c.Deleted(t0); return nil, veto }); !errors.Is(err, veto) {
		t.Errorf("vetoed delete: %v", err)
	}
	if sent := s.Sent(t); len(sent) != 0 {
		t.Errorf("a vetoed deletion sent %v", outboxtest.Names(sent))
	}
	if err := s.Repo.Delete(ctx, ch.ID(), func(c *domain.Channel) ([]domain.Event, error) {
		c.Deleted(t0.Add(time.Minute))
		return []domain.Event{contract.ShippingChannelDeleted{ChannelEvent: event(c)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	sent := s.Sent(t)
	want := tracking.StopTrackingChannel{AccountID: "acc_1", ChannelID: ch.ID()}
	if len(sent) != 1 || sent[0].Name != want.CommandName() || !outboxtest.SameJSON(t, sent[0].Payload, want) {
		t.Errorf("sent %s, want one %+v", sent, want)
	}
}

// Updates of one channel at the same time are applied one after the other:
// each fn sees the version the one before saved, and none is lost.
func concurrentUpdatesAreSerial(t *testing.T, s Subject) {
	ch := add(t, s, "acc_1", "Main")
	const n = 8
	contracttest.Concurrently(t, n, func(ctx context.Context) error {
		_, err := s.Repo.Update(ctx, ch.ID(), func(c *domain.Channel) ([]domain.Event, error) {
			c.Touch(t0.Add(time.Duration(c.Version()) * time.Second))
			return []domain.Event{contract.ShippingChannelUpdated{ChannelEvent: event(c)}}, nil
		})
		return err
	})
	if got := get(t, s, ch.ID()); got.Version != 1+n {
		t.Errorf("version %d after %d updates: some were lost", got.Version, n)
	}
	if got := s.Written(t); len(got) != 1+n {
		t.Errorf("%d messages written, want %d", len(got), 1+n)
	}
}
