package contract

import (
	"encoding/json"
	"fmt"

	"shipd/platform/messaging"
)

// EventVersion is the shape every shipment event has now: version 2 added
// the snapshot's pickup_point_id, version 3 its pickup_id and manifest_id.
func (ShipmentEvent) EventVersion() int { return 3 }

// Stored version 1 events are read as version 2 with no pickup point, which
// is what they were: shipd named none before version 2.
// Stored version 2 events are read as version 3 on no courier pickup and
// no manifest, which is what they were: there were none before version 3.
func init() {
	for _, eventType := range EventTypes {
		messaging.RegisterUpcaster(messaging.Upcaster{EventType: eventType, From: 1, Upcast: withoutPickupPoint})
		messaging.RegisterUpcaster(messaging.Upcaster{EventType: eventType, From: 2, Upcast: withoutDispatch})
	}
}

func withoutPickupPoint(payload []byte) ([]byte, error) { return withNulls(payload, "pickup_point_id") }

func withoutDispatch(payload []byte) ([]byte, error) {
	return withNulls(payload, "pickup_id", "manifest_id")
}

// withNulls is payload with each of names its shipment lacks set to null.
func withNulls(payload []byte, names ...string) ([]byte, error) {
	var event map[string]json.RawMessage
	if err := json.Unmarshal(payload, &event); err != nil {
		return nil, err
	}
	var shipment map[string]json.RawMessage
	if err := json.Unmarshal(event["shipment"], &shipment); err != nil {
		return nil, fmt.Errorf("its shipment: %w", err)
	}
	for _, name := range names {
		if _, ok := shipment[name]; !ok {
			shipment[name] = json.RawMessage("null")
		}
	}
	raw, err := json.Marshal(shipment)
	if err != nil {
		return nil, err
	}
	event["shipment"] = raw
	return json.Marshal(event)
}
