package adapters_test

import (
	"testing"

	"github.com/ThreeDotsLabs/watermill"

	"shipd/modules/tracking/adapters"
	"shipd/modules/tracking/adapters/repositorytest"
	"shipd/modules/tracking/contract"
	"shipd/platform/clock"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"
)

// The PostgreSQL repository and check queue keep the contract the app-layer
// tests' fakes keep (repositorytest).
func TestPostgresRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(t *testing.T, clk clock.Clock) repositorytest.Subject {
		db := outboxtest.Open(t, contract.Stream)
		return repositorytest.Subject{
			Repo:    adapters.NewPostgresRepository(db, messaging.NewOutbox(watermill.NopLogger{})),
			Queue:   adapters.NewCheckQueue(db, clk),
			Written: outboxtest.FromStreams(db, contract.Stream),
		}
	})
}
