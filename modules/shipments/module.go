// Package shipments is the shipments bounded context: parcels booked with a
// carrier through a shipping channel, their tracking numbers and merged label.
package shipments

import (
	"errors"

	"github.com/google/wire"
	"github.com/gorilla/mux"

	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/modules/shipments/ports"
	"shipd/platform/messaging"
	"shipd/platform/projection"
	"shipd/platform/server"
)

// ProviderSet builds the module for the composition root. It needs a
// channels contract.Channels and a command.LabelMerger from outside.
var ProviderSet = wire.NewSet(
	adapters.NewPostgresRepository,
	wire.Bind(new(domain.Repository), new(*adapters.PostgresRepository)),
	adapters.NewShipmentListReader,
	wire.Bind(new(query.ShipmentList), new(*adapters.ShipmentListReader)),
	adapters.NewShipmentListProjection,
	adapters.NewBookingQueue,
	wire.Bind(new(command.BookingQueue), new(*adapters.BookingQueue)),
	app.New,
	ports.NewHTTPServer,
	ports.NewBookingWorker,
	ports.NewEventHandlers,
	NewModule,
)

// Module is the shipments module as the server sees it.
type Module struct {
	http       ports.HTTPServer
	events     ports.EventHandlers
	projection *adapters.ShipmentListProjection
	booking    *ports.BookingWorker
}

// NewModule assembles the module.
func NewModule(http ports.HTTPServer, events ports.EventHandlers, projection *adapters.ShipmentListProjection, booking *ports.BookingWorker) *Module {
	return &Module{http: http, events: events, projection: projection, booking: booking}
}

// Name names the module in logs.
func (m *Module) Name() string { return "shipments" }

// RegisterRoutes adds the module's routes to the authenticated /v1 router.
func (m *Module) RegisterRoutes(r *mux.Router) { m.http.Register(r) }

// RegisterHandlers subscribes the projection and the handlers of other
// modules' events.
func (m *Module) RegisterHandlers(bus *messaging.Bus) error {
	return errors.Join(m.projection.Register(bus), m.events.Register(bus))
}

// Streams: the module's event stream.
func (m *Module) Streams() []string { return []string{contract.Stream} }

// Workers are the module's background loops.
func (m *Module) Workers() []server.Worker { return []server.Worker{m.booking} }

// Projections are the module's read models, for `shipd projections`.
func (m *Module) Projections() []projection.Projection {
	return []projection.Projection{m.projection.Definition()}
}
