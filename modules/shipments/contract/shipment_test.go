package contract_test

import (
	"encoding/json"
	"testing"

	"shipd/modules/shipments/contract"
)

// Events stored before missing prices were kept missing carry 0 and "" for
// a carrier that named none; read back, they name no price. A real price,
// 0 included, is kept.
func TestStoredRecordWithoutCurrencyHasNoPrice(t *testing.T) {
	tests := []struct {
		stored   string
		price    any // nil or float64
		currency any // nil or string
	}{
		{`{"id":"sh_1","total_price":0,"currency":""}`, nil, nil},
		{`{"id":"sh_1","total_price":12.5,"currency":""}`, nil, nil},
		{`{"id":"sh_1","total_price":null,"currency":null}`, nil, nil},
		{`{"id":"sh_1"}`, nil, nil},
		{`{"id":"sh_1","total_price":6.5,"currency":"EUR"}`, 6.5, "EUR"},
		{`{"id":"sh_1","total_price":0,"currency":"CZK"}`, 0.0, "CZK"},
	}
	for _, tt := range tests {
		var e contract.ShipmentCreated
		if err := json.Unmarshal([]byte(`{"account_id":"acc_1","version":2,"shipment":`+tt.stored+`}`), &e); err != nil {
			t.Fatalf("%s: %v", tt.stored, err)
		}
		if e.Shipment.ID != "sh_1" || e.Version != 2 {
			t.Errorf("%s: the rest of the event was lost: %+v", tt.stored, e)
		}
		out, _ := json.Marshal(e.Shipment.Record().Summary())
		var got map[string]any
		_ = json.Unmarshal(out, &got)
		if got["total_price"] != tt.price || got["currency"] != tt.currency {
			t.Errorf("%s reads as total_price %v, currency %v; want %v, %v", tt.stored, got["total_price"], got["currency"], tt.price, tt.currency)
		}
	}
}
