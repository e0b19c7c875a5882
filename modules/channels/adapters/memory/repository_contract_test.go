package memory_test

import (
	"testing"

	"shipd/modules/channels/adapters"
	"shipd/modules/channels/adapters/memory"
	"shipd/modules/channels/adapters/repositorytest"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"
)

// The in-memory repository keeps the PostgreSQL repository's contract
// (repositorytest), so the app-layer tests that use it prove what holds in
// production.
func TestRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(*testing.T) repositorytest.Subject {
		repo := memory.NewRepository()
		return repositorytest.Subject{Repo: repo,
			Written: outboxtest.FromRecord(repo.Published),
			Sent: outboxtest.FromRecord(func() (sent []messaging.Command) {
				for _, stop := range repo.TrackingStopped() {
					sent = append(sent, adapters.StopTrackingChannel(stop.AccountID, stop.ChannelID))
				}
				return sent
			})}
	})
}
