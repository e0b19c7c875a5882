// Package app is the channel module's use cases: commands change channels,
// queries read them.
package app

import (
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// Application is everything the module's ports may ask of it.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands are the write use cases.
type Commands struct {
	CreateChannel   usecase.CommandHandler[command.CreateChannel]
	UpdateChannel   usecase.CommandHandler[command.UpdateChannel]
	DeleteChannel   usecase.CommandHandler[command.DeleteChannel]
	ValidateChannel usecase.CommandHandler[command.ValidateChannel]
	RenewCredential usecase.CommandHandler[command.RenewCredential]
}

// Queries are the read use cases.
type Queries struct {
	GetChannel    usecase.QueryHandler[query.GetChannel, contract.ShippingChannel]
	ListChannels  usecase.QueryHandler[query.ListChannels, query.ChannelPage]
	ListProviders usecase.QueryHandler[query.ListProviders, []carrier.ProviderInfo]
	ChannelForUse usecase.QueryHandler[query.ChannelForUse, contract.ChannelAccess]
}

// New wires the use cases to their ports; each reports to obs.
func New(repo domain.Repository, list query.ChannelList, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) Application {
	return Application{
		Commands: Commands{
			CreateChannel:   command.NewCreateChannelHandler(repo, providers, clk, obs),
			UpdateChannel:   command.NewUpdateChannelHandler(repo, providers, clk, obs),
			DeleteChannel:   command.NewDeleteChannelHandler(repo, clk, obs),
			ValidateChannel: command.NewValidateChannelHandler(repo, providers, clk, obs),
			RenewCredential: command.NewRenewCredentialHandler(repo, obs),
		},
		Queries: Queries{
			GetChannel:    query.NewGetChannelHandler(repo, obs),
			ListChannels:  query.NewListChannelsHandler(list, obs),
			ListProviders: query.NewListProvidersHandler(providers, obs),
			ChannelForUse: query.NewChannelForUseHandler(repo, obs),
		},
	}
}
