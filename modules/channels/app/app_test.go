package app_test

import (
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/modules/channels/adapters/memory"
	"shipd/modules/channels/app"
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/app/query"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// New wires every use case to the ports it is given: a channel's whole life
// through the Application, as the ports drive it.
func TestApplicationRunsAChannelsLife(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	repo := memory.NewRepository()
	a := app.New(repo, memory.NewChannelList(repo), carrier.NewRegistry(sandbox.New()),
		clock.NewManual(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)), usecasetest.Observer())

	providers, err := a.Queries.ListProviders.Handle(ctx, query.ListProviders{})
	if err != nil || len(providers) != 1 || providers[0].Code != sandbox.Code {
		t.Fatalf("providers %v (%v)", providers, err)
	}
	steps := []func() error{
		func() error {
			return a.Commands.CreateChannel.Handle(ctx, command.CreateChannel{AccountID: "acc_1", ChannelID: "ch_1", Name: "Main",
				Provider: sandbox.Code, Settings: map[string]any{"clientId": "c", "clientSecret": "s"}})
		},
		func() error {
			return a.Commands.ValidateChannel.Handle(ctx, command.ValidateChannel{AccountID: "acc_1", ID: "ch_1"})
		},
		func() error {
			return a.Commands.UpdateChannel.Handle(ctx, command.UpdateChannel{AccountID: "acc_1", ID: "ch_1", Description: new("mine")})
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got, err := a.Queries.GetChannel.Handle(ctx, query.GetChannel{AccountID: "acc_1", ID: "ch_1"})
	if err != nil || got.Status != "active" || got.Description != "mine" {
		t.Fatalf("get: %+v (%v)", got, err)
	}
	access, err := a.Queries.ChannelForUse.Handle(ctx, query.ChannelForUse{AccountID: "acc_1", ChannelID: "ch_1"})
	if err != nil || !access.Active() || access.Settings["clientSecret"] != "s" {
		t.Fatalf("for use: %+v (%v)", access, err)
	}
	page, err := a.Queries.ListChannels.Handle(ctx, query.ListChannels{AccountID: "acc_1", Limit: 10})
	if err != nil || page.Total != 1 {
		t.Fatalf("list: %+v (%v)", page, err)
	}
	if err := a.Commands.DeleteChannel.Handle(ctx, command.DeleteChannel{AccountID: "acc_1", ID: "ch_1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Queries.GetChannel.Handle(ctx, query.GetChannel{AccountID: "acc_1", ID: "ch_1"}); !fault.Is(err, fault.KindNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}
