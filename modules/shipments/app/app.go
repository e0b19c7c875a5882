// Package app is the shipments module's use cases.
package app

import (
	channels "shipd/modules/channels/contract"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
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
	CreateShipment usecase.CommandHandler[command.CreateShipment]
	BookShipment   usecase.CommandHandler[command.BookShipment]
	UpdateShipment usecase.CommandHandler[command.UpdateShipment]
	DeleteShipment usecase.CommandHandler[command.DeleteShipment]
	CancelShipment usecase.CommandHandler[command.CancelShipment]
	// RetryLabel fetches again the label of a shipment the carrier holds.
	RetryLabel usecase.CommandHandler[command.RetryLabel]
	// RecordTrackingProgress keeps shipments in step with their tracking parcels.
	RecordTrackingProgress usecase.CommandHandler[command.RecordTrackingProgress]
	// RecordDispatchNews shows on shipments their pickups and manifests.
	RecordDispatchNews usecase.CommandHandler[command.RecordDispatchNews]
}

// Queries are the read use cases.
type Queries struct {
	GetShipment   usecase.QueryHandler[query.GetShipment, contract.Shipment]
	GetLabel      usecase.QueryHandler[query.GetLabel, query.ShipmentLabel]
	ListShipments usecase.QueryHandler[query.ListShipments, query.ShipmentPage]
}

// New wires the use cases to their ports; each reports to obs.
func New(repo domain.Repository, list query.ShipmentList, ch channels.Channels, providers *carrier.Registry,
	labels command.LabelMerger, clk clock.Clock, cfg config.Config, obs usecase.Observer) Application {
	return Application{
		Commands: Commands{
			CreateShipment:         command.NewCreateShipmentHandler(repo, ch, providers, clk, obs),
			BookShipment:           command.NewBookShipmentHandler(repo, ch, providers, labels, clk, cfg.CarrierTimeout, obs),
			UpdateShipment:         command.NewUpdateShipmentHandler(repo, clk, obs),
			DeleteShipment:         command.NewDeleteShipmentHandler(repo, clk, obs),
			CancelShipment:         command.NewCancelShipmentHandler(repo, ch, providers, clk, cfg.CarrierTimeout, obs),
			RetryLabel:             command.NewRetryLabelHandler(repo, clk, obs),
			RecordTrackingProgress: command.NewRecordTrackingProgressHandler(repo, clk, obs),
			RecordDispatchNews:     command.NewRecordDispatchNewsHandler(repo, clk, obs),
		},
		Queries: Queries{
			GetShipment:   query.NewGetShipmentHandler(repo, obs),
			GetLabel:      query.NewGetLabelHandler(repo, obs),
			ListShipments: query.NewListShipmentsHandler(list, obs),
		},
	}
}
