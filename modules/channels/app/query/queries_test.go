package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/modules/channels/adapters/memory"
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// The channel queries run on the in-memory adapters, with channels made by
// the module's own commands and the built-in sandbox carrier.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

const (
	acme   = "acc_acme"
	globex = "acc_globex"
)

func sandboxSettings() map[string]any {
	return map[string]any{"clientId": "client-1", "clientSecret": "top-secret", "productType": "STANDARD"}
}

type fixture struct {
	repo  *memory.Repository
	clock *clock.Manual
	reg   *carrier.Registry
}

func newFixture() *fixture {
	return &fixture{repo: memory.NewRepository(), clock: clock.NewManual(t0), reg: carrier.NewRegistry(sandbox.New())}
}

// channel creates a sandbox channel of account a second after the last,
// validated when asked.
func (f *fixture) channel(t *testing.T, account, id, name string, validated bool) {
	t.Helper()
	obs := usecasetest.Observer()
	f.clock.Advance(time.Second)
	err := command.NewCreateChannelHandler(f.repo, f.reg, f.clock, obs).Handle(t.Context(), command.CreateChannel{
		AccountID: account, ChannelID: id, Name: name, Provider: sandbox.Code, Settings: sandboxSettings()})
	if err == nil && validated {
		err = command.NewValidateChannelHandler(f.repo, f.reg, f.clock, obs).Handle(t.Context(), command.ValidateChannel{AccountID: account, ID: id})
	}
	if err != nil {
		t.Fatalf("channel %s: %v", id, err)
	}
}

func failing(repo *memory.Repository, err error) {
	repo.Interfere(func(string, string) error { return err })
}

var errDatabase = errors.New("connection reset by peer")

// GetChannel answers the public record, secrets masked, from the write
// model; another account's channel is forbidden, a missing one not found.
func TestGetChannel(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.channel(t, acme, "ch_1", "Main", true)
	get := query.NewGetChannelHandler(f.repo, usecasetest.Observer())

	got, err := get.Handle(t.Context(), query.GetChannel{AccountID: acme, ID: "ch_1"})
	if err != nil {
		t.Fatal(err)
	}
	validatedAt := t0.Add(time.Second)
	want := contract.ShippingChannel{ID: "ch_1", Name: "Main", Provider: sandbox.Code, Status: "active",
		Settings:    map[string]any{"clientId": "client-1", "clientSecret": domain.MaskedSecret, "productType": "STANDARD"},
		ValidatedAt: &validatedAt, CreatedAt: t0.Add(time.Second), UpdatedAt: t0.Add(time.Second)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("record %+v, want %+v", got, want)
	}

	for _, tc := range []struct {
		q    query.GetChannel
		kind fault.Kind
	}{
		{query.GetChannel{AccountID: globex, ID: "ch_1"}, fault.KindForbidden},
		{query.GetChannel{AccountID: acme, ID: "ch_missing"}, fault.KindNotFound},
	} {
		if _, err := get.Handle(t.Context(), tc.q); !fault.Is(err, tc.kind) {
			t.Errorf("%+v: %v, want a fault of kind %d", tc.q, err, tc.kind)
		}
	}
	failing(f.repo, errDatabase)
	if _, err := get.Handle(t.Context(), query.GetChannel{AccountID: acme, ID: "ch_1"}); !errors.Is(err, errDatabase) {
		t.Errorf("failing repository: %v", err)
	}
}

// ChannelForUse opens the settings for the modules that call the carrier,
// under the same ownership rule.
func TestChannelForUse(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.channel(t, acme, "ch_draft", "Draft", false)
	f.channel(t, acme, "ch_active", "Active", true)
	forUse := query.NewChannelForUseHandler(f.repo, usecasetest.Observer())

	for id, active := range map[string]bool{"ch_draft": false, "ch_active": true} {
		got, err := forUse.Handle(t.Context(), query.ChannelForUse{AccountID: acme, ChannelID: id})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != id || got.AccountID != acme || got.Provider != sandbox.Code || got.Active() != active ||
			!maps.Equal(got.Settings, sandboxSettings()) {
			t.Errorf("%s: %+v, want its settings in clear, active %v", id, got, active)
		}
	}
	for _, tc := range []struct {
		q    query.ChannelForUse
		kind fault.Kind
	}{
		{query.ChannelForUse{AccountID: globex, ChannelID: "ch_active"}, fault.KindForbidden},
		{query.ChannelForUse{AccountID: acme, ChannelID: "ch_missing"}, fault.KindNotFound},
	} {
		if got, err := forUse.Handle(t.Context(), tc.q); !fault.Is(err, tc.kind) || got.Settings != nil {
			t.Errorf("%+v: %v and %+v, want a fault of kind %d and nothing else", tc.q, err, got, tc.kind)
		}
	}
	failing(f.repo, errDatabase)
	if _, err := forUse.Handle(t.Context(), query.ChannelForUse{AccountID: acme, ChannelID: "ch_active"}); !errors.Is(err, errDatabase) {
		t.Errorf("failing repository: %v", err)
	}
}

// ListChannels answers the read model's page for the query as asked.
func TestListChannels(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.channel(t, acme, "ch_1", "One", true)
	f.channel(t, acme, "ch_2", "Two", false)
	f.channel(t, acme, "ch_3", "Three", false)
	f.channel(t, globex, "ch_4", "Theirs", false)
	list := query.NewListChannelsHandler(memory.NewChannelList(f.repo), usecasetest.Observer())

	for _, tc := range []struct {
		q     query.ListChannels
		want  []string
		total int
	}{
		{query.ListChannels{AccountID: acme, Limit: 10}, []string{"ch_3", "ch_2", "ch_1"}, 3},
		{query.ListChannels{AccountID: acme, Limit: 2, Offset: 2}, []string{"ch_1"}, 3},
		{query.ListChannels{AccountID: acme, Limit: 10, Status: "draft"}, []string{"ch_3", "ch_2"}, 2},
		{query.ListChannels{AccountID: acme, Limit: 10, Provider: "gls"}, nil, 0},
		{query.ListChannels{AccountID: globex, Limit: 10}, []string{"ch_4"}, 1},
	} {
		page, err := list.Handle(t.Context(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, rec := range page.Records {
			var c contract.ShippingChannel
			if err := json.Unmarshal(rec, &c); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, tc.want) || page.Total != tc.total {
			t.Errorf("%+v: %v of %d, want %v of %d", tc.q, ids, page.Total, tc.want, tc.total)
		}
	}
	failed := query.NewListChannelsHandler(failingList{}, usecasetest.Observer())
	if _, err := failed.Handle(t.Context(), query.ListChannels{AccountID: acme, Limit: 10}); !errors.Is(err, errDatabase) {
		t.Errorf("failing list: %v", err)
	}
}

// failingList is a read model whose database is gone.
type failingList struct{}

func (failingList) List(context.Context, query.ListChannels) (query.ChannelPage, error) {
	return query.ChannelPage{}, errDatabase
}

// ListProviders describes every provider of the registry, by code.
func TestListProviders(t *testing.T) {
	t.Parallel()
	pigeon := carrier.ProviderInfo{Code: "pigeon", Name: "Carrier pigeon"}
	reg := carrier.NewRegistry(sandbox.New(), infoOnly(pigeon))
	got, err := query.NewListProvidersHandler(reg, usecasetest.Observer()).Handle(t.Context(), query.ListProviders{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0], pigeon) || !reflect.DeepEqual(got[1], sandbox.New().Info()) {
		t.Fatalf("providers %+v", got)
	}
}

// infoOnly is a provider that is never asked anything but its description.
type infoOnly carrier.ProviderInfo

func (p infoOnly) Info() carrier.ProviderInfo { return carrier.ProviderInfo(p) }

func (infoOnly) ValidateCredentials(context.Context, carrier.Settings) error {
	return errors.New("not asked in these tests")
}
