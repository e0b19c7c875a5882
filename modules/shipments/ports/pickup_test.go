package ports_test

import (
	"net/http"
	"strings"
	"testing"

	"shipd"
	"shipd/platform/apptest"
)

// A shipment names its pickup point in pickup_point_id: refused at once
// where the product takes none or needs one and none is named, kept and
// booked where it fits, and a point the carrier does not know is the
// carrier's refusal on that field. The sandbox's POINT product delivers to
// its points (SBP and digits).
func TestShipmentsToAPickupPoint(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	toAddress := activeChannel(t, env, key, "Sandbox", nil)
	toPoint := activeChannel(t, env, key, "Sandbox points", map[string]any{"productType": "POINT"})

	errs := fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPost, Path: shipmentsPath, Key: key,
		Body: with(shipmentBody(toAddress), "pickup_point_id", "SBP1001")}), 422)
	if r, _ := errs["pickup_point_id"].([]any); len(r) != 1 || !strings.Contains(r[0].(string), "takes no pickup point") {
		t.Errorf("a point on a product to the address: %v", errs)
	}
	errs = fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPost, Path: shipmentsPath, Key: key, Body: shipmentBody(toPoint)}), 422)
	if r, _ := errs["pickup_point_id"].([]any); len(r) != 1 || !strings.Contains(r[0].(string), "delivers only to a pickup point") {
		t.Errorf("no point on a product to points: %v", errs)
	}
	errs = fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPost, Path: shipmentsPath, Key: key,
		Body: with(shipmentBody(toPoint), "pickup_point_id", strings.Repeat("P", 65))}), 422)
	if errs["pickup_point_id"] == nil {
		t.Errorf("a point of 65 characters: %v", errs)
	}

	sh := create(t, env, key, with(shipmentBody(toPoint), "pickup_point_id", " SBP1001 "))
	if sh["pickup_point_id"] != "SBP1001" || sh["product_type"] != "POINT" {
		t.Errorf("created: pickup point %v, product %v", sh["pickup_point_id"], sh["product_type"])
	}
	if booked := awaitCarrier(t, env, key, sh["id"].(string)); booked["status"] != "created" || booked["pickup_point_id"] != "SBP1001" {
		t.Errorf("booked: %v", booked)
	}
	if plain := create(t, env, key, shipmentBody(toAddress)); plain["pickup_point_id"] != nil {
		t.Errorf("a shipment to the address shows pickup point %v", plain["pickup_point_id"])
	}

	unknown := create(t, env, key, with(shipmentBody(toPoint), "pickup_point_id", "KRA010"))
	refused := awaitCarrier(t, env, key, unknown["id"].(string))
	problems, _ := refused["errors"].([]any)
	if refused["is_successful"] != false || len(problems) != 1 || problems[0].(map[string]any)["field"] != "pickup_point_id" {
		t.Errorf("a point the carrier does not know: %v", refused)
	}
}
