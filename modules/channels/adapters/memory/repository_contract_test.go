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
			Written: func(t *testing.T) []outboxtest.Message { return outboxtest.Of(t, repo.Published()) },
			Sent: func(t *testing.T) []outboxtest.Message {
				var sent []messaging.Command
				for _, stop := range repo.TrackingStopped() {
					sent = append(sent, adapters.StopTrackingChannel(stop.AccountID, stop.ChannelID))
				}
				return outboxtest.Of(t, sent)
			}}
	})
}
