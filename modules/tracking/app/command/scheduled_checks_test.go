package command_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd/modules/tracking/app/command"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// claimed claims what is due through the in-memory queue, each parcel with
// account's channel as the claim query would hand it over.
func (f *fixture) claimed(t *testing.T) []command.DueCheck {
	t.Helper()
	states, err := f.queue.Claim(t.Context(), 10_000, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	due := make([]command.DueCheck, len(states))
	for i, st := range states {
		due[i] = command.DueCheck{Parcel: st, Channel: activeChannel()}
	}
	slices.SortFunc(due, func(a, b command.DueCheck) int { return strings.Compare(a.Parcel.ID, b.Parcel.ID) })
	return due
}

// A scheduled check records its outcome as a refresh does and gives the
// parcel's lease back: an answer moves the parcel on, a failure is counted
// and returned as ErrCheckFailed, a channel gone stops tracking.
func TestScheduledCheckRecordsItsOutcome(t *testing.T) {
	t.Parallel()
	f := newFixture()
	for _, id := range []string{"tp_answered", "tp_failed", "tp_stopped"} {
		// A tracking number holds only letters, digits and hyphens.
		f.tracked(t, id, "TN-"+strings.ToUpper(strings.TrimPrefix(id, "tp_")))
	}
	f.carrier.onTrack = func(_ context.Context, req carrier.TrackingRequest) (carrier.Tracking, error) {
		if req.TrackingNumber == "TN-FAILED" {
			return carrier.Tracking{}, unavailable("503")
		}
		return carrier.Tracking{Recognized: true, Events: []carrier.TrackingEvent{scan("HUB", carrier.StatusInTransit, 1)}}, nil
	}
	due := f.claimed(t)
	due[2].ChannelErr = fault.NotFound("Shipping channel") // tp_stopped
	f.clock.Advance(time.Second)
	for i, want := range []error{nil, command.ErrCheckFailed, nil} {
		if err := f.due.Handle(t.Context(), due[i]); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("%s: error %v, want %v", due[i].Parcel.ID, err, want)
		}
	}
	now := f.clock.Now()
	for _, tc := range []struct {
		id              string
		status          carrier.TrackingStatus
		version, checks int
		next            *time.Time
		reason          string
	}{
		{"tp_answered", carrier.StatusInTransit, 2, 1, ptr(now.Add(delay)), ""},
		{"tp_failed", carrier.StatusCreated, 1, 1, ptr(now.Add(delay)), "carrier unavailable: 503"},
		{"tp_stopped", carrier.StatusCreated, 2, 0, nil, "the shipping channel was deleted; tracking stopped"},
	} {
		st := f.state(t, tc.id)
		if st.Status != tc.status || st.Version != tc.version || st.ChecksDone != tc.checks || st.LastCheckError != tc.reason ||
			(st.NextCheckAt == nil) != (tc.next == nil) || (tc.next != nil && !st.NextCheckAt.Equal(*tc.next)) {
			t.Errorf("%s: %+v", tc.id, st)
		}
		if f.queue.Leased(tc.id) {
			t.Errorf("%s is still leased", tc.id)
		}
	}
	if got := f.events(t, 3); !slices.Equal(got, []string{"tracking_parcel.updated v2 in_transit",
		"tracking_parcel.status_changed v2 created>in_transit", "tracking_parcel.updated v2 created"}) {
		t.Errorf("events %v", got)
	}
}

// A check whose channel could not be read, or that shutdown cut short,
// records nothing: its lease stays, and the parcel is checked again when
// it runs out.
func TestScheduledCheckWithoutAnAnswerKeepsItsLease(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	f.tracked(t, "tp_2", "TN2")
	due := f.claimed(t)
	due[0].ChannelErr = fault.Unavailable("channels is down")
	ctx, cancel := context.WithCancel(t.Context())
	f.carrier.onTrack = func(context.Context, carrier.TrackingRequest) (carrier.Tracking, error) {
		cancel()
		return carrier.Tracking{}, unavailable("cut short")
	}
	if err := f.due.Handle(t.Context(), due[0]); !fault.Is(err, fault.KindUnavailable) || errors.Is(err, command.ErrCheckFailed) {
		t.Errorf("unreadable channel: error %v", err)
	}
	if err := f.due.Handle(ctx, due[1]); !errors.Is(err, context.Canceled) {
		t.Errorf("shutting down: error %v", err)
	}
	for _, id := range []string{"tp_1", "tp_2"} {
		if st := f.state(t, id); st.Version != 1 || st.ChecksDone != 0 || !f.queue.Leased(id) {
			t.Errorf("%s: %+v, leased %v", id, st, f.queue.Leased(id))
		}
	}
	f.clock.Advance(2 * time.Minute)
	if again := f.claimed(t); len(again) != 2 {
		t.Errorf("claimed %d once the leases ran out, want 2", len(again))
	}
}

// An outcome the store cannot record gives its parcel back at once, to be
// checked at the next poll; the check itself answered, so it is not the
// command's error.
func TestScheduledCheckNotRecordedIsGivenBack(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	due := f.claimed(t)
	f.repo.Interfere(failOn("UpdateAll"))
	if err := f.due.Handle(t.Context(), due[0]); err != nil {
		t.Errorf("error %v", err)
	}
	f.repo.Interfere(nil)
	if st := f.state(t, "tp_1"); st.ChecksDone != 0 || f.queue.Leased("tp_1") {
		t.Errorf("%+v, leased %v: want nothing recorded and the lease given back", st, f.queue.Leased("tp_1"))
	}
}

// A batch the store refuses is recorded one outcome at a time, so only the
// outcome it refuses alone is lost (and its parcel given back); when even
// giving back fails, the lease runs out instead.
func TestOneRefusedOutcomeFailsAlone(t *testing.T) {
	t.Parallel()
	f := newFixture()
	for i := range 3 {
		f.tracked(t, fmt.Sprintf("tp_%d", i), fmt.Sprintf("TN%d", i))
	}
	f.carrier.answer(scan("HUB", carrier.StatusInTransit, 1))
	h := command.NewCheckDueParcels(f.repo, f.queue, f.providers, f.clock, checkTimeout)
	var batches [][]string
	f.repo.Interfere(func(op string, ids []string) error {
		switch {
		case op == "UpdateAll":
			batches = append(batches, ids)
			if len(ids) > 1 || ids[0] == "tp_1" || ids[0] == "tp_2" {
				return errDatabase
			}
		case op == "Release" && slices.Contains(ids, "tp_2"):
			return errDatabase
		}
		return nil
	})
	if err := h.CheckTogether(t.Context(), f.claimed(t)); err != nil {
		t.Fatal(err)
	}
	f.repo.Interfere(nil)
	if want := [][]string{{"tp_0", "tp_1", "tp_2"}, {"tp_0"}, {"tp_1"}, {"tp_2"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Errorf("writes %v, want %v", batches, want)
	}
	for _, tc := range []struct {
		id       string
		recorded bool
		leased   bool
	}{{"tp_0", true, false}, {"tp_1", false, false}, {"tp_2", false, true}} {
		if st := f.state(t, tc.id); (st.ChecksDone == 1) != tc.recorded || f.queue.Leased(tc.id) != tc.leased {
			t.Errorf("%s: %+v, leased %v; want recorded %v, leased %v", tc.id, st, f.queue.Leased(tc.id), tc.recorded, tc.leased)
		}
	}
}

// Checks that finish while another writes do not wait for the commit: they
// queue their outcomes, which the writing check records next, and return.
// Only past maxQueuedOutcomes (1024) does a check wait for its commit.
func TestChecksQueueTheirOutcomesForTheWriter(t *testing.T) {
	t.Parallel()
	f := newFixture()
	const others = 1025
	for i := range others + 1 {
		f.tracked(t, fmt.Sprintf("tp_%04d", i), fmt.Sprintf("TN%04d", i))
	}
	due := f.claimed(t)
	writing, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var batches []int
	f.repo.Interfere(func(op string, ids []string) error {
		if op != "UpdateAll" {
			return nil
		}
		mu.Lock()
		batches = append(batches, len(ids))
		first := len(batches) == 1
		mu.Unlock()
		if first {
			close(writing)
			<-release
		}
		return nil
	})
	firstDone := make(chan error, 1)
	go func() { firstDone <- f.due.Handle(context.WithoutCancel(t.Context()), due[0]) }()
	<-writing
	// The writer holds its commit; every other check queues and returns,
	// but the one past the bound, which waits.
	returned := make(chan string, others)
	for _, d := range due[1:] {
		go func() {
			if err := f.due.Handle(t.Context(), d); err != nil {
				t.Errorf("%s: %v", d.Parcel.ID, err)
			}
			returned <- d.Parcel.ID
		}()
	}
	for range others - 1 {
		<-returned
	}
	select {
	case id := <-returned:
		t.Errorf("%s returned with more than 1024 outcomes waiting", id)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	<-returned // the one that waited, once its batch was written
	mu.Lock()
	defer mu.Unlock()
	// The writer's own outcome, then everything queued in batches of at
	// most maxOutcomeBatch (256).
	if want := []int{1, 256, 256, 256, 256, 1}; !slices.Equal(batches, want) {
		t.Errorf("batches %v, want %v", batches, want)
	}
	f.repo.Interfere(nil)
	for _, d := range due {
		if st := f.state(t, d.Parcel.ID); st.ChecksDone != 1 {
			t.Fatalf("%s not recorded: %+v", d.Parcel.ID, st)
		}
	}
}

// The checks keep their dependencies inside values usecase.Command cannot
// look into, so they refuse missing ones themselves, when the service is
// wired rather than at the first check.
func TestChecksRefuseMissingDependencies(t *testing.T) {
	t.Parallel()
	f := newFixture()
	obs := usecasetest.Observer()
	for name, build := range map[string]func(){
		"refresh without providers": func() {
			command.NewCheckTrackingParcelHandler(f.repo, f.channels, nil, f.clock, checkTimeout, obs)
		},
		"refresh without a clock": func() {
			command.NewCheckTrackingParcelHandler(f.repo, f.channels, f.providers, nil, checkTimeout, obs)
		},
		"scheduled checks without a queue": func() {
			command.NewCheckDueParcelsHandler(f.repo, nil, f.providers, f.clock, checkTimeout, obs)
		},
		"scheduled checks without a repository": func() {
			command.NewCheckDueParcelsHandler(nil, f.queue, f.providers, f.clock, checkTimeout, obs)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: built", name)
				}
			}()
			build()
		}()
	}
}
