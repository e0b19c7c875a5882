package contract

import (
	"encoding/json"
	"testing"
)

// A version 1 event, stored before shipments named pickup points, reads as
// a version 2 event of a shipment without one; the rest stays as stored.
func TestVersionOneEventsReadWithoutAPickupPoint(t *testing.T) {
	v1 := `{"account_id":"acc_1","version":3,"occurred_at":"2026-11-03T10:00:00Z","shipment":{"id":"sh_1","reference_number":"ORDER-1","status":"created"}}`
	up, err := withoutPickupPoint([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	var e ShipmentCreated
	if err := json.Unmarshal(up, &e); err != nil {
		t.Fatal(err)
	}
	if e.Shipment.PickupPointID != nil || e.Shipment.ID != "sh_1" || e.Shipment.ReferenceNumber != "ORDER-1" || e.Version != 3 || e.AccountID != "acc_1" {
		t.Errorf("upcast to %s", up)
	}
	var raw struct {
		Shipment map[string]json.RawMessage `json:"shipment"`
	}
	if err := json.Unmarshal(up, &raw); err != nil || string(raw.Shipment["pickup_point_id"]) != "null" {
		t.Errorf("pickup_point_id of the upcast event: %s (%v)", raw.Shipment["pickup_point_id"], err)
	}
	if _, err := withoutPickupPoint([]byte(`{"shipment": 7}`)); err == nil {
		t.Error("an event whose shipment is no object was upcast")
	}
}
