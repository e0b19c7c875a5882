package contract_test

import (
	"testing"

	"shipd/modules/tracking/contract"
	"shipd/platform/messaging/eventtest"
)

// Every event the module publishes, and every command it takes, keeps the
// shape its stored history was written in (testdata/events).
func TestMessagesKeepTheirShapes(t *testing.T) {
	names := append([]string{contract.TrackShipmentParcels{}.CommandName(), contract.StopTrackingChannel{}.CommandName()}, contract.EventTypes...)
	eventtest.CheckShapes(t, names,
		contract.TrackingParcelCreated{}, contract.TrackingParcelUpdated{}, contract.TrackingParcelDeleted{},
		contract.TrackingParcelStatusChanged{}, contract.TrackShipmentParcels{}, contract.StopTrackingChannel{})
}
