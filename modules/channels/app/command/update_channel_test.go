package command_test

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/modules/channels/app/command"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
)

// Each case starts from ch_1, a draft channel "Main" of acme with
// goodSettings (version 1), which prepare may move on.
func TestUpdateChannel(t *testing.T) {
	t.Parallel()
	validated := func(t *testing.T, f *fixture) { f.validated(t, "ch_1") }
	settingsAre := func(want map[string]any) func(*testing.T, *domain.Channel) {
		return func(t *testing.T, ch *domain.Channel) {
			if got := ch.Settings(); !maps.Equal(got, want) {
				t.Errorf("settings %v, want %v", got, want)
			}
		}
	}
	cases := []struct {
		name    string
		prepare func(*testing.T, *fixture)
		cmd     command.UpdateChannel
		fields  []string // the validation fault's fields; nil for none
		says    string   // in the first field's message
		events  []string
		check   func(*testing.T, *domain.Channel)
	}{
		{name: "rename and describe", cmd: command.UpdateChannel{Name: ptr("  Renamed "), Description: ptr("for parcels")},
			events: []string{"shipping_channel.updated v2 draft"},
			check: func(t *testing.T, ch *domain.Channel) {
				if s := ch.Snapshot(); s.Name != "Renamed" || s.Description != "for parcels" {
					t.Errorf("name %q, description %q", s.Name, s.Description)
				}
			}},
		{name: "the same name and description change nothing", cmd: command.UpdateChannel{Name: ptr("Main"), Description: ptr("")}},
		{name: "nothing set changes nothing", cmd: command.UpdateChannel{}},
		{name: "blank name", cmd: command.UpdateChannel{Name: ptr(" ")}, fields: []string{"name"}, says: "is required"},
		{name: "name of another channel of the account",
			prepare: func(t *testing.T, f *fixture) { f.created(t, "ch_2", "Second") },
			cmd:     command.UpdateChannel{Name: ptr("Second")}, fields: []string{"name"}, says: "already been taken"},
		{name: "PUT replaces the settings, dropping what it does not send",
			cmd:    command.UpdateChannel{Settings: map[string]any{"clientId": "client-2", "clientSecret": "new-secret"}},
			events: []string{"shipping_channel.updated v2 draft"},
			check:  settingsAre(map[string]any{"clientId": "client-2", "clientSecret": "new-secret"})},
		{name: "PUT of the masked record keeps the secret and changes nothing", prepare: validated,
			cmd:   command.UpdateChannel{Settings: map[string]any{"clientId": "client-1", "clientSecret": domain.MaskedSecret, "mode": "test"}},
			check: settingsAre(goodSettings())},
		{name: "a masked secret never set is left out",
			cmd: command.UpdateChannel{Settings: map[string]any{"clientId": "client-1", "clientSecret": domain.MaskedSecret,
				"mode": "test", "apiToken": domain.MaskedSecret}},
			check: settingsAre(goodSettings())},
		{name: "the mask of a setting that is not secret is a value", // only secrets are masked when shown
			cmd:    command.UpdateChannel{Settings: map[string]any{"mode": domain.MaskedSecret}, MergeSettings: true},
			fields: []string{"settings.mode"}, says: "must be one of"},
		{name: "PATCH merges and a changed setting takes a validated channel back to draft", prepare: validated,
			cmd:    command.UpdateChannel{Settings: map[string]any{"mode": "live"}, MergeSettings: true},
			events: []string{"shipping_channel.updated v3 draft", "shipping_channel.status_changed v3 draft from active"},
			check: func(t *testing.T, ch *domain.Channel) {
				settingsAre(map[string]any{"clientId": "client-1", "clientSecret": secret, "mode": "live"})(t, ch)
				if s := ch.Snapshot(); s.ValidatedAt != nil || s.ValidationError != nil {
					t.Errorf("validation kept after a settings change: %+v", s)
				}
			}},
		{name: "PATCH with null removes a setting", cmd: command.UpdateChannel{Settings: map[string]any{"mode": nil}, MergeSettings: true},
			events: []string{"shipping_channel.updated v2 draft"},
			check:  settingsAre(map[string]any{"clientId": "client-1", "clientSecret": secret})},
		{name: "PATCH with the mask keeps the secret beside a change",
			cmd:    command.UpdateChannel{Settings: map[string]any{"clientSecret": domain.MaskedSecret, "retries": 3.0}, MergeSettings: true},
			events: []string{"shipping_channel.updated v2 draft"},
			check:  settingsAre(map[string]any{"clientId": "client-1", "clientSecret": secret, "mode": "test", "retries": 3.0})},
		{name: "PATCH may not remove a required setting", cmd: command.UpdateChannel{Settings: map[string]any{"clientId": nil}, MergeSettings: true},
			fields: []string{"settings.clientId"}, says: "is required"},
		{name: "PUT of settings the provider does not have", cmd: command.UpdateChannel{Settings: map[string]any{"bogus": 1.0}},
			fields: []string{"settings.bogus", "settings.clientId", "settings.clientSecret"}, says: "is not a setting"},
		{name: "pause an active channel", prepare: validated, cmd: command.UpdateChannel{Status: ptr("inactive")},
			events: []string{"shipping_channel.updated v3 inactive", "shipping_channel.status_changed v3 inactive from active"}},
		{name: "pause a draft", cmd: command.UpdateChannel{Status: ptr("inactive")},
			events: []string{"shipping_channel.updated v2 inactive", "shipping_channel.status_changed v2 inactive from draft"}},
		{name: "resume a validated channel", prepare: func(t *testing.T, f *fixture) { f.validated(t, "ch_1"); f.paused(t, "ch_1") },
			cmd:    command.UpdateChannel{Status: ptr("active")},
			events: []string{"shipping_channel.updated v4 active", "shipping_channel.status_changed v4 active from inactive"}},
		{name: "activate before validation", cmd: command.UpdateChannel{Status: ptr("active")},
			fields: []string{"status"}, says: "/v1/shipping-channels/ch_1/validate"},
		{name: "the service's statuses are not a user's to set", cmd: command.UpdateChannel{Status: ptr("error")},
			fields: []string{"status"}, says: "must be active or inactive"},
		{name: "unknown status", cmd: command.UpdateChannel{Status: ptr("lost")}, fields: []string{"status"}, says: "must be active or inactive"},
		{name: "the current status again changes nothing", cmd: command.UpdateChannel{Status: ptr("draft")}},
		{name: "new settings and active at once", prepare: validated, // the new settings are not validated
			cmd:    command.UpdateChannel{Settings: map[string]any{"clientId": "client-2", "clientSecret": "other"}, Status: ptr("active")},
			fields: []string{"status"}, says: "cannot become active"},
		{name: "every problem at once", cmd: command.UpdateChannel{Name: ptr(""), Settings: map[string]any{"bogus": 1.0}, Status: ptr("lost")},
			fields: []string{"name", "settings.bogus", "settings.clientId", "settings.clientSecret", "status"}, says: "is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := withMain(t, tc.prepare)
			before, published := f.channel(t, "ch_1"), len(f.repo.Published())
			f.clock.Advance(time.Second)
			tc.cmd.AccountID, tc.cmd.ID = acme, "ch_1"
			err := f.update.Handle(t.Context(), tc.cmd)
			after := f.channel(t, "ch_1")
			if tc.fields != nil {
				fe := wantFields(t, err, tc.fields...)
				if msg := fe.Fields[tc.fields[0]][0]; !strings.Contains(msg, tc.says) {
					t.Errorf("%s: %q, want it to say %q", tc.fields[0], msg, tc.says)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := f.eventsSince(published); !slices.Equal(got, tc.events) {
				t.Errorf("events %v, want %v", got, tc.events)
			}
			if len(tc.events) == 0 {
				// Refused, or nothing to change: the channel is as it was.
				if !reflect.DeepEqual(after.Stored(), before.Stored()) {
					t.Errorf("changed to %+v from %+v", after.Stored(), before.Stored())
				}
			} else {
				checkEventsShow(t, f.repo.Published()[published:], after, f.clock.Now())
			}
			if tc.check != nil {
				tc.check(t, after)
			}
		})
	}
}

// checkEventsShow checks that each event carries the channel as saved: its
// account, version, the time of the change and its snapshot, secrets
// masked.
func checkEventsShow(t *testing.T, events []domain.Event, ch *domain.Channel, now time.Time) {
	t.Helper()
	if ch.Version() < 2 || !ch.Stored().UpdatedAt.Equal(now) {
		t.Errorf("saved as version %d at %v, want a new version at %v", ch.Version(), ch.Stored().UpdatedAt, now)
	}
	want := contract.ChannelEvent{AccountID: ch.AccountID(), Version: ch.Version(), OccurredAt: now,
		ShippingChannel: contract.ShippingChannelSnapshot(ch.Snapshot())}
	for _, e := range events {
		if got := e.(interface{ Channel() contract.ChannelEvent }).Channel(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s carries %+v, want %+v", e.EventType(), got, want)
		}
	}
}

// A provider this build no longer offers: the settings cannot be checked,
// so they cannot change; the rest of the channel can.
func TestUpdateChannelOfAProviderNoLongerOffered(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, "ch_1", "Main")
	f.build(carrier.NewRegistry())
	err := f.update.Handle(t.Context(), command.UpdateChannel{AccountID: acme, ID: "ch_1", Settings: goodSettings(), Name: ptr("Renamed")})
	fe := wantFields(t, err, "settings")
	if !strings.Contains(fe.Fields["settings"][0], "provider test is no longer offered") {
		t.Errorf("settings: %v", fe.Fields["settings"])
	}
	if err := f.update.Handle(t.Context(), command.UpdateChannel{AccountID: acme, ID: "ch_1", Name: ptr("Renamed")}); err != nil {
		t.Fatalf("rename: %v", err)
	}
	if got := f.channel(t, "ch_1"); got.Name() != "Renamed" || !maps.Equal(got.Settings(), goodSettings()) {
		t.Errorf("after rename: %+v", got.Stored())
	}
}

func TestUpdateChannelPassesOnTheRepositorysFailure(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, "ch_1", "Main")
	f.repo.Interfere(func(op, _ string) error {
		if op == "Update" {
			return errDatabase
		}
		return nil
	})
	if err := f.update.Handle(t.Context(), command.UpdateChannel{AccountID: acme, ID: "ch_1", Name: ptr("Renamed")}); !errors.Is(err, errDatabase) {
		t.Fatalf("error %v, want the repository's", err)
	}
}
