package contract_test

import (
	"testing"

	"shipd/modules/shipments/contract"
	"shipd/platform/messaging/eventtest"
)

// Every event the module publishes keeps the shape its stored history was
// written in (testdata/events).
func TestEventsKeepTheirShapes(t *testing.T) {
	eventtest.CheckShapes(t, contract.EventTypes,
		contract.ShipmentRequested{}, contract.ShipmentCreated{}, contract.ShipmentUpdated{},
		contract.ShipmentDeleted{}, contract.ShipmentStatusChanged{})
}
