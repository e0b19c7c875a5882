package command_test

import (
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/usecase/usecasetest"
)

// A parcel of a time-scaled carrier whose next check was planned on a
// slower clock (six real hours, before SANDBOX_TIME_SCALE was raised) is
// checked after its delay on the carrier's clock instead: 6 h / 60 = 6 min
// here. Checks planned within that, parcels of other carriers, parcels no
// longer tracked and parcels a check holds keep their schedule; nothing a
// client sees changes but next_check_at (no event, the same version).
func TestBringScaledChecksForward(t *testing.T) {
	t.Parallel()
	f := newFixture()
	scaledChannel := activeChannel()
	scaledChannel.ID, scaledChannel.Provider = "ch_scaled", scaledCode
	f.channels.Put(scaledChannel)
	onChannel := func(id, number string, ch channels.ChannelAccess) string {
		req := newParcel(id, number)
		req.Parcel.ChannelID = ch.ID
		if err := f.create.Handle(t.Context(), req); err != nil {
			t.Fatalf("tracking %s: %v", number, err)
		}
		return id
	}
	now := f.clock.Now()
	// planned sets the parcel's next check as a check at now would have,
	// delay ahead; stop ends its checks.
	planned := func(id string, delay time.Duration, stop bool) {
		_, err := f.repo.Update(t.Context(), id, func(p *domain.Parcel) ([]domain.Event, error) {
			p.Checked(carrier.Tracking{Recognized: true}, now, delay)
			if stop {
				p.StopTracking("the channel was deleted", now)
			}
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slow := onChannel("tp_slow", "TN-SLOW", scaledChannel)
	planned(slow, 6*time.Hour, false)
	soon := onChannel("tp_soon", "TN-SOON", scaledChannel)
	planned(soon, 2*time.Minute, false)
	stopped := onChannel("tp_stopped", "TN-STOPPED", scaledChannel)
	planned(stopped, 6*time.Hour, true)
	held := onChannel("tp_held", "TN-HELD", scaledChannel)
	planned(held, 6*time.Hour, false)
	unscaled := onChannel("tp_unscaled", "TN-UNSCALED", activeChannel())
	planned(unscaled, 6*time.Hour, false)
	// tp_held is claimed by a check (at +7 h, for 2 h) that plans its next
	// one itself; the others are given back.
	f.clock.Set(now.Add(7 * time.Hour))
	if claimed, err := f.queue.Claim(t.Context(), 10, 2*time.Hour); err != nil || len(claimed) != 4 {
		t.Fatalf("claimed %d parcels at +7h (%v), want the four due", len(claimed), err)
	}
	if err := f.queue.Release(t.Context(), []string{slow, soon, unscaled}); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(now)

	before := map[string]domain.Stored{}
	for _, id := range []string{slow, soon, stopped, held, unscaled} {
		before[id] = f.state(t, id)
	}
	published := len(f.repo.Published())
	bring := command.NewBringScaledChecksForwardHandler(f.repo, f.queue, f.providers, f.clock, usecasetest.Observer())
	if err := bring.Handle(t.Context(), command.BringScaledChecksForward{}); err != nil {
		t.Fatal(err)
	}

	after := f.state(t, slow)
	if want := now.Add(6 * time.Minute); after.NextCheckAt == nil || !after.NextCheckAt.Equal(want) {
		t.Errorf("%s: next check %v, want %v (6 h on a clock 60 times faster)", slow, after.NextCheckAt, want)
	}
	if after.Version != before[slow].Version || !after.UpdatedAt.Equal(before[slow].UpdatedAt) || after.ChecksDone != before[slow].ChecksDone {
		t.Errorf("%s: version %d, updated %v, checks %d; want %d, %v, %d as before", slow, after.Version, after.UpdatedAt, after.ChecksDone,
			before[slow].Version, before[slow].UpdatedAt, before[slow].ChecksDone)
	}
	for _, id := range []string{soon, stopped, held, unscaled} {
		got, was := f.state(t, id).NextCheckAt, before[id].NextCheckAt
		if (got == nil) != (was == nil) || (got != nil && !got.Equal(*was)) {
			t.Errorf("%s: next check %v, want it kept at %v", id, got, was)
		}
	}
	if n := len(f.repo.Published()) - published; n != 0 {
		t.Errorf("%d events published for a change of schedule, want none", n)
	}

	// Once more changes nothing: the schedule is within the scale now.
	if err := bring.Handle(t.Context(), command.BringScaledChecksForward{}); err != nil {
		t.Fatal(err)
	}
	if again := f.state(t, slow); !again.NextCheckAt.Equal(*after.NextCheckAt) {
		t.Errorf("a second run moved %s to %v", slow, again.NextCheckAt)
	}
}
