package adapters_test

import (
	"testing"

	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/adapters/repositorytest"
	"shipd/platform/clock"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/secrets"
)

// The PostgreSQL repository and subscription list keep the contract the
// app-layer tests' fake keeps (repositorytest).
func TestPostgresRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(t *testing.T, clk clock.Clock) repositorytest.Subject {
		db := pgtest.Open(t)
		box, err := secrets.NewBox("a test key of at least thirty-two characters")
		if err != nil {
			t.Fatal(err)
		}
		return repositorytest.Subject{
			Repo:       adapters.NewPostgresRepository(db, box, clk),
			List:       adapters.NewSubscriptionListReader(db),
			Deliveries: adapters.NewDeliveryStore(db, box, clk),
		}
	})
}
