package memory_test

import (
	"testing"

	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/adapters/memory"
	"shipd/modules/shipments/adapters/repositorytest"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"
)

// The in-memory repository keeps the PostgreSQL repository's contract
// (repositorytest), so the app-layer tests that use it prove what holds in
// production: its tracking requests are what PostgreSQL sends as commands.
func TestRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(*testing.T) repositorytest.Subject {
		repo := memory.NewRepository()
		return repositorytest.Subject{Repo: repo,
			Published: outboxtest.FromRecord(repo.Published),
			Sent: outboxtest.FromRecord(func() (sent []messaging.Command) {
				for _, req := range repo.TrackingRequests() {
					sent = append(sent, adapters.TrackShipmentParcels(req))
				}
				return sent
			})}
	})
}
