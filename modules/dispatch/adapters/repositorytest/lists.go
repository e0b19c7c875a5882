package repositorytest

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/app/query"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/contracttest"
	"shipd/platform/ids"
)

var listCases = []contracttest.Case[Subject]{
	{Name: "PickupsAreListedAsTheirEventsSay", Test: pickupsAreListedAsTheirEventsSay},
	{Name: "ManifestsAreListedAsTheirEventsSay", Test: manifestsAreListedAsTheirEventsSay},
}

// listed reads a page's records as R, by id, in order, failing t when page
// is not total matches in all.
func listed[R any](t *testing.T, page query.Page, err error, id func(R) string) ([]string, map[string]R) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if page.Records == nil {
		t.Error("a page's records are nil, want a list (JSON [])")
	}
	var order []string
	by := map[string]R{}
	for _, raw := range page.Records {
		var r R
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		order = append(order, id(r))
		by[id(r)] = r
	}
	return order, by
}

// The pickup list shows each of the account's pickups as its newest event
// says, newest first (by creation, then id), filtered by channel, date and
// status, a page at a time with the count of all matches; a pickup still
// being ordered has said nothing and is not listed.
func pickupsAreListedAsTheirEventsSay(t *testing.T, s Subject) {
	ctx := t.Context()
	ch, other := ids.New(ids.ShippingChannel), ids.New(ids.ShippingChannel)
	made := func(channel, date string, minutes int) *pickup.Pickup {
		p := newPickup(t, ids.New(ids.Pickup), channel, date, t0.Add(time.Duration(minutes)*time.Minute))
		if err := s.Pickups.Add(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	scheduled := update(t, s, made(ch, tuesday, 0).ID(), confirmed(t0.Add(time.Hour)))
	lost := update(t, s, made(ch, wednesday, 1).ID(), unconfirmed(t0.Add(time.Hour)))
	gone := update(t, s, made(other, tuesday, 2).ID(), confirmed(t0.Add(time.Hour)))
	gone = update(t, s, gone.ID(), cancelled(t0.Add(2*time.Hour)))
	made(other, wednesday, 3) // being ordered
	theirs := newPickup(t, ids.New(ids.Pickup), ids.New(ids.ShippingChannel), tuesday, t0.Add(4*time.Minute))
	st := theirs.Stored()
	st.AccountID = stranger
	if err := s.Pickups.Add(ctx, pickup.Restore(st)); err != nil {
		t.Fatal(err)
	}
	update(t, s, st.ID, confirmed(t0.Add(time.Hour)))
	s.CatchUp(t)

	id := func(p contract.Pickup) string { return p.ID }
	for _, tc := range []struct {
		name  string
		q     query.ListPickups
		want  []string
		total int
	}{
		{"all", query.ListPickups{Limit: 10}, []string{gone.ID(), lost.ID(), scheduled.ID()}, 3},
		{"a page", query.ListPickups{Offset: 1, Limit: 1}, []string{lost.ID()}, 3},
		{"past the end", query.ListPickups{Offset: 3, Limit: 10}, nil, 3},
		{"of a channel", query.ListPickups{ChannelID: ch, Limit: 10}, []string{lost.ID(), scheduled.ID()}, 2},
		{"of a date", query.ListPickups{Date: tuesday, Limit: 10}, []string{gone.ID(), scheduled.ID()}, 2},
		{"of a status", query.ListPickups{Status: string(pickup.StatusCancelled), Limit: 10}, []string{gone.ID()}, 1},
		{"of everything", query.ListPickups{ChannelID: ch, Date: wednesday, Status: string(pickup.StatusUnconfirmed), Limit: 10}, []string{lost.ID()}, 1},
		{"of nothing", query.ListPickups{ChannelID: ch, Status: string(pickup.StatusOrdering), Limit: 10}, nil, 0},
	} {
		tc.q.AccountID = account
		page, err := s.Lists.Pickups(ctx, tc.q)
		order, by := listed(t, page, err, id)
		if !slices.Equal(order, tc.want) || page.Total != tc.total {
			t.Errorf("%s: %v of %d, want %v of %d", tc.name, order, page.Total, tc.want, tc.total)
		}
		for _, p := range []*pickup.Pickup{scheduled, lost, gone} {
			if r, ok := by[p.ID()]; ok && !reflect.DeepEqual(r, command.PickupSnapshot(p.Stored()).Record()) {
				t.Errorf("%s: listed\n%+v\nwant\n%+v", tc.name, r, command.PickupSnapshot(p.Stored()).Record())
			}
		}
	}
}

// The manifest list shows each of the account's created manifests, newest
// first, filtered by channel and date, a page at a time; one still being
// created is not listed.
func manifestsAreListedAsTheirEventsSay(t *testing.T, s Subject) {
	ctx := t.Context()
	ch, other := ids.New(ids.ShippingChannel), ids.New(ids.ShippingChannel)
	var done []string
	want := map[string]contract.Manifest{}
	for i, channel := range []string{ch, other, ch} {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		m := newManifest(t, ids.New(ids.Manifest), channel, at, Shipment(account, channel, t0))
		if err := s.Manifests.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
		m = complete(t, s, m.ID(), []byte("%PDF"))
		done = append([]string{m.ID()}, done...)
		want[m.ID()] = command.ManifestSnapshot(m.Stored()).Record()
	}
	addManifest(t, s, ch, Shipment(account, ch, t0)) // being created
	theirs := newManifest(t, ids.New(ids.Manifest), ch, t0, Shipment(account, ch, t0)).Stored()
	theirs.AccountID = stranger
	if err := s.Manifests.Add(ctx, manifest.Restore(theirs)); err != nil {
		t.Fatal(err)
	}
	want[theirs.ID] = command.ManifestSnapshot(complete(t, s, theirs.ID, []byte("%PDF")).Stored()).Record()
	s.CatchUp(t)

	id := func(m contract.Manifest) string { return m.ID }
	for _, tc := range []struct {
		name  string
		q     query.ListManifests
		want  []string
		total int
	}{
		{"all", query.ListManifests{Limit: 10}, done, 3},
		{"a page", query.ListManifests{Offset: 2, Limit: 5}, done[2:], 3},
		{"of a channel", query.ListManifests{ChannelID: ch, Limit: 10}, []string{done[0], done[2]}, 2},
		{"of a date", query.ListManifests{Date: "2026-12-01", Limit: 10}, done[1:2], 1},
		{"of another account", query.ListManifests{Limit: 10}, []string{theirs.ID}, 1},
	} {
		tc.q.AccountID = account
		if tc.name == "of another account" {
			tc.q.AccountID = stranger
		}
		page, err := s.Lists.Manifests(ctx, tc.q)
		order, by := listed(t, page, err, id)
		if !slices.Equal(order, tc.want) || page.Total != tc.total {
			t.Errorf("%s: %v of %d, want %v of %d", tc.name, order, page.Total, tc.want, tc.total)
		}
		for mid, r := range by {
			if !reflect.DeepEqual(r, want[mid]) {
				t.Errorf("%s: listed\n%+v\nwant\n%+v", tc.name, r, want[mid])
			}
		}
	}
}
