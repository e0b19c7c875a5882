package shipd

import (
	"context"
	"log/slog"

	"github.com/google/wire"
	"github.com/jmoiron/sqlx"

	"shipd/adapters/carriers/sandbox"
	"shipd/modules/channels"
	"shipd/platform/carrier"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/server"
)

// platformSet provides the shared infrastructure every module uses.
var platformSet = wire.NewSet(
	server.Logger,
	database,
	server.SecretBox,
	bus,
	outbox,
)

func database(ctx context.Context, cfg config.Config) (*sqlx.DB, func(), error) {
	return server.OpenDatabase(ctx, cfg)
}

func bus(db *sqlx.DB, cfg config.Config, logger *slog.Logger) (*messaging.Bus, error) {
	return messaging.NewBus(db, messaging.BusConfig{PollInterval: cfg.MessagePollInterval}, logger)
}

func outbox(logger *slog.Logger) *messaging.Outbox {
	return messaging.NewOutbox(messaging.WatermillLogger(logger))
}

// carriers is every carrier this build offers.
func carriers() *carrier.Registry {
	return carrier.NewRegistry(sandbox.New())
}

// modules lists the bounded contexts the server runs.
func modules(ch *channels.Module) []server.Module {
	return []server.Module{ch}
}

// workers lists the background loops every instance runs.
func workers(j *server.Janitor) []server.Worker {
	return []server.Worker{j}
}
