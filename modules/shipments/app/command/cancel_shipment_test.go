package command_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

func rejectAll(context.Context, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	return carrier.CreatedShipment{}, carrier.Reject("", "no")
}

// A cancellation the carrier accepts moves the shipment to cancelled, with
// shipment.updated and the status change.
func TestCancelRecordsTheCarriersCancellation(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.booked(t, "sh_1", 2)
	f.clock.Advance(time.Hour)
	if err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	if st := f.state(t, "sh_1"); st.Status != domain.StatusCancelled || st.Version != 3 || !st.UpdatedAt.Equal(f.clock.Now()) {
		t.Errorf("cancelled %+v", st)
	}
	if got := f.events(t, 3); !slices.Equal(got, []string{"shipment.updated v3 cancelled", "shipment.status_changed v3 created>cancelled"}) {
		t.Errorf("events %v", got)
	}
	// The carrier was told which shipment, by its id and parcels.
	ref := f.carrier.refs[len(f.carrier.refs)-1]
	if calls := f.carrier.Calls(); !slices.Equal(calls, []string{"create", "cancel"}) ||
		ref.ProviderShipmentID != "P-ORDER-sh_1" || !slices.Equal(ref.TrackingNumbers, []string{"TN1", "TN2"}) {
		t.Errorf("carrier calls %v, cancelling %+v", calls, ref)
	}
}

// A cancellation that cannot be made leaves the shipment as it was: the
// status forbids it, the channel or provider no longer allows asking, the
// carrier refuses or cannot be reached.
func TestCancelRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		setup     func(*testing.T, *fixture) // on a booked shipment sh_1
		wantKind  fault.Kind
		wantField map[string]string
		asked     bool // whether the carrier was asked to cancel
	}{
		{name: "pending", setup: func(t *testing.T, f *fixture) {
			f.created(t, request("sh_2", 1))
		}, wantField: map[string]string{"status": "only a created shipment can be cancelled; this one is pending"}},
		{name: "cancelled already", setup: func(t *testing.T, f *fixture) {
			if err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: "sh_1"}); err != nil {
				t.Fatal(err)
			}
		}, wantField: map[string]string{"status": "this one is cancelled"}},
		{name: "channels unavailable", setup: func(_ *testing.T, f *fixture) {
			f.channels.Fail("ch_1", fault.Unavailable("channels is down"))
		}, wantKind: fault.KindUnavailable},
		{name: "channel gone", setup: func(_ *testing.T, f *fixture) { f.channels.Remove("ch_1") },
			wantField: map[string]string{"shipping_channel_id": "the shipment's channel is gone; it cannot be cancelled through shipd"}},
		{name: "provider cannot ship", setup: func(_ *testing.T, f *fixture) {
			ch := activeChannel()
			ch.Provider = trackerOnlyCode
			f.channels.Put(ch)
		}, wantField: map[string]string{"shipping_channel_id": "provider trackonly cannot cancel shipments"}},
		{name: "carrier refuses", setup: func(_ *testing.T, f *fixture) {
			f.carrier.onCancel = func(context.Context, carrier.ShipmentRef) error {
				return carrier.Reject("", "already picked up")
			}
		}, wantField: map[string]string{"status": "the carrier refused to cancel: already picked up"}, asked: true},
		{name: "carrier unavailable", setup: func(_ *testing.T, f *fixture) {
			f.carrier.onCancel = func(context.Context, carrier.ShipmentRef) error { return unavailable("503") }
		}, wantKind: fault.KindUnavailable, asked: true},
		{name: "carrier hangs", setup: func(_ *testing.T, f *fixture) {
			f.carrier.onCancel = func(ctx context.Context, _ carrier.ShipmentRef) error {
				<-ctx.Done()
				return unavailable(ctx.Err().Error())
			}
		}, wantKind: fault.KindUnavailable, asked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.booked(t, "sh_1", 1)
			tc.setup(t, f)
			id := "sh_1"
			if tc.name == "pending" {
				id = "sh_2"
			}
			before := f.state(t, id)
			published, calls := len(f.repo.Published()), len(f.carrier.Calls())
			err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: id})
			if tc.wantField != nil {
				faulttest.WantFields(t, err, tc.wantField)
			} else {
				faulttest.WantKind(t, err, tc.wantKind)
			}
			if after := f.state(t, id); after.Status != before.Status || after.Version != before.Version {
				t.Errorf("shipment moved from %s v%d to %s v%d", before.Status, before.Version, after.Status, after.Version)
			}
			if got := f.events(t, published); len(got) != 0 {
				t.Errorf("published %v", got)
			}
			if asked := slices.Contains(f.carrier.Calls()[calls:], "cancel"); asked != tc.asked {
				t.Errorf("carrier asked to cancel: %v, want %v", asked, tc.asked)
			}
		})
	}
}

// A shipment that moved on while the carrier cancelled it is not recorded
// as cancelled over its new status, and the failure to record says why.
func TestCancelDoesNotOverwriteAMoveMadeMeanwhile(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.booked(t, "sh_1", 1)
	f.carrier.onCancel = func(ctx context.Context, _ carrier.ShipmentRef) error {
		return f.track.Handle(ctx, command.RecordTrackingProgress{News: []command.TrackingNews{{ShipmentID: "sh_1",
			Parcel: domain.TrackedParcel{ID: "tp_1", TrackingNumber: "TN1", Status: carrier.StatusInTransit, Version: 2}}}})
	}
	err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: "sh_1"})
	faulttest.WantFields(t, err, map[string]string{"status": "this one is shipped"})
	if st := f.state(t, "sh_1"); st.Status != domain.StatusShipped {
		t.Errorf("status %s", st.Status)
	}
}

// A cancel the carrier accepted is recorded though the store fails for a
// moment; one the store cannot take for longer is a 503 that says the
// carrier cancelled it, and the client's retried cancel (which the carrier
// answers "already cancelled") records it instead of failing (ADR 0041).
func TestACancelTheCarrierAcceptedIsNeverReportedAsFailed(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.booked(t, "sh_1", 1)
	cancelled := 0
	f.carrier.onCancel = func(context.Context, carrier.ShipmentRef) error {
		if cancelled++; cancelled > 1 {
			return carrier.ErrAlreadyCancelled
		}
		return nil
	}
	f.repo.Interfere(failOn("Update"))
	err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: "sh_1"})
	if !fault.Is(err, fault.KindUnavailable) || !strings.Contains(err.Error(), "carrier cancelled the shipment") {
		t.Fatalf("a cancel the store could not record answered %v, want a 503 saying the carrier cancelled it", err)
	}
	f.repo.Interfere(nil)
	if err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: "sh_1"}); err != nil {
		t.Fatalf("the retried cancel answered %v, want it recorded", err)
	}
	if st := f.state(t, "sh_1"); st.Status != domain.StatusCancelled || cancelled != 2 {
		t.Errorf("status %s after %d carrier cancels", st.Status, cancelled)
	}

	// A store that fails once only: recorded in the same request.
	f.booked(t, "sh_2", 1)
	failures := 0
	f.repo.Interfere(func(op, id string) error {
		if op == "Update" && failures == 0 {
			failures++
			return errDatabase
		}
		return nil
	})
	if err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: "sh_2"}); err != nil {
		t.Fatalf("a cancel whose record failed once answered %v", err)
	}
	if st := f.state(t, "sh_2"); st.Status != domain.StatusCancelled {
		t.Errorf("status %s", st.Status)
	}
}
