package contract

import (
	"encoding/json"
	"fmt"

	"shipd/platform/messaging"
)

// EventVersion is the shape every shipment event has now: version 2 added
// the snapshot's pickup_point_id.
func (ShipmentEvent) EventVersion() int { return 2 }

// Stored version 1 events are read as version 2 with no pickup point, which
// is what they were: shipd named none before version 2.
func init() {
	for _, eventType := range EventTypes {
		messaging.RegisterUpcaster(messaging.Upcaster{EventType: eventType, From: 1, Upcast: withoutPickupPoint})
	}
}

func withoutPickupPoint(payload []byte) ([]byte, error) {
	var event map[string]json.RawMessage
	if err := json.Unmarshal(payload, &event); err != nil {
		return nil, err
	}
	var shipment map[string]json.RawMessage
	if err := json.Unmarshal(event["shipment"], &shipment); err != nil {
		return nil, fmt.Errorf("its shipment: %w", err)
	}
	if _, ok := shipment["pickup_point_id"]; !ok {
		shipment["pickup_point_id"] = json.RawMessage("null")
	}
	raw, err := json.Marshal(shipment)
	if err != nil {
		return nil, err
	}
	event["shipment"] = raw
	return json.Marshal(event)
}
