package command_test

import (
	"errors"
	"slices"
	"testing"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

// A parcel is tracked only through an active channel of the account whose
// carrier tracks; otherwise nothing is stored or published.
func TestCreateTrackingParcelChecksTheChannel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*channelstest.Channels)
		field map[string]string
		kind  fault.Kind // when not a field's fault
	}{
		{name: "channel not found", setup: func(c *channelstest.Channels) { c.Remove("ch_1") },
			field: map[string]string{"shipping_channel_id": "does not name a shipping channel of this account"}},
		{name: "channel inactive", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Status = "invalid" }),
			field: map[string]string{"shipping_channel_id": "must be an active shipping channel (this one is invalid; validate it first)"}},
		{name: "provider not offered", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Provider = "gone" }),
			field: map[string]string{"shipping_channel_id": "provider gone cannot track parcels"}},
		{name: "provider only ships", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Provider = shipperCode }),
			field: map[string]string{"shipping_channel_id": "provider shiponly cannot track parcels"}},
		{name: "another account's channel", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.AccountID = stranger }),
			kind: fault.KindForbidden},
		{name: "channels unavailable", setup: func(c *channelstest.Channels) { c.Fail("ch_1", fault.Unavailable("channels is down")) },
			kind: fault.KindUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			tc.setup(f.channels)
			err := f.create.Handle(t.Context(), newParcel("tp_1", "TN1"))
			if tc.field != nil {
				faulttest.WantFields(t, err, tc.field)
			} else {
				faulttest.WantKind(t, err, tc.kind)
			}
			if _, err := f.repo.GetStored(t.Context(), "tp_1"); !fault.Is(err, fault.KindNotFound) {
				t.Errorf("a refused parcel was stored (%v)", err)
			}
			if got := f.repo.Published(); len(got) != 0 {
				t.Errorf("published %v", got)
			}
		})
	}
}

// A tracked parcel is stored under the id the caller chose, for the
// account and the channel's provider, due for its first check at once, and
// tracking_parcel.created carries it.
func TestCreateTrackingParcelStoresItDueAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture()
	cmd := newParcel("tp_1", "TN1")
	// The request names no account, provider, status or checks done
	// (domain.Request has none): they are the command's and the channel's.
	if err := f.create.Handle(t.Context(), cmd); err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "tp_1")
	if st.ID != "tp_1" || st.AccountID != account || st.Provider != fakeCode || st.Status != carrier.StatusCreated || st.Version != 1 ||
		st.ChecksDone != 0 || st.NextCheckAt == nil || !st.NextCheckAt.Equal(clockStart) || st.Recipient.Name != "Jana Nová" {
		t.Errorf("stored %+v", st)
	}
	if got := f.events(t, 0); !slices.Equal(got, []string{"tracking_parcel.created v1 created"}) {
		t.Errorf("events %v", got)
	}
	if snap := f.lastSnapshot(t); snap.TrackingNumber != "TN1" || snap.ShippingChannelID != "ch_1" || snap.ExternalData["order"] != "tp_1" {
		t.Errorf("snapshot %+v", snap)
	}
	if n, _ := f.queue.Due(t.Context()); n != 1 {
		t.Errorf("%d parcels due, want the new one", n)
	}
	if f.carrier.asked() != 0 {
		t.Error("the carrier was asked: the checker does, later")
	}
}

// A number the account already tracks through the channel is refused, as
// the repository refuses it; the store's failure is the command's.
func TestCreateTrackingParcelRefusesANumberTrackedAlready(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	faulttest.WantFields(t, f.create.Handle(t.Context(), newParcel("tp_2", "TN1")),
		map[string]string{"tracking_number": "is already tracked through this shipping channel as tp_1"})
	f.repo.Interfere(failOn("Add"))
	if err := f.create.Handle(t.Context(), newParcel("tp_3", "TN3")); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
	if got := f.events(t, 1); len(got) != 0 {
		t.Errorf("published %v", got)
	}
}

// A request's own problems are answered before its channel is looked up
// (ADR 0036): a bad number through another account's channel is a field's
// fault, not forbidden.
func TestCreateTrackingParcelAnswersTheRequestsProblemsFirst(t *testing.T) {
	t.Parallel()
	f := newFixture()
	ch := activeChannel()
	ch.AccountID = stranger
	f.channels.Put(ch)
	faulttest.WantFields(t, f.create.Handle(t.Context(), newParcel("tp_1", "TN_1")),
		map[string]string{"tracking_number": "may hold only letters, digits and hyphens"})
	if got := f.repo.Published(); len(got) != 0 {
		t.Errorf("published %v", got)
	}
}
