package adapters_test

import (
	"testing"

	"github.com/ThreeDotsLabs/watermill"

	"shipd/modules/channels/adapters"
	"shipd/modules/channels/adapters/repositorytest"
	"shipd/modules/channels/contract"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"
	"shipd/platform/secrets"

	tracking "shipd/modules/tracking/contract"
)

// The PostgreSQL repository keeps the contract the app-layer tests' fake
// keeps (repositorytest).
func TestPostgresRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(t *testing.T) repositorytest.Subject {
		db := outboxtest.Open(t, contract.Stream, tracking.CommandStream)
		box, err := secrets.NewBox("a test key of at least thirty-two characters")
		if err != nil {
			t.Fatal(err)
		}
		return repositorytest.Subject{
			Repo:    adapters.NewPostgresRepository(db, box, messaging.NewOutbox(watermill.NopLogger{})),
			Written: outboxtest.FromStreams(db, contract.Stream),
			Sent:    outboxtest.FromStreams(db, tracking.CommandStream),
		}
	})
}
