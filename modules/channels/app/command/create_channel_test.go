package command_test

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"shipd/modules/channels/app/command"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/fault"
)

func TestCreateChannelStoresADraftAndPublishesCreated(t *testing.T) {
	t.Parallel()
	f := newFixture()
	settings := goodSettings()
	settings["apiToken"] = "token-1"
	err := f.create.Handle(t.Context(), command.CreateChannel{AccountID: acme, ChannelID: "ch_1", Name: "  Main  ",
		Description: "parcels from Brno", Provider: code, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}

	st := f.channel(t, "ch_1").Stored()
	// Stored with the secrets in clear (the repository seals them) and the
	// provider's secret keys, so they are masked whenever shown.
	if st.Name != "Main" || st.Status != domain.StatusDraft || st.Version != 1 || st.AccountID != acme ||
		!maps.Equal(st.Settings, settings) || !maps.Equal(st.SecretKeys, map[string]bool{"clientSecret": true, "apiToken": true}) ||
		!st.CreatedAt.Equal(t0) || !st.UpdatedAt.Equal(t0) {
		t.Fatalf("stored %+v", st)
	}
	published := f.repo.Published()
	want := contract.ShippingChannelCreated{ChannelEvent: contract.ChannelEvent{AccountID: acme, Version: 1, OccurredAt: t0,
		ShippingChannel: contract.ShippingChannelSnapshot{ID: "ch_1", Name: "Main", Description: "parcels from Brno", Provider: code,
			Status: "draft", Settings: map[string]any{"clientId": "client-1", "clientSecret": domain.MaskedSecret,
				"apiToken": domain.MaskedSecret, "mode": "test"}, CreatedAt: t0, UpdatedAt: t0}}}
	if len(published) != 1 || !reflect.DeepEqual(published[0], want) {
		t.Fatalf("published %#v, want %#v", published, want)
	}
}

// Every problem of a create is answered at once, each under its field
// path; nothing is stored or published for a refused one.
func TestCreateChannelRefusesBadInput(t *testing.T) {
	t.Parallel()
	with := func(change map[string]any) map[string]any {
		s := goodSettings()
		for k, v := range change {
			s[k] = v
		}
		return s
	}
	cases := []struct {
		name     string
		cmd      command.CreateChannel
		fields   []string
		contains string // in the first field's message
	}{
		{"blank name", command.CreateChannel{Name: "  ", Provider: code, Settings: goodSettings()}, []string{"name"}, "is required"},
		{"name of 256 characters", command.CreateChannel{Name: strings.Repeat("č", 256), Provider: code, Settings: goodSettings()},
			[]string{"name"}, "at most 255"},
		{"no provider: its settings are not looked at", command.CreateChannel{Name: "x", Settings: map[string]any{"bogus": 1.0}},
			[]string{"provider"}, "is required"},
		{"unknown provider", command.CreateChannel{Name: "x", Provider: "pigeon", Settings: goodSettings()},
			[]string{"provider"}, "GET /v1/providers"},
		{"required settings missing", command.CreateChannel{Name: "x", Provider: code, Settings: map[string]any{"mode": "live"}},
			[]string{"settings.clientId", "settings.clientSecret"}, "is required"},
		{"no settings at all", command.CreateChannel{Name: "x", Provider: code},
			[]string{"settings.clientId", "settings.clientSecret"}, "is required"},
		{"required secret empty", command.CreateChannel{Name: "x", Provider: code, Settings: with(map[string]any{"clientSecret": " "})},
			[]string{"settings.clientSecret"}, "must not be empty"},
		{"unknown setting", command.CreateChannel{Name: "x", Provider: code, Settings: with(map[string]any{"colour": "red"})},
			[]string{"settings.colour"}, "is not a setting of provider test"},
		{"setting of the wrong type", command.CreateChannel{Name: "x", Provider: code, Settings: with(map[string]any{"clientId": true})},
			[]string{"settings.clientId"}, "must be a string"},
		{"setting outside its enum", command.CreateChannel{Name: "x", Provider: code, Settings: with(map[string]any{"mode": "prod"})},
			[]string{"settings.mode"}, "must be one of: test, live"},
		{"fraction for an integer", command.CreateChannel{Name: "x", Provider: code, Settings: with(map[string]any{"retries": 1.5})},
			[]string{"settings.retries"}, "must be an integer"},
		{"everything at once", command.CreateChannel{Name: "", Provider: code, Settings: map[string]any{"bogus": 1.0}},
			[]string{"name", "settings.bogus", "settings.clientId", "settings.clientSecret"}, "is required"},
		{"name taken in the account", command.CreateChannel{Name: "Taken", Provider: code, Settings: goodSettings()},
			[]string{"name"}, "already been taken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, "ch_taken", "Taken")
			before := len(f.repo.Published())
			tc.cmd.AccountID, tc.cmd.ChannelID = acme, "ch_new"
			fe := wantFields(t, f.create.Handle(t.Context(), tc.cmd), tc.fields...)
			if msg := fe.Fields[tc.fields[0]][0]; !strings.Contains(msg, tc.contains) {
				t.Errorf("%s: %q, want it to say %q", tc.fields[0], msg, tc.contains)
			}
			if _, err := f.repo.Get(t.Context(), "ch_new"); !fault.Is(err, fault.KindNotFound) {
				t.Errorf("a refused channel was stored (%v)", err)
			}
			if got := f.eventsSince(before); len(got) != 0 {
				t.Errorf("a refused create published %v", got)
			}
		})
	}
}

// The name limit counts characters, not bytes; names are unique per
// account only.
func TestCreateChannelAcceptsLongNamesAndAnotherAccountsName(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, "ch_1", "Main")
	for _, cmd := range []command.CreateChannel{
		{AccountID: acme, ChannelID: "ch_long", Name: strings.Repeat("č", 255), Provider: code, Settings: goodSettings()},
		{AccountID: globex, ChannelID: "ch_theirs", Name: "Main", Provider: code, Settings: goodSettings()},
	} {
		if err := f.create.Handle(t.Context(), cmd); err != nil {
			t.Errorf("%s: %v", cmd.ChannelID, err)
		}
	}
	if got := f.channel(t, "ch_theirs"); got.AccountID() != globex {
		t.Errorf("stored under %s", got.AccountID())
	}
}

func TestCreateChannelPassesOnTheRepositorysFailure(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.repo.Interfere(func(op, _ string) error {
		if op == "Add" {
			return errDatabase
		}
		return nil
	})
	err := f.create.Handle(t.Context(), command.CreateChannel{AccountID: acme, ChannelID: "ch_1", Name: "Main", Provider: code, Settings: goodSettings()})
	if !errors.Is(err, errDatabase) {
		t.Fatalf("error %v, want the repository's", err)
	}
}
