package command_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/tracking/adapters/memory"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/usecase"
	"shipd/platform/usecase/usecasetest"
)

// The app-layer tests of the tracking commands build each handler as the
// service does (decorated) on the in-memory repository, check queue and
// channels facade, a programmable carrier (fakeTracker) and a manual clock.
// (check_due_parcels_test.go, beside them, runs the scheduled checks on
// PostgreSQL; its names are not reused here.)

var clockStart = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// checkTimeout is short, so that a carrier that hangs costs a test little;
// no carrier call of the other tests comes near it.
const checkTimeout = 50 * time.Millisecond

const (
	account  = "acc_1"
	stranger = "acc_2"
	// delay is the check delay of the parcels made here.
	delay = 6 * time.Hour
)

// activeChannel is account's channel of the fake tracker.
func activeChannel() channels.ChannelAccess {
	return channels.ChannelAccess{ID: "ch_1", AccountID: account, Name: "Fake", Provider: fakeCode, Status: "active",
		Settings: map[string]any{"clientSecret": "secret"}}
}

// fixture is one set of handlers on fakes of their own.
type fixture struct {
	repo     *memory.Repository
	queue    *memory.CheckQueue
	channels *channelstest.Channels
	carrier  *fakeTracker
	scaled   *fakeTracker // behind the time-scaled provider
	clock    *clock.Manual
	// providers holds carrier (fakeCode), scaled (scaledCode) and a
	// provider that only ships (shipperCode).
	providers *carrier.Registry

	create        usecase.CommandHandler[command.CreateTrackingParcel]
	update        usecase.CommandHandler[command.UpdateTrackingParcel]
	delete        usecase.CommandHandler[command.DeleteTrackingParcel]
	check         usecase.CommandHandler[command.CheckTrackingParcel]
	due           usecase.CommandHandler[command.DueCheck]
	trackShipment usecase.CommandHandler[command.TrackShipmentParcels]
	stop          usecase.CommandHandler[command.StopTrackingChannel]
}

func newFixture() *fixture {
	f := &fixture{
		repo:     memory.NewRepository(),
		channels: channelstest.New(activeChannel()),
		carrier:  &fakeTracker{},
		scaled:   &fakeTracker{},
		clock:    clock.NewManual(clockStart),
	}
	f.queue = memory.NewCheckQueue(f.repo, f.clock)
	f.providers = carrier.NewRegistry(f.carrier, scaledTracker{f.scaled}, shipperOnly{})
	providers := f.providers
	obs := usecasetest.Observer()
	f.create = command.NewCreateTrackingParcelHandler(f.repo, f.channels, providers, f.clock, obs)
	f.update = command.NewUpdateTrackingParcelHandler(f.repo, f.clock, obs)
	f.delete = command.NewDeleteTrackingParcelHandler(f.repo, f.clock, obs)
	f.check = command.NewCheckTrackingParcelHandler(f.repo, f.channels, providers, f.clock, checkTimeout, obs)
	f.due = command.NewCheckDueParcelsHandler(f.repo, f.queue, providers, f.clock, checkTimeout, obs)
	f.trackShipment = command.NewTrackShipmentParcelsHandler(f.repo, f.clock, obs)
	f.stop = command.NewStopTrackingChannelHandler(f.repo, f.clock, obs)
	return f
}

// newParcel is a request to track number through account's channel.
func newParcel(id, number string) command.CreateTrackingParcel {
	hours, checks := int(delay/time.Hour), 20
	return command.CreateTrackingParcel{AccountID: account, ParcelID: id, Parcel: domain.Request{
		TrackingNumber: number, ChannelID: "ch_1", Recipient: domain.Recipient{Name: "Jana Nová", Email: "jana@example.com"},
		CheckDelayHours: &hours, MaxChecks: &checks, ExternalData: map[string]any{"order": id}}}
}

// tracked makes a parcel through the create use case.
func (f *fixture) tracked(t *testing.T, id, number string) string {
	t.Helper()
	if err := f.create.Handle(t.Context(), newParcel(id, number)); err != nil {
		t.Fatalf("tracking %s: %v", number, err)
	}
	return id
}

// state is the parcel as stored.
func (f *fixture) state(t *testing.T, id string) domain.Stored {
	t.Helper()
	st, err := f.repo.GetStored(t.Context(), id)
	if err != nil {
		t.Fatalf("reading %s: %v", id, err)
	}
	return st
}

// events describes what the repository published since the from-th event:
// "type v<version> <status>", with "<previous>><status>" for a status
// change, each checked to carry the account and the parcel and to have
// occurred when the parcel was last changed.
func (f *fixture) events(t *testing.T, from int) []string {
	t.Helper()
	var out []string
	for _, e := range f.repo.Published()[from:] {
		var (
			acc, id, status, desc string
			version               int
			at, updated           time.Time
		)
		switch e := e.(type) {
		case contract.TrackingParcelCreated:
			acc, id, status, version, at, updated = e.AccountID, e.TrackingParcel.ID, e.TrackingParcel.Status, e.Version, e.OccurredAt, e.TrackingParcel.UpdatedAt
		case contract.TrackingParcelUpdated:
			acc, id, status, version, at, updated = e.AccountID, e.TrackingParcel.ID, e.TrackingParcel.Status, e.Version, e.OccurredAt, e.TrackingParcel.UpdatedAt
		case contract.TrackingParcelDeleted:
			acc, id, status, version, at, updated = e.AccountID, e.TrackingParcel.ID, e.TrackingParcel.Status, e.Version, e.OccurredAt, e.TrackingParcel.UpdatedAt
		case contract.TrackingParcelStatusChanged:
			acc, id, status, version, at, updated = e.AccountID, e.TrackingParcel.ID, e.TrackingParcel.Status, e.Version, e.OccurredAt, e.TrackingParcel.UpdatedAt
			desc = e.TrackingParcel.PreviousStatus + ">"
		default:
			t.Fatalf("published %T, not a tracking event", e)
		}
		if e.EventStream() != contract.Stream || acc != account || id == "" || !at.Equal(updated) {
			t.Errorf("%s: stream %s, account %q, parcel %q, occurred at %v (parcel updated at %v)", e.EventType(), e.EventStream(), acc, id, at, updated)
		}
		out = append(out, fmt.Sprintf("%s v%d %s%s", e.EventType(), version, desc, status))
	}
	return out
}

// lastSnapshot is the parcel as the last created, updated or deleted event
// published shows it.
func (f *fixture) lastSnapshot(t *testing.T) contract.TrackingParcelSnapshot {
	t.Helper()
	all := f.repo.Published()
	for i := len(all) - 1; i >= 0; i-- {
		switch e := all[i].(type) {
		case contract.TrackingParcelCreated:
			return e.TrackingParcel
		case contract.TrackingParcelUpdated:
			return e.TrackingParcel
		case contract.TrackingParcelDeleted:
			return e.TrackingParcel
		}
	}
	t.Fatal("no snapshot published")
	return contract.TrackingParcelSnapshot{}
}

// errDatabase is a failure of the store, neither a fault nor the carrier's.
var errDatabase = errors.New("connection reset by peer")

// failOn makes the repository's operation op fail with errDatabase.
func failOn(op string) func(string, []string) error {
	return func(called string, _ []string) error {
		if called == op {
			return errDatabase
		}
		return nil
	}
}

// The fake carriers.

const (
	fakeCode    = "faketrack"
	scaledCode  = "scaled"
	shipperCode = "shiponly"
)

// fakeTracker is a carrier.Tracker whose answers a test sets; by default it
// knows every number and reports no event yet.
type fakeTracker struct {
	mu       sync.Mutex
	onTrack  func(ctx context.Context, req carrier.TrackingRequest) (carrier.Tracking, error)
	requests []carrier.TrackingRequest
	settings []carrier.Settings
}

func (c *fakeTracker) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: fakeCode, Name: "Fake tracker", LabelFormats: []string{"pdf"}, MaxParcels: 5}
}

func (c *fakeTracker) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

func (c *fakeTracker) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	c.mu.Lock()
	c.requests = append(c.requests, req)
	c.settings = append(c.settings, s)
	on := c.onTrack
	c.mu.Unlock()
	if on != nil {
		return on(ctx, req)
	}
	return carrier.Tracking{Recognized: true}, nil
}

// answer makes the tracker report events for every number.
func (c *fakeTracker) answer(events ...carrier.TrackingEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onTrack = func(context.Context, carrier.TrackingRequest) (carrier.Tracking, error) {
		return carrier.Tracking{Recognized: true, Events: events}, nil
	}
}

// fail makes the tracker answer err for every number.
func (c *fakeTracker) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onTrack = func(context.Context, carrier.TrackingRequest) (carrier.Tracking, error) {
		return carrier.Tracking{}, err
	}
}

// asked counts the tracker's calls.
func (c *fakeTracker) asked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.requests)
}

// scaledTracker is a tracker whose clock runs 60 times faster than ours,
// as the sandbox's may.
type scaledTracker struct{ *fakeTracker }

func (s scaledTracker) Info() carrier.ProviderInfo {
	info := s.fakeTracker.Info()
	info.Code = scaledCode
	return info
}

func (scaledTracker) TimeScale() float64 { return 60 }

// shipperOnly is a provider that tracks nothing.
type shipperOnly struct{}

func (shipperOnly) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: shipperCode, Name: "Ships only", LabelFormats: []string{"pdf"}, MaxParcels: 5}
}

func (shipperOnly) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

// unavailable is a carrier that cannot be reached, as the adapters say it.
func unavailable(what string) error { return fmt.Errorf("%w: %s", carrier.ErrUnavailable, what) }

// scan is a carrier event mapped to status, hours after clockStart.
func scan(code string, status carrier.TrackingStatus, hours int) carrier.TrackingEvent {
	return carrier.TrackingEvent{Code: code, Status: status, Description: code + " scan", Location: "Praha",
		At: clockStart.Add(time.Duration(hours) * time.Hour)}
}
