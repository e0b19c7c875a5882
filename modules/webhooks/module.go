// Package webhooks is the webhooks bounded context: subscriptions to the
// other modules' events, delivered as signed POSTs, logged and retried.
package webhooks

import (
	"github.com/google/wire"
	"github.com/gorilla/mux"

	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/domain"
	"shipd/modules/webhooks/ports"
	"shipd/platform/messaging"
	"shipd/platform/server"
)

// ProviderSet builds the module for the composition root.
var ProviderSet = wire.NewSet(
	adapters.NewPostgresRepository,
	wire.Bind(new(domain.Repository), new(*adapters.PostgresRepository)),
	adapters.NewSubscriptionListReader,
	wire.Bind(new(query.SubscriptionList), new(*adapters.SubscriptionListReader)),
	adapters.NewDeliveryLogReader,
	wire.Bind(new(query.DeliveryLogs), new(*adapters.DeliveryLogReader)),
	adapters.NewDeliveryStore,
	wire.Bind(new(command.Deliveries), new(*adapters.DeliveryStore)),
	adapters.NewHTTPSender,
	wire.Bind(new(command.Sender), new(*adapters.HTTPSender)),
	app.New,
	ports.NewHTTPServer,
	ports.NewEventHandlers,
	ports.NewDeliveryWorker,
	ports.NewRetentionWorker,
	NewModule,
)

// Module is the webhooks module as the server sees it.
type Module struct {
	http      ports.HTTPServer
	events    ports.EventHandlers
	delivery  *ports.DeliveryWorker
	retention *ports.RetentionWorker
}

// NewModule assembles the module.
func NewModule(http ports.HTTPServer, events ports.EventHandlers, delivery *ports.DeliveryWorker, retention *ports.RetentionWorker) *Module {
	return &Module{http: http, events: events, delivery: delivery, retention: retention}
}

// Name names the module in logs.
func (m *Module) Name() string { return "webhooks" }

// RegisterRoutes adds the module's routes to the authenticated /v1 router.
func (m *Module) RegisterRoutes(r *mux.Router) { m.http.Register(r) }

// RegisterHandlers subscribes the fan-out handlers to every public event.
func (m *Module) RegisterHandlers(bus *messaging.Bus) error { return m.events.Register(bus) }

// Streams: the module publishes no events and is sent no commands.
func (m *Module) Streams() []string { return nil }

// Workers are the module's background loops.
func (m *Module) Workers() []server.Worker { return []server.Worker{m.delivery, m.retention} }
