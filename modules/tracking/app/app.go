// Package app is the tracking module's use cases.
package app

import (
	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
)

// Application is everything the module's ports may ask of it.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands are the write use cases.
type Commands struct {
	CreateTrackingParcel command.CreateTrackingParcelHandler
	UpdateTrackingParcel command.UpdateTrackingParcelHandler
	DeleteTrackingParcel command.DeleteTrackingParcelHandler
	CheckTrackingParcel  command.CheckTrackingParcelHandler
	CheckDueParcels      command.CheckDueParcelsHandler
	TrackShipmentParcels command.TrackShipmentParcelsHandler
	StopTrackingChannel  command.StopTrackingChannelHandler
}

// Queries are the read use cases.
type Queries struct {
	GetTrackingParcel   query.GetTrackingParcelHandler
	ListTrackingParcels query.ListTrackingParcelsHandler
}

// New wires the use cases to their ports.
func New(repo domain.Repository, list query.TrackingParcelList, queue command.CheckQueue, ch channels.Channels, providers *carrier.Registry, clk clock.Clock, cfg config.Config) Application {
	return Application{
		Commands: Commands{
			CreateTrackingParcel: command.NewCreateTrackingParcelHandler(repo, ch, providers, clk),
			UpdateTrackingParcel: command.NewUpdateTrackingParcelHandler(repo, clk),
			DeleteTrackingParcel: command.NewDeleteTrackingParcelHandler(repo, clk),
			CheckTrackingParcel:  command.NewCheckTrackingParcelHandler(repo, ch, providers, clk, cfg.CarrierTimeout),
			CheckDueParcels:      command.NewCheckDueParcelsHandler(repo, queue, ch, providers, clk, cfg.CarrierTimeout),
			TrackShipmentParcels: command.NewTrackShipmentParcelsHandler(repo, clk),
			StopTrackingChannel:  command.NewStopTrackingChannelHandler(repo, clk),
		},
		Queries: Queries{
			GetTrackingParcel:   query.NewGetTrackingParcelHandler(repo),
			ListTrackingParcels: query.NewListTrackingParcelsHandler(list),
		},
	}
}
