package query_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/tracking/adapters/memory"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// The app-layer tests of the tracking queries read parcels that the
// in-memory repository holds, stored as the commands store them.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

const (
	account  = "acc_1"
	stranger = "acc_2"
)

var errDatabase = errors.New("connection reset by peer")

// store adds a parcel of acc tracked through ch, made minutes after t0.
func store(t *testing.T, repo *memory.Repository, id, acc, ch, number string, minutes int) {
	t.Helper()
	hours, checks := 6, 20
	p, err := domain.New(id, acc, "fake", domain.Request{TrackingNumber: number, ChannelID: ch, CheckDelayHours: &hours, MaxChecks: &checks},
		t0.Add(time.Duration(minutes)*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Add(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

func channel(id, acc string) channels.ChannelAccess {
	return channels.ChannelAccess{ID: id, AccountID: acc, Provider: "fake", Status: "active", Settings: map[string]any{"k": id}}
}

// A claim leases every due parcel up to its limit, once, and hands each over
// with its channel as the channels facade answered, asking about each
// channel once however many of its parcels are due.
func TestClaimDueChecks(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	clk := clock.NewManual(t0.Add(time.Hour))
	for i, p := range []struct{ id, acc, ch string }{
		{"tp_1", account, "ch_1"}, {"tp_2", account, "ch_1"}, {"tp_3", account, "ch_1"},
		{"tp_4", account, "ch_2"}, {"tp_5", stranger, "ch_3"}, {"tp_6", account, "ch_gone"},
	} {
		store(t, repo, p.id, p.acc, p.ch, "TN-"+strings.TrimPrefix(p.id, "tp_"), i)
	}
	store(t, repo, "tp_later", account, "ch_1", "TN-LATER", 120) // due after the clock's time
	chs := channelstest.New(channel("ch_1", account), channel("ch_2", account), channel("ch_3", stranger))
	claim := query.NewClaimDueChecksHandler(memory.NewCheckQueue(repo, clk), chs, usecasetest.Observer())

	first, err := claim.Handle(t.Context(), query.ClaimDueChecks{Limit: 4, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := claim.Handle(t.Context(), query.ClaimDueChecks{Limit: 10, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	none, err := claim.Handle(t.Context(), query.ClaimDueChecks{Limit: 10, Lease: time.Minute})
	if err != nil || len(none) != 0 {
		t.Fatalf("claimed %d leased parcels again (%v)", len(none), err)
	}
	var ids []string
	for _, d := range append(first, rest...) {
		ids = append(ids, d.Parcel.ID)
		switch {
		case d.Parcel.ChannelID == "ch_gone":
			if !fault.Is(d.ChannelErr, fault.KindNotFound) {
				t.Errorf("%s: channel error %v, want not found", d.Parcel.ID, d.ChannelErr)
			}
		case d.ChannelErr != nil || d.Channel.ID != d.Parcel.ChannelID || d.Channel.AccountID != d.Parcel.AccountID || d.Channel.Settings["k"] != d.Channel.ID:
			t.Errorf("%s of %s: channel %+v (%v)", d.Parcel.ID, d.Parcel.ChannelID, d.Channel, d.ChannelErr)
		}
	}
	// Longest overdue first, the limit kept.
	if !slices.Equal(ids, []string{"tp_1", "tp_2", "tp_3", "tp_4", "tp_5", "tp_6"}) || len(first) != 4 {
		t.Errorf("claimed %v (%d in the first claim)", ids, len(first))
	}
	// ch_1 and ch_2 in the first claim, ch_3 and ch_gone in the second.
	if n := chs.Asked(); n != 4 {
		t.Errorf("the channels facade was asked %d times, want once per channel per claim (4)", n)
	}
}

// A queue that cannot claim answers its failure, and no channel is asked.
func TestClaimDueChecksFailsWithTheQueue(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	store(t, repo, "tp_1", account, "ch_1", "TN1", 0)
	repo.Interfere(func(op string, _ []string) error {
		if op == "Claim" {
			return errDatabase
		}
		return nil
	})
	chs := channelstest.New(channel("ch_1", account))
	claim := query.NewClaimDueChecksHandler(memory.NewCheckQueue(repo, clock.NewManual(t0)), chs, usecasetest.Observer())
	if _, err := claim.Handle(t.Context(), query.ClaimDueChecks{Limit: 10, Lease: time.Minute}); !errors.Is(err, errDatabase) {
		t.Errorf("error %v", err)
	}
	if chs.Asked() != 0 {
		t.Error("a channel was asked")
	}
}

// A parcel is read with its status updates, newest first, by its account
// only.
func TestGetTrackingParcel(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	store(t, repo, "tp_1", account, "ch_1", "TN1", 0)
	_, err := repo.Update(t.Context(), "tp_1", func(p *domain.Parcel) ([]domain.Event, error) {
		p.Checked(carrier.Tracking{Recognized: true, Events: []carrier.TrackingEvent{
			{Code: "HUB", Status: carrier.StatusInTransit, At: t0.Add(3 * time.Hour)},
			{Code: "PU", Status: carrier.StatusWaitingForShipment, At: t0.Add(time.Hour)},
			{Code: "X9", At: t0.Add(4 * time.Hour)},
		}}, t0.Add(5*time.Hour), 6*time.Hour)
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	get := query.NewGetTrackingParcelHandler(repo, usecasetest.Observer())
	d, err := get.Handle(t.Context(), query.GetTrackingParcel{AccountID: account, ID: "tp_1"})
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, u := range d.StatusUpdates {
		status := "-"
		if u.Status != nil {
			status = *u.Status
		}
		codes = append(codes, u.CarrierCode+":"+status)
	}
	if d.ID != "tp_1" || d.Status != "in_transit" || d.ChecksDone != 1 || !slices.Equal(codes, []string{"X9:-", "HUB:in_transit", "PU:waiting_for_shipment"}) {
		t.Errorf("detail %+v, updates %v", d.TrackingParcel, codes)
	}
	if _, err := get.Handle(t.Context(), query.GetTrackingParcel{AccountID: stranger, ID: "tp_1"}); !fault.Is(err, fault.KindForbidden) {
		t.Errorf("another account's parcel: %v", err)
	}
	if _, err := get.Handle(t.Context(), query.GetTrackingParcel{AccountID: account, ID: "tp_none"}); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a parcel that does not exist: %v", err)
	}
}

// The list answers the account's parcels newest first, filtered and a page
// at a time, with the number of all matches.
func TestListTrackingParcels(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	store(t, repo, "tp_1", account, "ch_1", "SB100", 0)
	store(t, repo, "tp_2", account, "ch_2", "SB200", 1)
	store(t, repo, "tp_3", account, "ch_1", "ZZ300", 2)
	store(t, repo, "tp_x", stranger, "ch_1", "SB999", 3)
	_, err := repo.Update(t.Context(), "tp_2", func(p *domain.Parcel) ([]domain.Event, error) {
		p.Checked(carrier.Tracking{}, t0.Add(time.Hour), time.Hour) // not recognized
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	list := query.NewListTrackingParcelsHandler(memory.NewParcelList(repo), usecasetest.Observer())
	for _, tc := range []struct {
		name  string
		q     query.ListTrackingParcels
		want  []string
		total int
	}{
		{"all", query.ListTrackingParcels{Limit: 10}, []string{"tp_3", "tp_2", "tp_1"}, 3},
		{"a page", query.ListTrackingParcels{Offset: 1, Limit: 1}, []string{"tp_2"}, 3},
		{"past the end", query.ListTrackingParcels{Offset: 3, Limit: 1}, []string{}, 3},
		{"by status", query.ListTrackingParcels{Status: "not_recognized", Limit: 10}, []string{"tp_2"}, 1},
		{"by channel", query.ListTrackingParcels{ChannelID: "ch_1", Limit: 10}, []string{"tp_3", "tp_1"}, 2},
		{"by number prefix", query.ListTrackingParcels{Search: "SB", Limit: 10}, []string{"tp_2", "tp_1"}, 2},
	} {
		tc.q.AccountID = account
		usecasetest.WantPage(t, tc.name, list, tc.q, func(s contract.Summary) string { return s.ID }, tc.want, tc.total)
	}
}
