// Package tracking is the tracking bounded context: carriers' parcels
// followed through scheduled checks, with one standard status vocabulary.
package tracking

import (
	"errors"

	"github.com/google/wire"
	"github.com/gorilla/mux"

	"shipd/modules/tracking/adapters"
	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/modules/tracking/ports"
	"shipd/platform/messaging"
	"shipd/platform/projection"
	"shipd/platform/server"
)

// ProviderSet builds the module for the composition root. It needs a
// channels contract.Channels from outside.
var ProviderSet = wire.NewSet(
	adapters.NewPostgresRepository,
	wire.Bind(new(domain.Repository), new(*adapters.PostgresRepository)),
	adapters.NewParcelListReader,
	wire.Bind(new(query.TrackingParcelList), new(*adapters.ParcelListReader)),
	adapters.NewParcelListProjection,
	adapters.NewCheckQueue,
	wire.Bind(new(command.CheckQueue), new(*adapters.CheckQueue)),
	app.New,
	ports.NewHTTPServer,
	ports.NewCheckerWorker,
	ports.NewCommandHandlers,
	NewModule,
)

// Module is the tracking module as the server sees it.
type Module struct {
	http       ports.HTTPServer
	commands   ports.CommandHandlers
	projection *adapters.ParcelListProjection
	checker    *ports.CheckerWorker
}

// NewModule assembles the module.
func NewModule(http ports.HTTPServer, commands ports.CommandHandlers, projection *adapters.ParcelListProjection, checker *ports.CheckerWorker) *Module {
	return &Module{http: http, commands: commands, projection: projection, checker: checker}
}

// Name names the module in logs.
func (m *Module) Name() string { return "tracking" }

// RegisterRoutes adds the module's routes to the authenticated /v1 router.
func (m *Module) RegisterRoutes(r *mux.Router) { m.http.Register(r) }

// RegisterHandlers subscribes the projection and the handlers of the
// commands other modules send.
func (m *Module) RegisterHandlers(bus *messaging.Bus) error {
	return errors.Join(m.projection.Register(bus), m.commands.Register(bus))
}

// Streams: the module's event stream and the stream of commands it is sent.
func (m *Module) Streams() []string { return []string{contract.Stream, contract.CommandStream} }

// Workers are the module's background loops.
func (m *Module) Workers() []server.Worker { return []server.Worker{m.checker} }

// Projections are the module's read models, for `shipd projections`.
func (m *Module) Projections() []projection.Projection {
	return []projection.Projection{m.projection.Definition()}
}
