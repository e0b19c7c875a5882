// Package app is the tracking module's use cases.
package app

import (
	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/usecase"
)

// Application is everything the module's ports may ask of it.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands are the write use cases.
type Commands struct {
	CreateTrackingParcel usecase.CommandHandler[command.CreateTrackingParcel]
	UpdateTrackingParcel usecase.CommandHandler[command.UpdateTrackingParcel]
	DeleteTrackingParcel usecase.CommandHandler[command.DeleteTrackingParcel]
	CheckTrackingParcel  usecase.CommandHandler[command.CheckTrackingParcel]
	CheckDueParcels      usecase.CommandHandler[command.DueCheck]
	TrackShipmentParcels usecase.CommandHandler[command.TrackShipmentParcels]
	StopTrackingChannel  usecase.CommandHandler[command.StopTrackingChannel]
	// BringScaledChecksForward is run by the checker as it starts.
	BringScaledChecksForward usecase.CommandHandler[command.BringScaledChecksForward]
}

// Queries are the read use cases.
type Queries struct {
	GetTrackingParcel   usecase.QueryHandler[query.GetTrackingParcel, contract.Detail]
	ListTrackingParcels usecase.QueryHandler[query.ListTrackingParcels, query.TrackingParcelPage]
	ClaimDueChecks      usecase.QueryHandler[query.ClaimDueChecks, []command.DueCheck]
}

// New wires the use cases to their ports; each reports to obs.
func New(repo domain.Repository, list query.TrackingParcelList, queue command.CheckQueue, ch channels.Channels, providers *carrier.Registry,
	clk clock.Clock, cfg config.Config, obs usecase.Observer) Application {
	return Application{
		Commands: Commands{
			CreateTrackingParcel:     command.NewCreateTrackingParcelHandler(repo, ch, providers, clk, obs),
			UpdateTrackingParcel:     command.NewUpdateTrackingParcelHandler(repo, clk, obs),
			DeleteTrackingParcel:     command.NewDeleteTrackingParcelHandler(repo, clk, obs),
			CheckTrackingParcel:      command.NewCheckTrackingParcelHandler(repo, ch, providers, clk, cfg.CarrierTimeout, obs),
			CheckDueParcels:          command.NewCheckDueParcelsHandler(repo, queue, providers, clk, cfg.CarrierTimeout, obs),
			TrackShipmentParcels:     command.NewTrackShipmentParcelsHandler(repo, clk, obs),
			StopTrackingChannel:      command.NewStopTrackingChannelHandler(repo, clk, obs),
			BringScaledChecksForward: command.NewBringScaledChecksForwardHandler(repo, queue, providers, clk, obs),
		},
		Queries: Queries{
			GetTrackingParcel:   query.NewGetTrackingParcelHandler(repo, obs),
			ListTrackingParcels: query.NewListTrackingParcelsHandler(list, obs),
			ClaimDueChecks:      query.NewClaimDueChecksHandler(queue, ch, obs),
		},
	}
}
