package memory_test

import (
	"testing"

	"shipd/modules/webhooks/adapters/memory"
	"shipd/modules/webhooks/adapters/repositorytest"
	"shipd/platform/clock"
)

// The in-memory store keeps the PostgreSQL repository's and list's contract
// (repositorytest), so the app-layer tests that use it prove what holds in
// production.
func TestRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(_ *testing.T, clk clock.Clock) repositorytest.Subject {
		store := memory.NewStore(clk)
		return repositorytest.Subject{Repo: store, List: store, Deliveries: store}
	})
}
