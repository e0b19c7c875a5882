package repositorytest

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
	"shipd/platform/contracttest"
	"shipd/platform/ids"
)

var shipmentCases = []contracttest.Case[Subject]{
	{Name: "ACopiedShipmentIsFoundAsItsEventSaid", Test: aCopiedShipmentIsFoundAsItsEventSaid},
	{Name: "UndispatchedAreTheChannelsCreatedOnNoManifest", Test: undispatchedAreTheChannelsCreatedOnNoManifest},
	{Name: "LatestIsTheChannelsNewestCreated", Test: latestIsTheChannelsNewestCreated},
}

// Find answers each known shipment as its newest event said it, every
// field the module keeps (a parcel without a tracking number has ""), and
// leaves out ids it does not know and shipments deleted.
func aCopiedShipmentIsFoundAsItsEventSaid(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	full := Shipment(account, ch, t0)
	bare := domain.Shipment{ID: ids.New(ids.Shipment), AccountID: stranger, ChannelID: ch, Status: "pending",
		Parcels:         []carrier.Parcel{{Type: "package", Length: 1, Width: 1, Height: 1, DimensionUnit: "CM", Weight: 2, WeightUnit: "KG"}},
		TrackingNumbers: []string{""}, CreatedAt: t0.Add(time.Second)}
	gone := Shipment(account, ch, t0)
	s.Copy(t, full, false)
	s.Copy(t, bare, false)
	s.Copy(t, gone, false)
	s.Copy(t, gone, true)
	unknown := ids.New(ids.Shipment)
	found, err := s.Shipments.Find(ctx, []string{full.ID, unknown, bare.ID, gone.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 {
		t.Errorf("found %d shipments, want the 2 known and not deleted", len(found))
	}
	for _, want := range []domain.Shipment{full, bare} {
		if got := found[want.ID]; !reflect.DeepEqual(got, want) {
			t.Errorf("found\n%+v\nwant\n%+v", got, want)
		}
	}
	if none, err := s.Shipments.Find(ctx, nil); err != nil || none == nil || len(none) != 0 {
		t.Errorf("finding none: %v (%v), want an empty map", none, err)
	}
	// A newer event replaces what the copy knew.
	full.Status = "delivered"
	s.Copy(t, full, false)
	if found, err := s.Shipments.Find(ctx, []string{full.ID}); err != nil || found[full.ID].Status != "delivered" {
		t.Errorf("after its status changed: %+v (%v)", found[full.ID], err)
	}
}

// Undispatched are the account's channel's created shipments no manifest
// holds (being created or created), oldest first, at most the limit; a
// manifest forgotten lets its shipments be undispatched again.
func undispatchedAreTheChannelsCreatedOnNoManifest(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	third, first, second := Shipment(account, ch, at(3)), Shipment(account, ch, at(1)), Shipment(account, ch, at(2))
	onManifest, onForgotten := Shipment(account, ch, at(0)), Shipment(account, ch, at(4))
	pending, delivered, deleted := Shipment(account, ch, at(0)), Shipment(account, ch, at(0)), Shipment(account, ch, at(0))
	pending.Status, delivered.Status = "pending", "delivered"
	for _, sh := range []domain.Shipment{third, first, second, onManifest, onForgotten, pending, delivered, deleted,
		Shipment(stranger, ch, at(0)), Shipment(account, ids.New(ids.ShippingChannel), at(0))} {
		s.Copy(t, sh, false)
	}
	s.Copy(t, deleted, true)
	complete(t, s, addManifest(t, s, ch, onManifest).ID(), []byte("%PDF"))
	forgotten := addManifest(t, s, ch, onForgotten)
	addManifest(t, s, ch, Shipment(account, ch, at(0))) // of a shipment the copy does not know

	wantIDs := func(limit int, want ...domain.Shipment) {
		t.Helper()
		got, err := s.Shipments.Undispatched(ctx, account, ch, limit)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs, wantIDs []string
		for _, sh := range got {
			gotIDs = append(gotIDs, sh.ID)
		}
		for _, sh := range want {
			wantIDs = append(wantIDs, sh.ID)
		}
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("undispatched, at most %d: %v, want %v", limit, gotIDs, wantIDs)
		}
		if len(got) > 0 && !reflect.DeepEqual(got[0], want[0]) {
			t.Errorf("undispatched\n%+v\nwant\n%+v", got[0], want[0])
		}
	}
	wantIDs(10, first, second, third)
	wantIDs(2, first, second)
	if err := s.Manifests.Forget(ctx, forgotten.ID()); err != nil {
		t.Fatal(err)
	}
	wantIDs(10, first, second, third, onForgotten)
	if got, err := s.Shipments.Undispatched(ctx, stranger, ids.New(ids.ShippingChannel), 10); err != nil || len(got) != 0 {
		t.Errorf("a channel without shipments: %v (%v)", got, err)
	}
}

// Latest is the account's channel's newest created shipment, on a manifest
// or not; false when it has none.
func latestIsTheChannelsNewestCreated(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	if _, ok, err := s.Shipments.Latest(ctx, account, ch); err != nil || ok {
		t.Errorf("the latest of a channel without shipments: %v (%v)", ok, err)
	}
	older, newest := Shipment(account, ch, t0), Shipment(account, ch, t0.Add(time.Hour))
	pending, deleted := Shipment(account, ch, t0.Add(2*time.Hour)), Shipment(account, ch, t0.Add(3*time.Hour))
	pending.Status = "pending"
	for _, sh := range []domain.Shipment{newest, older, pending, deleted, Shipment(stranger, ch, t0.Add(4*time.Hour)),
		Shipment(account, ids.New(ids.ShippingChannel), t0.Add(5*time.Hour))} {
		s.Copy(t, sh, false)
	}
	s.Copy(t, deleted, true)
	complete(t, s, addManifest(t, s, ch, newest).ID(), []byte("%PDF"))
	got, ok, err := s.Shipments.Latest(ctx, account, ch)
	if err != nil || !ok || !reflect.DeepEqual(got, newest) {
		t.Errorf("latest %+v, %v (%v), want\n%+v", got, ok, err, newest)
	}
}
