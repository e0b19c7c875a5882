package command_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
	"shipd/platform/usecase/usecasetest"
)

func cancelOf(id string) command.CancelPickup {
	return command.CancelPickup{AccountID: account, ID: id}
}

// wantConflict fails t unless err is a conflict of code saying message.
func wantConflict(t *testing.T, err error, code, message string) {
	t.Helper()
	f, ok := fault.As(err)
	if !ok || f.Kind != fault.KindConflict || f.Code != code || f.Message != message {
		t.Errorf("error %v, want the conflict %s %q", err, code, message)
	}
}

// A scheduled pickup is cancelled at its carrier by what the carrier
// confirmed, then recorded cancelled with pickup.cancelled; its date and
// shipments are free again.
func TestCancelPickupCancelsAtTheCarrier(t *testing.T) {
	t.Parallel()
	f := newFixture()
	sh := f.created(1)
	ordered := f.ordered(t, orderOf("pck_1", tuesday, sh...))
	f.clock.Advance(time.Hour)
	if err := f.cancel.Handle(t.Context(), cancelOf("pck_1")); err != nil {
		t.Fatal(err)
	}
	_, _, cancels, _, _ := f.carrier.asked()
	want := carrier.CourierPickup{ConfirmationNumber: ordered.ConfirmationNumber, Date: ordered.ConfirmedDate,
		ReadyFrom: ordered.ConfirmedFrom, ReadyUntil: ordered.ConfirmedUntil, Handle: "cancel-key-pck_1"}
	if !reflect.DeepEqual(cancels, []carrier.CourierPickup{want}) {
		t.Errorf("cancelled at the carrier %+v, want %+v", cancels, want)
	}
	got := f.pickup(t, "pck_1")
	if got.Status != pickup.StatusCancelled || got.CancelledAt == nil || !got.CancelledAt.Equal(clockStart.Add(time.Hour)) || got.Version != 3 {
		t.Errorf("stored %+v", got)
	}
	f.wantEvents(t, 0, "pickup.created v2 scheduled pck_1", "pickup.cancelled v3 cancelled pck_1")
	f.ordered(t, orderOf("pck_2", tuesday, sh...))
}

// What the carrier answers a cancel: cancelled already is cancelled here
// too; a refusal is a conflict with its reason and one it cannot be asked a
// 503, both leaving the pickup scheduled.
func TestCancelPickupHearsTheCarrier(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer error
		check  func(t *testing.T, err error)
		status pickup.Status
	}{
		{"cancelled already", carrier.ErrAlreadyCancelled, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("error %v", err)
			}
		}, pickup.StatusCancelled},
		{"refused", carrier.Reject("", "too late to cancel"), func(t *testing.T, err error) {
			wantConflict(t, err, "pickup_not_cancellable", "The carrier fakedispatch refused to cancel the pickup: too late to cancel")
		}, pickup.StatusScheduled},
		{"unreachable", unavailable("503"), func(t *testing.T, err error) {
			faulttest.WantKind(t, err, fault.KindUnavailable)
			if f, _ := fault.As(err); f.Message != "The carrier fakedispatch could not be reached; the pickup was not cancelled. Try again later." {
				t.Errorf("message %q", f.Message)
			}
		}, pickup.StatusScheduled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(1)
			f.ordered(t, orderOf("pck_1", tuesday))
			f.carrier.program(func(c *fakeDispatcher) { c.onCancel = func(carrier.CourierPickup) error { return tc.answer } })
			tc.check(t, f.cancel.Handle(t.Context(), cancelOf("pck_1")))
			if got := f.pickup(t, "pck_1"); got.Status != tc.status {
				t.Errorf("left %s, want %s", got.Status, tc.status)
			}
			want := []string{"pickup.created v2 scheduled pck_1"}
			if tc.status == pickup.StatusCancelled {
				want = append(want, "pickup.cancelled v3 cancelled pck_1")
			}
			f.wantEvents(t, 0, want...)
		})
	}
}

// A cancel the pickup's state or its carrier does not allow is refused
// with its reason before the carrier is asked; an unconfirmed pickup is
// cancelled here alone (shipd has no number to cancel it by), whatever its
// carrier takes.
func TestCancelPickupRefusals(t *testing.T) {
	t.Parallel()
	t.Run("a carrier without cancels", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		got := f.ordered(t, orderOf("pck_1", tuesday))
		f.carrier.set(func(d *carrier.DispatchInfo) { d.PickupCancel = false })
		wantConflict(t, f.cancel.Handle(t.Context(), cancelOf("pck_1")), "pickup_not_cancellable",
			"The carrier fakedispatch takes no pickup cancellation through its API; cancel it with the carrier (confirmation number "+
				got.ConfirmationNumber+").")
		if f.carrier.calls()[2] != 0 || f.pickup(t, "pck_1").Status != pickup.StatusScheduled {
			t.Errorf("the carrier was asked %d cancels; the pickup is %s", f.carrier.calls()[2], f.pickup(t, "pck_1").Status)
		}
	})
	t.Run("being ordered, then cancelled already", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.leftBehind(t, "pck_1", tuesday)
		wantConflict(t, f.cancel.Handle(t.Context(), cancelOf("pck_1")), "pickup_being_ordered",
			"The pickup is being ordered at the carrier now; cancel it once it is scheduled.")
		f.resolveLater(t)
		f.carrier.set(func(d *carrier.DispatchInfo) { d.PickupCancel = false })
		if err := f.cancel.Handle(t.Context(), cancelOf("pck_1")); err != nil {
			t.Fatalf("cancelling an unconfirmed pickup: %v", err)
		}
		if got := f.pickup(t, "pck_1"); got.Status != pickup.StatusCancelled {
			t.Errorf("left %s", got.Status)
		}
		wantConflict(t, f.cancel.Handle(t.Context(), cancelOf("pck_1")), "pickup_cancelled", "The pickup is cancelled already.")
		if calls := f.carrier.calls(); calls[2] != 0 {
			t.Errorf("the carrier was asked %d cancels", calls[2])
		}
		f.wantEvents(t, 0, "pickup.unconfirmed v2 unconfirmed pck_1", "pickup.cancelled v3 cancelled pck_1")
		f.ordered(t, orderOf("pck_2", tuesday))
	})
	t.Run("not the account's, or not there", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.ordered(t, orderOf("pck_1", tuesday))
		faulttest.WantKind(t, f.cancel.Handle(t.Context(), command.CancelPickup{AccountID: stranger, ID: "pck_1"}), fault.KindForbidden)
		faulttest.WantKind(t, f.cancel.Handle(t.Context(), cancelOf("pck_2")), fault.KindNotFound)
		if f.carrier.calls()[2] != 0 || f.pickup(t, "pck_1").Status != pickup.StatusScheduled {
			t.Error("a refused cancel reached the carrier or the pickup")
		}
	})
	t.Run("a provider no longer offered", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.ordered(t, orderOf("pck_1", tuesday))
		// The same pickups, in a build that no longer offers the carrier.
		cancel := command.NewCancelPickupHandler(f.pickups, f.channels, carrier.NewRegistry(shipperOnly{}), f.clock, carrierTimeout,
			usecasetest.Observer())
		wantConflict(t, cancel.Handle(t.Context(), cancelOf("pck_1")), "provider_gone",
			"The provider fakedispatch is no longer offered; cancel the pickup with the carrier.")
	})
	t.Run("a channel no longer active", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.ordered(t, orderOf("pck_1", tuesday))
		channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Status = "invalid" })(f.channels)
		faulttest.WantFields(t, f.cancel.Handle(t.Context(), cancelOf("pck_1")),
			map[string]string{"shipping_channel_id": "must be an active shipping channel"})
		if f.carrier.calls()[2] != 0 || f.pickup(t, "pck_1").Status != pickup.StatusScheduled {
			t.Error("the cancel went on without the channel")
		}
	})
	t.Run("a store that fails", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.ordered(t, orderOf("pck_1", tuesday))
		f.pickups.Interfere(failOn("Update"))
		if err := f.cancel.Handle(t.Context(), cancelOf("pck_1")); !errors.Is(err, errDatabase) {
			t.Errorf("error %v, want the store's", err)
		}
		f.pickups.Interfere(nil)
		// The carrier cancelled it; a retry is told so and records it.
		f.carrier.program(func(c *fakeDispatcher) {
			c.onCancel = func(carrier.CourierPickup) error { return carrier.ErrAlreadyCancelled }
		})
		if err := f.cancel.Handle(t.Context(), cancelOf("pck_1")); err != nil || f.pickup(t, "pck_1").Status != pickup.StatusCancelled {
			t.Errorf("the retry: %v", err)
		}
	})
}
