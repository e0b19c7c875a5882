package command_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// A refresh records the carrier's new events as status updates, moves the
// status to the newest one's and publishes the change; the same answer
// again records nothing new but still counts as a check.
func TestRefreshRecordsTheCarriersAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	f.carrier.answer(scan("PU", carrier.StatusWaitingForShipment, 1), scan("HUB", carrier.StatusInTransit, 3), scan("X9", "", 4))
	f.clock.Advance(5 * time.Hour)
	if err := f.check.Handle(t.Context(), command.CheckTrackingParcel{AccountID: account, ID: "tp_1"}); err != nil {
		t.Fatal(err)
	}
	now := f.clock.Now()
	p, err := f.repo.Get(t.Context(), "tp_1")
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stored()
	if st.Status != carrier.StatusInTransit || st.Version != 2 || st.ChecksDone != 1 || st.LastCheckError != "" ||
		st.LastCheckedAt == nil || !st.LastCheckedAt.Equal(now) || st.NextCheckAt == nil || !st.NextCheckAt.Equal(now.Add(delay)) {
		t.Errorf("after the check %+v", st)
	}
	var codes []string
	for _, u := range p.Updates() {
		codes = append(codes, u.CarrierCode+":"+string(u.Status))
	}
	if !slices.Equal(codes, []string{"X9:", "HUB:in_transit", "PU:waiting_for_shipment"}) {
		t.Errorf("status updates, newest first: %v", codes)
	}
	if got := f.events(t, 1); !slices.Equal(got, []string{"tracking_parcel.updated v2 in_transit", "tracking_parcel.status_changed v2 created>in_transit"}) {
		t.Errorf("events %v", got)
	}
	// The carrier was asked about the number, since tracking began, with
	// the channel's settings.
	if req := f.carrier.requests[0]; req.TrackingNumber != "TN1" || !req.Since.Equal(clockStart) || f.carrier.settings[0].String("clientSecret") != "secret" {
		t.Errorf("carrier asked %+v with %v", req, f.carrier.settings[0])
	}

	f.clock.Advance(time.Hour)
	if err := f.check.Handle(t.Context(), command.CheckTrackingParcel{ID: "tp_1"}); err != nil { // the worker's: no account
		t.Fatal(err)
	}
	if st := f.state(t, "tp_1"); st.Version != 2 || st.ChecksDone != 2 || !st.LastCheckedAt.Equal(f.clock.Now()) {
		t.Errorf("after the same answer again %+v", st)
	}
	if got := f.events(t, 3); len(got) != 0 {
		t.Errorf("the same answer again published %v", got)
	}
}

// A check the carrier gives no answer to is recorded as a failed check
// (its reason kept, counted, the next one planned; no new version, no
// event) and returned as ErrCheckFailed with a fault unavailable.
func TestRefreshRecordsAFailedCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		setup   func(*fixture)
		reason  string
		asked   bool
		nextDue time.Duration
	}{
		{name: "carrier unavailable", setup: func(f *fixture) { f.carrier.fail(unavailable("503")) },
			reason: "carrier unavailable: 503", asked: true, nextDue: delay},
		{name: "carrier refuses", setup: func(f *fixture) { f.carrier.fail(carrier.Reject("clientSecret", "invalid_client")) },
			reason: "the carrier refused: clientSecret: invalid_client", asked: true, nextDue: delay},
		{name: "carrier hangs", setup: func(f *fixture) {
			f.carrier.onTrack = func(ctx context.Context, _ carrier.TrackingRequest) (carrier.Tracking, error) {
				<-ctx.Done()
				return carrier.Tracking{}, ctx.Err()
			}
		}, reason: "the carrier did not answer within 50ms", asked: true, nextDue: delay},
		{name: "channel inactive", setup: func(f *fixture) {
			ch := activeChannel()
			ch.Status = "invalid"
			f.channels.Put(ch)
		}, reason: "the shipping channel is invalid; checks resume once it is active", nextDue: delay},
		{name: "provider cannot track", setup: func(f *fixture) {
			ch := activeChannel()
			ch.Provider = shipperCode
			f.channels.Put(ch)
		}, reason: "provider shiponly cannot track parcels", nextDue: delay},
		// A carrier whose clock runs 60 times faster is checked 60 times
		// as often.
		{name: "time-scaled carrier unavailable", setup: func(f *fixture) {
			ch := activeChannel()
			ch.Provider = scaledCode
			f.channels.Put(ch)
			f.scaled.fail(unavailable("503"))
		}, reason: "carrier unavailable: 503", asked: true, nextDue: delay / 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.tracked(t, "tp_1", "TN1")
			tc.setup(f)
			f.clock.Advance(time.Hour)
			err := f.check.Handle(t.Context(), command.CheckTrackingParcel{AccountID: account, ID: "tp_1"})
			if !errors.Is(err, command.ErrCheckFailed) || !fault.Is(err, fault.KindUnavailable) {
				t.Fatalf("error %v, want ErrCheckFailed and a fault unavailable", err)
			}
			now := f.clock.Now()
			st := f.state(t, "tp_1")
			if st.LastCheckError != tc.reason {
				t.Errorf("reason %q, want %q", st.LastCheckError, tc.reason)
			}
			if !strings.Contains(err.Error(), st.LastCheckError) {
				t.Errorf("error %q does not say %q", err, st.LastCheckError)
			}
			if st.Status != carrier.StatusCreated || st.Version != 1 || st.ChecksDone != 1 || !st.LastCheckedAt.Equal(now) ||
				st.NextCheckAt == nil || !st.NextCheckAt.Equal(now.Add(tc.nextDue)) {
				t.Errorf("after the failed check %+v", st)
			}
			if got := f.events(t, 1); len(got) != 0 {
				t.Errorf("a failed check published %v", got)
			}
			if asked := f.carrier.asked()+f.scaled.asked() > 0; asked != tc.asked {
				t.Errorf("carrier asked: %v, want %v", asked, tc.asked)
			}
		})
	}
}

// A check that finds the parcel's channel deleted stops tracking it, as
// deleting the channel does, and publishes that.
func TestRefreshOfADeletedChannelStopsTracking(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	f.channels.Remove("ch_1")
	f.clock.Advance(time.Hour)
	if err := f.check.Handle(t.Context(), command.CheckTrackingParcel{AccountID: account, ID: "tp_1"}); err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "tp_1")
	if st.NextCheckAt != nil || st.LastCheckError != "the shipping channel was deleted; tracking stopped" || st.Version != 2 || st.ChecksDone != 0 {
		t.Errorf("after the check %+v", st)
	}
	if got := f.events(t, 1); !slices.Equal(got, []string{"tracking_parcel.updated v2 created"}) {
		t.Errorf("events %v", got)
	}
	if f.carrier.asked() != 0 {
		t.Error("the carrier was asked")
	}
}

// What is not the carrier's answer records nothing: the channels facade
// that cannot be asked, a check cut short by shutdown, the store's
// failures, a parcel deleted during the call.
func TestRefreshRecordsNothingWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*fixture, context.CancelFunc)
		want  func(error) bool
	}{
		{"channels unavailable", func(f *fixture, _ context.CancelFunc) { f.channels.Fail("ch_1", fault.Unavailable("channels is down")) },
			func(err error) bool {
				return fault.Is(err, fault.KindUnavailable) && !errors.Is(err, command.ErrCheckFailed)
			}},
		{"shutting down mid-call", func(f *fixture, cancel context.CancelFunc) {
			f.carrier.onTrack = func(ctx context.Context, _ carrier.TrackingRequest) (carrier.Tracking, error) {
				cancel()
				return carrier.Tracking{}, unavailable(context.Cause(ctx).Error())
			}
		}, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"reading the parcel", func(f *fixture, _ context.CancelFunc) { f.repo.Interfere(failOn("GetStored")) },
			func(err error) bool { return errors.Is(err, errDatabase) }},
		{"recording the check", func(f *fixture, _ context.CancelFunc) { f.repo.Interfere(failOn("Update")) },
			func(err error) bool { return errors.Is(err, errDatabase) }},
		{"deleted during the call", func(f *fixture, _ context.CancelFunc) {
			f.carrier.onTrack = func(ctx context.Context, _ carrier.TrackingRequest) (carrier.Tracking, error) {
				return carrier.Tracking{Recognized: true}, f.repo.Delete(ctx, "tp_1", func(*domain.Parcel) ([]domain.Event, error) { return nil, nil })
			}
		}, func(err error) bool { return fault.Is(err, fault.KindNotFound) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.tracked(t, "tp_1", "TN1")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			tc.setup(f, cancel)
			if err := f.check.Handle(ctx, command.CheckTrackingParcel{AccountID: account, ID: "tp_1"}); !tc.want(err) {
				t.Fatalf("error %v", err)
			}
			f.repo.Interfere(nil)
			if st, err := f.repo.GetStored(t.Context(), "tp_1"); err == nil && (st.ChecksDone != 0 || st.Version != 1) {
				t.Errorf("recorded %+v", st)
			}
			if got := f.events(t, 1); len(got) != 0 {
				t.Errorf("published %v", got)
			}
		})
	}
}

// The last check allowed ends the checks, as does the end of the journey;
// a refresh still checks.
func TestChecksEnd(t *testing.T) {
	t.Parallel()
	f := newFixture()
	cmd := newParcel("tp_1", "TN1")
	one := 1
	cmd.Parcel.MaxChecks = &one
	if err := f.create.Handle(t.Context(), cmd); err != nil {
		t.Fatal(err)
	}
	f.tracked(t, "tp_2", "TN2")
	f.carrier.onTrack = func(_ context.Context, req carrier.TrackingRequest) (carrier.Tracking, error) {
		if req.TrackingNumber == "TN2" {
			return carrier.Tracking{Recognized: true, Events: []carrier.TrackingEvent{scan("DLV", carrier.StatusDelivered, 1)}}, nil
		}
		return carrier.Tracking{Recognized: true}, nil
	}
	for _, id := range []string{"tp_1", "tp_2"} {
		if err := f.check.Handle(t.Context(), command.CheckTrackingParcel{ID: id}); err != nil {
			t.Fatal(err)
		}
		if st := f.state(t, id); st.NextCheckAt != nil || st.ChecksDone != 1 {
			t.Errorf("%s: %+v, want no next check", id, st)
		}
	}
	if ids, err := f.repo.TrackedThrough(t.Context(), account, "ch_1"); err != nil || len(ids) != 0 {
		t.Errorf("still tracked: %v (%v)", ids, err)
	}
	// The client may still ask: a refresh checks a parcel whose checks ended.
	if err := f.check.Handle(t.Context(), command.CheckTrackingParcel{AccountID: account, ID: "tp_1"}); err != nil {
		t.Fatal(err)
	}
	if st := f.state(t, "tp_1"); st.ChecksDone != 2 || st.NextCheckAt != nil {
		t.Errorf("refreshed after the last check: %+v", st)
	}
}
