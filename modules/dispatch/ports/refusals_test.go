package ports_test

import (
	"net/http"
	"testing"
	"time"

	"shipd/platform/apptest"
)

// Every bad pickup order is a 422 naming its field before the carrier is
// asked, and a carrier's refusal comes back on the field it blames; none
// leaves a pickup behind, nor an order at the carrier.
func TestPickupRefusalsNameTheirFields(t *testing.T) {
	t.Parallel()
	env, _, key, channel := dispatchEnv(t)
	created, _ := createdShipment(t, env, key, channel, "ORDER-1", parcel(1))
	otherKey := env.NewKey("globex")
	otherChannel := env.ActiveSandboxChannel(otherKey, "Globex", nil)
	foreign, _ := createdShipment(t, env, otherKey, otherChannel, "THEIRS-1", parcel(1))
	secondChannel := env.ActiveSandboxChannel(key, "Second", nil)
	elsewhere, _ := createdShipment(t, env, key, secondChannel, "ORDER-2", parcel(1))
	cancelled, _ := createdShipment(t, env, key, channel, "ORDER-3", parcel(1))
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments/" + cancelled + "/cancel", Key: key}); res.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	apptest.Eventually(t, 15*time.Second, "the dispatch module knows "+cancelled+" as cancelled", func() bool {
		var n int
		if err := env.ModuleDB("dispatch").Get(&n, `SELECT count(*) FROM dispatch.shipments WHERE id = $1 AND status = 'cancelled'`, cancelled); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	base := func(kv ...any) map[string]any {
		body := map[string]any{"shipping_channel_id": channel, "date": "2026-12-01", "ready_from": "09:00", "ready_until": "12:00",
			"shipment_ids": []string{created}}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(body, kv[i].(string))
			} else {
				body[kv[i].(string)] = kv[i+1]
			}
		}
		return body
	}
	address := map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "99999", "country_code": "CZ"}
	for name, tc := range map[string]struct {
		body  map[string]any
		field string
	}{
		"a date in the past":            {base("date", "2026-11-28"), "date"},
		"no date":                       {base("date", "2026-13-01"), "date"},
		"too far ahead":                 {base("date", "2027-06-01"), "date"},
		"until before from":             {base("ready_until", "08:00"), "ready_until"},
		"a time that is none":           {base("ready_from", "9am"), "ready_from"},
		"a window the carrier lacks":    {base("ready_from", "07:00"), "ready_from"},
		"a Sunday":                      {base("date", "2026-12-06"), "date"},
		"no channel":                    {base("shipping_channel_id", ""), "shipping_channel_id"},
		"another account's shipment":    {base("shipment_ids", []string{foreign}), "shipment_ids.0"},
		"another channel's shipment":    {base("shipment_ids", []string{elsewhere}), "shipment_ids.0"},
		"a cancelled shipment":          {base("shipment_ids", []string{cancelled}), "shipment_ids.0"},
		"an id that is no shipment's":   {base("shipment_ids", []string{"sh_nope"}), "shipment_ids.0"},
		"a shipment named twice":        {base("shipment_ids", []string{created, created}), "shipment_ids.1"},
		"neither shipments nor a count": {base("shipment_ids", nil), "parcel_count"},
		"fewer parcels than named":      {base("parcel_count", 0), "parcel_count"},
		"a line break in the note":      {base("note", "a\nb"), "note"},
		"a contact without a phone":     {base("contact", map[string]any{"company_name": "Acme"}), "contact.phone_number"},
		"the carrier serves no 99999":   {base("address", address), "address.postal_code"},
		"an unknown member":             {base("ready_form", "09:00"), "ready_form"},
	} {
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: pickupsPath, Key: key, Body: tc.body})
		if errs := res.FieldErrors(t, http.StatusUnprocessableEntity); errs[tc.field] == nil {
			t.Errorf("%s: no problem on %s: %s", name, tc.field, res.Body)
		}
	}
	env.WantNoRows(t, "dispatch.pickups", "pickups from refused orders")
	env.WantNoRows(t, "dispatch.pickup_shipments", "shipments held by refused orders")
}

// Every bad manifest is a 422 naming its field, and leaves nothing held.
func TestManifestRefusalsNameTheirFields(t *testing.T) {
	t.Parallel()
	env, _, key, channel := dispatchEnv(t)
	otherKey := env.NewKey("globex")
	otherChannel := env.ActiveSandboxChannel(otherKey, "Globex", nil)
	foreign, _ := createdShipment(t, env, otherKey, otherChannel, "THEIRS-1", parcel(1))
	for name, tc := range map[string]struct {
		body  map[string]any
		field string
	}{
		"nothing to hand over":       {map[string]any{"shipping_channel_id": channel}, "shipment_ids"},
		"an empty list":              {map[string]any{"shipping_channel_id": channel, "shipment_ids": []string{}}, "shipment_ids"},
		"another account's shipment": {map[string]any{"shipping_channel_id": channel, "shipment_ids": []string{foreign}}, "shipment_ids.0"},
		"another account's channel":  {map[string]any{"shipping_channel_id": otherChannel, "shipment_ids": []string{foreign}}, ""},
		"no channel":                 {map[string]any{"shipment_ids": []string{foreign}}, "shipping_channel_id"},
	} {
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: manifestsPath, Key: key, Body: tc.body})
		if tc.field == "" {
			if res.Status != http.StatusForbidden {
				t.Errorf("%s: %d %s, want 403", name, res.Status, res.Body)
			}
			continue
		}
		if errs := res.FieldErrors(t, http.StatusUnprocessableEntity); errs[tc.field] == nil {
			t.Errorf("%s: no problem on %s: %s", name, tc.field, res.Body)
		}
	}
	env.WantNoRows(t, "dispatch.manifests", "manifests from refused requests")
	env.WantNoRows(t, "dispatch.manifest_shipments", "shipments held by refused manifests")
}

// A channel's availability answers the path's channel first (404, 403),
// then the date and the shipments named, each on its field.
func TestAvailabilityRefusalsNameTheirFields(t *testing.T) {
	t.Parallel()
	env, _, key, channel := dispatchEnv(t)
	otherKey := env.NewKey("globex")
	otherChannel := env.ActiveSandboxChannel(otherKey, "Globex", nil)
	foreign, _ := createdShipment(t, env, otherKey, otherChannel, "THEIRS-1", parcel(1))
	mine, _ := createdShipment(t, env, key, channel, "ORDER-1", parcel(1))
	path := "/v1/shipping-channels/" + channel + "/pickup-availability"
	for name, tc := range map[string]struct {
		query  string
		status int
		field  string
	}{
		"no date":                      {"", http.StatusUnprocessableEntity, "date"},
		"a past date":                  {"?date=2026-11-01", http.StatusUnprocessableEntity, "date"},
		"another account's shipment":   {"?date=2026-12-01&shipment_ids=" + mine + "," + foreign, http.StatusUnprocessableEntity, "shipment_ids.1"},
		"the shipments of the channel": {"?date=2026-12-01&shipment_ids=" + mine, http.StatusOK, ""},
	} {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: path + tc.query, Key: key})
		if tc.status == http.StatusOK {
			if res.Status != http.StatusOK || len(res.Data(t)["windows"].([]any)) != 2 {
				t.Errorf("%s: %d %s", name, res.Status, res.Body)
			}
			continue
		}
		if errs := res.FieldErrors(t, tc.status); errs[tc.field] == nil {
			t.Errorf("%s: no problem on %s: %s", name, tc.field, res.Body)
		}
	}
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels/" + otherChannel + "/pickup-availability?date=2026-12-01", Key: key}); res.Status != http.StatusForbidden {
		t.Errorf("another account's channel: %d %s", res.Status, res.Body)
	}
}
