package contract_test

import (
	"testing"

	"shipd/modules/dispatch/contract"
	"shipd/platform/messaging/eventtest"
)

// Every event the module publishes keeps the shape its stored history was
// written in (testdata/events).
func TestMessagesKeepTheirShapes(t *testing.T) {
	eventtest.CheckShapes(t, contract.EventTypes,
		contract.PickupCreated{}, contract.PickupUnconfirmed{}, contract.PickupCancelled{}, contract.ManifestCreated{})
}
