package memory_test

import (
	"testing"

	"shipd/modules/tracking/adapters/memory"
	"shipd/modules/tracking/adapters/repositorytest"
	"shipd/platform/clock"
	"shipd/platform/messaging/outboxtest"
)

// The in-memory repository and check queue keep the PostgreSQL ones'
// contract (repositorytest), so the app-layer tests that use them prove
// what holds in production.
func TestRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(_ *testing.T, clk clock.Clock) repositorytest.Subject {
		repo := memory.NewRepository()
		return repositorytest.Subject{Repo: repo, Queue: memory.NewCheckQueue(repo, clk),
			Written: outboxtest.FromRecord(repo.Published)}
	})
}
