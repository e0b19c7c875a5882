// Package channels is the shipping-channels bounded context: a merchant's
// carrier accounts (credentials and settings), validated with the carrier.
package channels

import (
	"github.com/google/wire"
	"github.com/gorilla/mux"

	"shipd/modules/channels/adapters"
	"shipd/modules/channels/app"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/modules/channels/ports"
	"shipd/platform/messaging"
	"shipd/platform/projection"
)

// ProviderSet builds the module for the composition root.
var ProviderSet = wire.NewSet(
	adapters.NewPostgresRepository,
	wire.Bind(new(domain.Repository), new(*adapters.PostgresRepository)),
	adapters.NewChannelListReader,
	wire.Bind(new(query.ChannelList), new(*adapters.ChannelListReader)),
	adapters.NewChannelListProjection,
	app.New,
	ports.NewHTTPServer,
	ports.NewFacade,
	ports.NewInternalHTTPServer,
	NewModule,
)

// Module is the channels module as the server sees it.
type Module struct {
	http       ports.HTTPServer
	internal   ports.InternalHTTPServer
	projection *adapters.ChannelListProjection
}

// NewModule assembles the module.
func NewModule(http ports.HTTPServer, internal ports.InternalHTTPServer, projection *adapters.ChannelListProjection) *Module {
	return &Module{http: http, internal: internal, projection: projection}
}

// Name names the module in logs.
func (m *Module) Name() string { return "channels" }

// RegisterRoutes adds the module's routes to the authenticated /v1 router.
func (m *Module) RegisterRoutes(r *mux.Router) { m.http.Register(r) }

// RegisterInternalRoutes adds the routes other shipd processes call to the
// /internal router (ADR 0033).
func (m *Module) RegisterInternalRoutes(r *mux.Router) { m.internal.Register(r) }

// RegisterHandlers subscribes the module's event handlers.
func (m *Module) RegisterHandlers(bus *messaging.Bus) error { return m.projection.Register(bus) }

// Streams: the module's event stream.
func (m *Module) Streams() []string { return []string{contract.Stream} }

// Projections are the module's read models, for `shipd projections`.
func (m *Module) Projections() []projection.Projection {
	return []projection.Projection{m.projection.Definition()}
}
