package ports_test

import (
	"net/http"
	"testing"

	"shipd"
	"shipd/platform/apptest"
)

// A misspelt member is refused, not dropped: cash_on_delivery_amout dropped
// would ship the parcel without its cash on delivery. Every unknown member
// of a write's body, at any depth, is a 422 naming it, and nothing is
// stored or changed; metadata stays free-form.
func TestUnknownMembersAreRefused(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	ch := activeChannel(t, env, key, "Sandbox", nil)
	good := shipmentBody(ch)
	cod := with(good, "cash_on_delivery_amout", 125.5, "cash_on_delivery_currency", "CZK")
	single := with(good, "parcel", with(parcel(2), "colour", "red"))
	delete(single, "parcels")
	contact := map[string]any{"company_name": "Acme s.r.o.", "emial": "ship@acme.test", "email_address": "ship@acme.test", "phone_number": "1"}

	for _, tc := range []struct {
		name string
		body map[string]any
		want map[string]string
	}{
		{"misspelt cash on delivery", cod, map[string]string{"cash_on_delivery_amout": "unknown field; did you mean cash_on_delivery_amount?"}},
		{"a member of no kind", with(good, "bogus", 1), map[string]string{"bogus": "unknown field; the fields here are: "}},
		{"in a parcel", shipmentBody(ch, parcel(1), with(parcel(2), "weigth_amount", 2)),
			map[string]string{"parcels.1.weigth_amount": "unknown field; did you mean weight_amount?"}},
		{"in the one parcel", single, map[string]string{"parcel.colour": "unknown field; the fields here are: parcel_type, "}},
		{"in a contact", with(good, "sender_contact", contact), map[string]string{"sender_contact.emial": "unknown field; the fields here are: company_name, "}},
		{"several", with(good, "bogus", 1, "destination_address", with(good["destination_address"].(map[string]any), "zip", "60200"),
			"parcels", []any{with(parcel(1), "Weight_Unit", "KG")}), map[string]string{
			"bogus":                   "unknown field; ",
			"destination_address.zip": "unknown field; ",
			"parcels.0.Weight_Unit":   "unknown field; did you mean weight_unit?",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.Do(apptest.Request{Method: http.MethodPost, Path: shipmentsPath, Key: key, Body: tc.body}).CheckUnknownFields(t, tc.want)
		})
	}
	env.WantNoRows(t, "shipments.shipments", "shipments from bodies with unknown members")
	// Free-form metadata keeps whatever keys it holds.
	sh := create(t, env, key, with(good, "metadata", map[string]any{"bogus": 1, "nested": map[string]any{"any": []any{1}}}))
	id := sh["id"].(string)
	path := shipmentsPath + "/" + id
	awaitCarrier(t, env, key, id)

	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: map[string]any{"referense_number": "ORDER-9", "enable_tracking": false}}).CheckUnknownFields(t,
			map[string]string{"referense_number": "unknown field; did you mean reference_number?"})
	}
	env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/cancel", Key: key, Body: map[string]any{"reason": "changed my mind"}}).CheckUnknownFields(t,
		map[string]string{"reason": "unknown field; this request takes no fields"})
	env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/label/retry", Key: key, Body: map[string]any{"force": true}}).CheckUnknownFields(t,
		map[string]string{"force": "unknown field; this request takes no fields"})
	after := env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key}).Data(t)
	if after["reference_number"] != "ORDER-1001" || after["enable_tracking"] != true || after["status"] != "created" {
		t.Errorf("refused writes changed the shipment: %v", after)
	}
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/cancel", Key: key, Body: map[string]any{}}); res.Status != http.StatusOK {
		t.Errorf("cancel with an empty object: %d %s", res.Status, res.Body)
	}
}
