// Package app is the shipments module's use cases.
package app

import (
	channels "shipd/modules/channels/contract"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/domain"
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
	CreateShipment command.CreateShipmentHandler
	BookShipment   command.BookShipmentHandler
	UpdateShipment command.UpdateShipmentHandler
	DeleteShipment command.DeleteShipmentHandler
	CancelShipment command.CancelShipmentHandler
	// RecordTrackingProgress keeps shipments in step with their tracking parcels.
	RecordTrackingProgress command.RecordTrackingProgressHandler
}

// Queries are the read use cases.
type Queries struct {
	GetShipment   query.GetShipmentHandler
	GetLabel      query.GetLabelHandler
	ListShipments query.ListShipmentsHandler
}

// New wires the use cases to their ports.
func New(repo domain.Repository, list query.ShipmentList, ch channels.Channels, providers *carrier.Registry,
	labels command.LabelMerger, clk clock.Clock, cfg config.Config) Application {
	return Application{
		Commands: Commands{
			CreateShipment:         command.NewCreateShipmentHandler(repo, ch, providers, clk),
			BookShipment:           command.NewBookShipmentHandler(repo, ch, providers, labels, clk, cfg.CarrierTimeout),
			UpdateShipment:         command.NewUpdateShipmentHandler(repo, clk),
			DeleteShipment:         command.NewDeleteShipmentHandler(repo, clk),
			CancelShipment:         command.NewCancelShipmentHandler(repo, ch, providers, clk, cfg.CarrierTimeout),
			RecordTrackingProgress: command.NewRecordTrackingProgressHandler(repo, clk),
		},
		Queries: Queries{
			GetShipment:   query.NewGetShipmentHandler(repo),
			GetLabel:      query.NewGetLabelHandler(repo),
			ListShipments: query.NewListShipmentsHandler(list),
		},
	}
}
