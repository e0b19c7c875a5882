// Package app is the dispatch module's use cases: commands order and cancel
// pickups and make manifests, queries read them.
package app

import (
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/app/query"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
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
	OrderPickup      usecase.CommandHandler[command.OrderPickup]
	CancelPickup     usecase.CommandHandler[command.CancelPickup]
	ResolvePickups   usecase.CommandHandler[command.ResolvePickups]
	CreateManifest   usecase.CommandHandler[command.CreateManifest]
	ReleaseManifests usecase.CommandHandler[command.ReleaseManifests]
}

// Queries are the read use cases.
type Queries struct {
	GetPickup          usecase.QueryHandler[query.GetPickup, contract.Pickup]
	ListPickups        usecase.QueryHandler[query.ListPickups, query.Page]
	PickupAvailability usecase.QueryHandler[query.PickupAvailability, query.Availability]
	GetManifest        usecase.QueryHandler[query.GetManifest, contract.Manifest]
	ListManifests      usecase.QueryHandler[query.ListManifests, query.Page]
	ManifestDocument   usecase.QueryHandler[query.ManifestDocument, query.Document]
}

// Dependencies are what the use cases need besides the observer.
type Dependencies struct {
	Pickups   pickup.Repository
	Manifests manifest.Repository
	Shipments domain.Shipments
	Lists     query.Lists
	Channels  channels.Channels
	Providers *carrier.Registry
	Documents command.HandoverDocuments
	Clock     clock.Clock
	// CarrierTimeout bounds one carrier call (command.DefaultCarrierTimeout
	// when 0).
	CarrierTimeout time.Duration
}

// New wires the use cases to the module's ports, each carrier call bounded
// by cfg.CarrierTimeout (CARRIER_TIMEOUT), which also says when a pickup or
// manifest left half-way counts as left behind (twice that); each reports
// to obs.
func New(pickups pickup.Repository, manifests manifest.Repository, shipments domain.Shipments, lists query.Lists,
	ch channels.Channels, providers *carrier.Registry, documents command.HandoverDocuments, clk clock.Clock, cfg config.Config,
	obs usecase.Observer) Application {
	return NewWith(Dependencies{Pickups: pickups, Manifests: manifests, Shipments: shipments, Lists: lists, Channels: ch,
		Providers: providers, Documents: documents, Clock: clk, CarrierTimeout: cfg.CarrierTimeout}, obs)
}

// NewWith wires the use cases to d; each reports to obs.
func NewWith(d Dependencies, obs usecase.Observer) Application {
	timeout := d.CarrierTimeout
	if timeout <= 0 {
		timeout = command.DefaultCarrierTimeout
	}
	return Application{
		Commands: Commands{
			OrderPickup:      command.NewOrderPickupHandler(d.Pickups, d.Shipments, d.Channels, d.Providers, d.Clock, timeout, obs),
			CancelPickup:     command.NewCancelPickupHandler(d.Pickups, d.Channels, d.Providers, d.Clock, timeout, obs),
			ResolvePickups:   command.NewResolvePickupsHandler(d.Pickups, d.Shipments, d.Channels, d.Providers, d.Clock, timeout, obs),
			CreateManifest:   command.NewCreateManifestHandler(d.Manifests, d.Shipments, d.Channels, d.Providers, d.Documents, d.Clock, timeout, obs),
			ReleaseManifests: command.NewReleaseManifestsHandler(d.Manifests, d.Clock, timeout, obs),
		},
		Queries: Queries{
			GetPickup:          query.NewGetPickupHandler(d.Pickups, obs),
			ListPickups:        query.NewListPickupsHandler(d.Lists, obs),
			PickupAvailability: query.NewPickupAvailabilityHandler(d.Shipments, d.Channels, d.Providers, d.Clock, timeout, obs),
			GetManifest:        query.NewGetManifestHandler(d.Manifests, obs),
			ListManifests:      query.NewListManifestsHandler(d.Lists, obs),
			ManifestDocument:   query.NewManifestDocumentHandler(d.Manifests, obs),
		},
	}
}
