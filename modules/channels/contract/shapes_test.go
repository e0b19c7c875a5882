package contract_test

import (
	"testing"

	"shipd/modules/channels/contract"
	"shipd/platform/messaging/eventtest"
)

// Every event the module publishes keeps the shape its stored history was
// written in (testdata/events).
func TestEventsKeepTheirShapes(t *testing.T) {
	eventtest.CheckShapes(t, contract.EventTypes,
		contract.ShippingChannelCreated{}, contract.ShippingChannelUpdated{}, contract.ShippingChannelDeleted{},
		contract.ShippingChannelValidated{}, contract.ShippingChannelStatusChanged{})
}
