//go:build wireinject

// This file is the composition root: it says which implementation serves
// each port. `make generate` turns it into wire_gen.go.
package shipd

import (
	"context"

	"github.com/google/wire"

	"shipd/modules/channels"
	"shipd/modules/dispatch"
	"shipd/modules/shipments"
	"shipd/modules/tracking"
	"shipd/modules/webhooks"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/idempotency"
	"shipd/platform/server"
)

// InitializeApp builds one instance of the service.
func InitializeApp(ctx context.Context, cfg config.Config, clk clock.Clock) (*server.App, func(), error) {
	wire.Build(
		platformSet,
		carriers,
		channels.ProviderSet,
		shipments.ProviderSet,
		tracking.ProviderSet,
		webhooks.ProviderSet,
		dispatch.ProviderSet,
		idempotency.NewStore,
		server.NewJanitor,
		modules,
		frontends,
		forwarder,
		workers,
		server.NewApp,
	)
	return nil, nil, nil
}
