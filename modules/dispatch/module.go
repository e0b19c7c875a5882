// Package dispatch is the shipping-day bounded context: courier pickups
// ordered at the carriers and the manifests that hand shipments over, with
// the document the driver signs (the carrier's, or shipd's own). It keeps a
// copy of the shipments it may dispatch from the shipments stream (ADR 0054).
package dispatch

import (
	"errors"

	"github.com/google/wire"
	"github.com/gorilla/mux"

	"shipd/modules/dispatch/adapters"
	"shipd/modules/dispatch/app"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/app/query"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/modules/dispatch/ports"
	"shipd/platform/messaging"
	"shipd/platform/projection"
	"shipd/platform/server"
)

// ProviderSet builds the module for the composition root. It needs a
// channels contract.Channels from outside.
var ProviderSet = wire.NewSet(
	adapters.NewPickupRepository,
	wire.Bind(new(pickup.Repository), new(*adapters.PickupRepository)),
	adapters.NewManifestRepository,
	wire.Bind(new(manifest.Repository), new(*adapters.ManifestRepository)),
	adapters.NewShipmentReader,
	wire.Bind(new(domain.Shipments), new(*adapters.ShipmentReader)),
	adapters.NewListReader,
	wire.Bind(new(query.Lists), new(*adapters.ListReader)),
	wire.Value(adapters.HandoverDocuments{}),
	wire.Bind(new(command.HandoverDocuments), new(adapters.HandoverDocuments)),
	adapters.NewShipmentCopy,
	adapters.NewListProjections,
	app.New,
	ports.NewHTTPServer,
	ports.NewLeftoversWorker,
	NewModule,
)

// Module is the dispatch module as the server sees it.
type Module struct {
	http      ports.HTTPServer
	copy      *adapters.ShipmentCopy
	lists     *adapters.ListProjections
	leftovers *ports.LeftoversWorker
}

// NewModule assembles the module.
func NewModule(http ports.HTTPServer, copy *adapters.ShipmentCopy, lists *adapters.ListProjections, leftovers *ports.LeftoversWorker) *Module {
	return &Module{http: http, copy: copy, lists: lists, leftovers: leftovers}
}

// Name names the module in logs.
func (m *Module) Name() string { return "dispatch" }

// RegisterRoutes adds the module's routes to the authenticated /v1 router.
func (m *Module) RegisterRoutes(r *mux.Router) { m.http.Register(r) }

// RegisterHandlers subscribes the list projections and the copy of the
// shipments stream.
func (m *Module) RegisterHandlers(bus *messaging.Bus) error {
	return errors.Join(m.lists.Register(bus), m.copy.Register(bus))
}

// Streams: the module's event stream.
func (m *Module) Streams() []string { return []string{contract.Stream} }

// Workers are the module's background loops.
func (m *Module) Workers() []server.Worker { return []server.Worker{m.leftovers} }

// Projections are the module's read models, for `shipd projections`: the
// lists. The shipments' copy is not one of them: it is read from another
// module's stream, which a dispatch process with a database of its own
// does not keep.
func (m *Module) Projections() []projection.Projection { return m.lists.Definitions() }
