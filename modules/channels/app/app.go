// Package app is the channel module's use cases: commands change channels,
// queries read them.
package app

import (
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
)

// Application is everything the module's ports may ask of it.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands are the write use cases.
type Commands struct {
	CreateChannel   command.CreateChannelHandler
	UpdateChannel   command.UpdateChannelHandler
	DeleteChannel   command.DeleteChannelHandler
	ValidateChannel command.ValidateChannelHandler
}

// Queries are the read use cases.
type Queries struct {
	GetChannel    query.GetChannelHandler
	ListChannels  query.ListChannelsHandler
	ListProviders query.ListProvidersHandler
	ChannelForUse query.ChannelForUseHandler
}

// New wires the use cases to their ports.
func New(repo domain.Repository, list query.ChannelList, providers *carrier.Registry, clk clock.Clock) Application {
	return Application{
		Commands: Commands{
			CreateChannel:   command.NewCreateChannelHandler(repo, providers, clk),
			UpdateChannel:   command.NewUpdateChannelHandler(repo, providers, clk),
			DeleteChannel:   command.NewDeleteChannelHandler(repo, clk),
			ValidateChannel: command.NewValidateChannelHandler(repo, providers, clk),
		},
		Queries: Queries{
			GetChannel:    query.NewGetChannelHandler(repo),
			ListChannels:  query.NewListChannelsHandler(list),
			ListProviders: query.NewListProvidersHandler(providers),
			ChannelForUse: query.NewChannelForUseHandler(repo),
		},
	}
}
