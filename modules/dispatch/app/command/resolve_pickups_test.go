package command_test

import (
	"context"
	"errors"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// acceptedThenLost orders pickup id of shipments on date at a carrier that
// accepts it under "H-"+id and then cannot be reached: the pickup is left
// being ordered with its handle.
func (f *fixture) acceptedThenLost(t *testing.T, id, date string) {
	t.Helper()
	f.carrier.program(func(c *fakeDispatcher) {
		c.onOrder = func(ctx context.Context, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
			if err := req.Booking.Accept(ctx, "H-"+req.Booking.Key); err != nil {
				return carrier.CourierPickup{}, unavailable(err.Error())
			}
			return carrier.CourierPickup{}, unavailable("timeout")
		}
	})
	defer f.carrier.program(func(c *fakeDispatcher) { c.onOrder = nil })
	err := f.order.Handle(t.Context(), orderOf(id, date))
	if !fault.Is(err, fault.KindUnavailable) || f.pickup(t, id).OrderHandle != "H-"+id {
		t.Fatalf("an order accepted and then lost: %v, %+v", err, f.pickup(t, id))
	}
}

// An order left behind without a handle may or may not be at the carrier:
// once older than a live request can be, it becomes unconfirmed with
// pickup.unconfirmed, and the carrier is not asked; a younger one is left
// alone.
func TestResolvePickupsUnconfirmsAnOrderWithoutAHandle(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.leftBehind(t, "pck_1", tuesday)
	f.clock.Advance(2 * carrierTimeout)
	if err := f.resolve.Handle(t.Context(), command.ResolvePickups{Limit: 10}); err != nil {
		t.Fatal(err)
	}
	if got := f.pickup(t, "pck_1"); got.Status != pickup.StatusOrdering {
		t.Errorf("an order just twice the timeout old became %s", got.Status)
	}
	f.resolveLater(t)
	if got := f.pickup(t, "pck_1"); got.Status != pickup.StatusUnconfirmed || got.Version != 2 || got.ConfirmationNumber != "" {
		t.Errorf("left %+v", got)
	}
	f.wantEvents(t, 0, "pickup.unconfirmed v2 unconfirmed pck_1")
	if calls := f.carrier.calls(); calls != [5]int{} {
		t.Errorf("the carrier was asked %v", calls)
	}
	f.resolveLater(t)
	f.wantEvents(t, 0, "pickup.unconfirmed v2 unconfirmed pck_1")
}

// An order the carrier accepted under a handle is resumed from it, once,
// without ordering again, and scheduled with pickup.created; one the
// carrier refuses in the end is forgotten; one whose carrier still cannot
// be reached waits for the next round.
func TestResolvePickupsResumesAnOrderWithAHandle(t *testing.T) {
	t.Parallel()
	t.Run("confirmed", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.acceptedThenLost(t, "pck_1", tuesday)
		f.resolveLater(t)
		orders, resumes, _, _, _ := f.carrier.asked()
		if len(orders) != 1 || len(resumes) != 1 || resumes[0].Booking.Key != "pck_1" || resumes[0].Booking.Handle != "H-pck_1" ||
			resumes[0].Date != tuesday || resumes[0].ParcelCount != 3 {
			t.Fatalf("ordered %d times, resumed %+v", len(orders), resumes)
		}
		got := f.pickup(t, "pck_1")
		if got.Status != pickup.StatusScheduled || got.ConfirmationNumber != "FD-pck_1" || got.Version != 2 ||
			!got.UpdatedAt.Equal(clockStart.Add(time.Second)) {
			t.Errorf("left %+v", got)
		}
		f.wantEvents(t, 0, "pickup.created v2 scheduled pck_1")
		f.resolveLater(t)
		if calls := f.carrier.calls(); calls[0] != 1 || calls[1] != 1 {
			t.Errorf("the carrier was asked %v after a second round", calls)
		}
	})
	t.Run("refused in the end", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.acceptedThenLost(t, "pck_1", tuesday)
		f.carrier.program(func(c *fakeDispatcher) {
			c.onResume = func(context.Context, carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
				return carrier.CourierPickup{}, carrier.Reject("", "no courier available")
			}
		})
		f.resolveLater(t)
		f.gone(t, "pck_1")
		f.wantEvents(t, 0)
		f.ordered(t, orderOf("pck_2", tuesday)) // its date is free
	})
	t.Run("still unreachable", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.acceptedThenLost(t, "pck_1", tuesday)
		f.carrier.program(func(c *fakeDispatcher) {
			c.onResume = func(context.Context, carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
				return carrier.CourierPickup{}, unavailable("timeout")
			}
		})
		f.resolveLater(t)
		if got := f.pickup(t, "pck_1"); got.Status != pickup.StatusOrdering || got.OrderHandle != "H-pck_1" {
			t.Errorf("left %+v", got)
		}
		f.wantEvents(t, 0)
		f.carrier.program(func(c *fakeDispatcher) { c.onResume = nil })
		f.resolveLater(t)
		if got := f.pickup(t, "pck_1"); got.Status != pickup.StatusScheduled {
			t.Errorf("the next round left %s", got.Status)
		}
		if calls := f.carrier.calls(); calls[0] != 1 || calls[1] != 2 {
			t.Errorf("the carrier was asked %v, want one order resumed twice", calls)
		}
	})
	t.Run("a channel no longer active", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.acceptedThenLost(t, "pck_1", tuesday)
		channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Status = "invalid" })(f.channels)
		f.resolveLater(t)
		if got := f.pickup(t, "pck_1"); got.Status != pickup.StatusUnconfirmed {
			t.Errorf("left %s", got.Status)
		}
		f.wantEvents(t, 0, "pickup.unconfirmed v2 unconfirmed pck_1")
		if calls := f.carrier.calls(); calls[1] != 0 {
			t.Errorf("the carrier was asked to resume through a channel not active: %v", calls)
		}
	})
}

// A round settles at most Limit orders, the longest waiting first; one
// that cannot be settled now does not keep the others from it.
func TestResolvePickupsTakesALimitAndGoesOn(t *testing.T) {
	t.Parallel()
	f := newFixture()
	for i, date := range []string{tuesday, wednesday, "2026-12-03"} {
		f.leftBehind(t, "pck_"+string(rune('1'+i)), date)
		f.clock.Advance(time.Millisecond)
	}
	f.clock.Advance(time.Second)
	if err := f.resolve.Handle(t.Context(), command.ResolvePickups{Limit: 2}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]pickup.Status{"pck_1": pickup.StatusUnconfirmed, "pck_2": pickup.StatusUnconfirmed, "pck_3": pickup.StatusOrdering} {
		if got := f.pickup(t, id).Status; got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
	f.leftBehind(t, "pck_4", "2026-12-04")
	f.clock.Advance(time.Second)
	f.pickups.Interfere(func(op, id string) error {
		if op == "Update" && id == "pck_3" {
			return errDatabase
		}
		return nil
	})
	if err := f.resolve.Handle(t.Context(), command.ResolvePickups{Limit: 10}); err != nil {
		t.Fatalf("a round with one order that cannot be settled: %v", err)
	}
	if got, want := f.pickup(t, "pck_3").Status, pickup.StatusOrdering; got != want {
		t.Errorf("pck_3: %s", got)
	}
	if got := f.pickup(t, "pck_4").Status; got != pickup.StatusUnconfirmed {
		t.Errorf("pck_4: %s, want it settled beside pck_3", got)
	}
	f.pickups.Interfere(failOn("Stale"))
	if err := f.resolve.Handle(t.Context(), command.ResolvePickups{Limit: 10}); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
}
