package memory_test

import (
	"testing"

	"shipd/modules/dispatch/adapters/memory"
	"shipd/modules/dispatch/adapters/repositorytest"
	"shipd/modules/dispatch/domain"
	"shipd/platform/messaging/outboxtest"
)

// The in-memory adapters keep the PostgreSQL adapters' contract
// (repositorytest), so the app-layer tests that use them prove what holds
// in production.
func TestRepositories(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(*testing.T) repositorytest.Subject {
		pickups, manifests := memory.NewPickups(), memory.NewManifests()
		shipments := memory.NewShipments(manifests)
		return repositorytest.Subject{Pickups: pickups, Manifests: manifests, Shipments: shipments,
			Lists: memory.NewLists(pickups, manifests),
			Copy: func(_ *testing.T, sh domain.Shipment, deleted bool) {
				if deleted {
					shipments.Delete(sh.ID)
					return
				}
				shipments.Put(sh)
			},
			CatchUp: func(*testing.T) {}, // the lists read the events as they are asked
			// The pickups' events, then the manifests': no case of the
			// suite reads both kinds at once.
			Written: outboxtest.FromRecord(func() []domain.Event { return append(pickups.Published(), manifests.Published()...) }),
		}
	})
}
