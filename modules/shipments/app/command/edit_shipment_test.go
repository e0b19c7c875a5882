package command_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"shipd/modules/shipments/app/command"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

func ptr[T any](v T) *T { return &v }

// An edit changes what it names and publishes shipment.updated; one that
// changes nothing publishes nothing and keeps the version.
func TestUpdateEditsWhatMayChange(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.booked(t, "sh_1", 1)
	f.clock.Advance(time.Hour)
	err := f.update.Handle(t.Context(), command.UpdateShipment{AccountID: account, ID: "sh_1",
		ReferenceNumber: ptr("ORDER-2"), Metadata: map[string]any{"k": "v"}, EnableTracking: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "sh_1")
	if st.ReferenceNumber != "ORDER-2" || st.Metadata["k"] != "v" || len(st.Metadata) != 1 || !st.EnableTracking || st.Version != 3 ||
		!st.UpdatedAt.Equal(f.clock.Now()) {
		t.Errorf("edited %+v", st)
	}
	if got := f.events(t, 3); !slices.Equal(got, []string{"shipment.updated v3 created"}) {
		t.Errorf("events %v", got)
	}
	if snap := f.lastSnapshot(t); snap.ReferenceNumber != "ORDER-2" || !snap.EnableTracking {
		t.Errorf("snapshot %+v", snap)
	}
	// The same edit again, and an empty one, change nothing.
	for _, cmd := range []command.UpdateShipment{
		{AccountID: account, ID: "sh_1", ReferenceNumber: ptr("ORDER-2"), Metadata: map[string]any{"k": "v"}, EnableTracking: ptr(true)},
		{AccountID: account, ID: "sh_1"},
	} {
		if err := f.update.Handle(t.Context(), cmd); err != nil {
			t.Fatal(err)
		}
	}
	if st := f.state(t, "sh_1"); st.Version != 3 {
		t.Errorf("an edit that changed nothing moved the version to %d", st.Version)
	}
	if got := f.events(t, 4); len(got) != 0 {
		t.Errorf("an edit that changed nothing published %v", got)
	}
}

// No account edits, deletes or cancels another's shipment, or one that
// does not exist.
func TestChangesNeedTheAccountsShipment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		run  func(context.Context, *fixture, string, string) error
	}{
		{"update", func(ctx context.Context, f *fixture, acc, id string) error {
			return f.update.Handle(ctx, command.UpdateShipment{AccountID: acc, ID: id, ReferenceNumber: ptr("X")})
		}},
		{"delete", func(ctx context.Context, f *fixture, acc, id string) error {
			return f.delete.Handle(ctx, command.DeleteShipment{AccountID: acc, ID: id})
		}},
		{"cancel", func(ctx context.Context, f *fixture, acc, id string) error {
			return f.cancel.Handle(ctx, command.CancelShipment{AccountID: acc, ID: id})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, request("sh_pending", 1))
			f.booked(t, "sh_created", 1)
			published := len(f.repo.Published())
			for _, id := range []string{"sh_pending", "sh_created"} {
				faulttest.WantKind(t, tc.run(t.Context(), f, stranger, id), fault.KindForbidden)
			}
			faulttest.WantKind(t, tc.run(t.Context(), f, account, "sh_none"), fault.KindNotFound)
			if got := f.events(t, published); len(got) != 0 {
				t.Errorf("published %v", got)
			}
			if calls := f.carrier.Calls(); !slices.Equal(calls, []string{"create"}) {
				t.Errorf("carrier calls %v", calls)
			}
		})
	}
}

// A shipment the carrier did not create (pending, or rejected) is deleted,
// with shipment.deleted carrying its last state; one it created is not.
func TestDeleteOnlyWhatNoCarrierHolds(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_pending", 1))
	f.created(t, request("sh_rejected", 1))
	f.carrier.onCreate = rejectAll
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_rejected"}); err != nil {
		t.Fatal(err)
	}
	f.carrier.onCreate = nil
	f.booked(t, "sh_created", 1)
	published := len(f.repo.Published())
	f.clock.Advance(time.Hour)

	faulttest.WantFields(t, f.delete.Handle(t.Context(), command.DeleteShipment{AccountID: account, ID: "sh_created"}),
		map[string]string{"status": "a shipment the carrier created cannot be deleted; cancel it instead"})
	for _, id := range []string{"sh_pending", "sh_rejected"} {
		if err := f.delete.Handle(t.Context(), command.DeleteShipment{AccountID: account, ID: id}); err != nil {
			t.Fatalf("deleting %s: %v", id, err)
		}
		if _, err := f.repo.Get(t.Context(), id); !fault.Is(err, fault.KindNotFound) {
			t.Errorf("%s is still there (%v)", id, err)
		}
	}
	if got := f.events(t, published); !slices.Equal(got, []string{"shipment.deleted v2 pending", "shipment.deleted v3 pending"}) {
		t.Errorf("events %v", got)
	}
	if snap := f.lastSnapshot(t); snap.ID != "sh_rejected" || !snap.UpdatedAt.Equal(f.clock.Now()) || len(snap.Errors) != 1 {
		t.Errorf("shipment.deleted shows %+v", snap)
	}
	if st := f.state(t, "sh_created"); st.Version != 2 {
		t.Errorf("the refused deletion changed the shipment: %+v", st)
	}
}
