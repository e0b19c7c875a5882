package command_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"shipd/modules/tracking/app/command"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

func ptr[T any](v T) *T { return &v }

// An edit changes the client's fields it names and publishes
// tracking_parcel.updated; one that changes nothing publishes nothing.
func TestUpdateTrackingParcelEditsTheClientsFields(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	f.clock.Advance(time.Hour)
	edit := command.UpdateTrackingParcel{AccountID: account, ID: "tp_1", RecipientPhone: ptr("+420123456789"), ExternalData: map[string]any{"k": "v"}}
	if err := f.update.Handle(t.Context(), edit); err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "tp_1")
	if st.Recipient.Phone != "+420123456789" || st.Recipient.Name != "Jana Nová" || st.ExternalData["k"] != "v" || len(st.ExternalData) != 1 ||
		st.Version != 2 || !st.UpdatedAt.Equal(f.clock.Now()) {
		t.Errorf("edited %+v", st)
	}
	for _, again := range []command.UpdateTrackingParcel{edit, {AccountID: account, ID: "tp_1"}} {
		if err := f.update.Handle(t.Context(), again); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.events(t, 1); !slices.Equal(got, []string{"tracking_parcel.updated v2 created"}) {
		t.Errorf("events %v", got)
	}
	if st := f.state(t, "tp_1"); st.Version != 2 {
		t.Errorf("edits that changed nothing moved the version to %d", st.Version)
	}
}

// No account edits or deletes another's parcel, or one that does not exist.
func TestTrackingParcelChangesNeedTheAccountsParcel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		run  func(context.Context, *fixture, string, string) error
	}{
		{"update", func(ctx context.Context, f *fixture, acc, id string) error {
			return f.update.Handle(ctx, command.UpdateTrackingParcel{AccountID: acc, ID: id, RecipientName: ptr("X")})
		}},
		{"delete", func(ctx context.Context, f *fixture, acc, id string) error {
			return f.delete.Handle(ctx, command.DeleteTrackingParcel{AccountID: acc, ID: id})
		}},
		{"refresh", func(ctx context.Context, f *fixture, acc, id string) error {
			return f.check.Handle(ctx, command.CheckTrackingParcel{AccountID: acc, ID: id})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.tracked(t, "tp_1", "TN1")
			faulttest.WantKind(t, tc.run(t.Context(), f, stranger, "tp_1"), fault.KindForbidden)
			faulttest.WantKind(t, tc.run(t.Context(), f, account, "tp_none"), fault.KindNotFound)
			if st := f.state(t, "tp_1"); st.Version != 1 || st.ChecksDone != 0 {
				t.Errorf("changed %+v", st)
			}
			if got := f.events(t, 1); len(got) != 0 {
				t.Errorf("published %v", got)
			}
			if f.carrier.asked() != 0 {
				t.Error("the carrier was asked")
			}
		})
	}
}

// A parcel the client made is deleted with tracking_parcel.deleted; a
// shipment's parcel is tracked as long as its shipment exists.
func TestDeleteTrackingParcelOnlyClientMade(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	if err := f.trackShipment.Handle(t.Context(), command.TrackShipmentParcels{Shipments: []command.ShipmentParcels{{AccountID: account,
		ShipmentID: "sh_1", ChannelID: "ch_1", Provider: fakeCode, TrackingNumbers: []string{"TN2"}}}}); err != nil {
		t.Fatal(err)
	}
	internal := f.lastSnapshot(t).ID
	f.clock.Advance(time.Hour)
	faulttest.WantFields(t, f.delete.Handle(t.Context(), command.DeleteTrackingParcel{AccountID: account, ID: internal}),
		map[string]string{"shipment_id": "this tracking parcel belongs to shipment sh_1"})
	if err := f.delete.Handle(t.Context(), command.DeleteTrackingParcel{AccountID: account, ID: "tp_1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.repo.GetStored(t.Context(), "tp_1"); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("the deleted parcel is still there (%v)", err)
	}
	if got := f.events(t, 2); !slices.Equal(got, []string{"tracking_parcel.deleted v2 created"}) {
		t.Errorf("events %v", got)
	}
	if snap := f.lastSnapshot(t); snap.ID != "tp_1" || !snap.UpdatedAt.Equal(f.clock.Now()) {
		t.Errorf("tracking_parcel.deleted shows %+v", snap)
	}
	if st := f.state(t, internal); st.Version != 1 {
		t.Errorf("the refused deletion changed the shipment's parcel: %+v", st)
	}
}
