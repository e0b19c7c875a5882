package ports_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

func shipmentBody(channel, reference string, parcels int) map[string]any {
	ps := make([]any, parcels)
	for i := range ps {
		ps[i] = map[string]any{"parcel_type": "package", "length_dimension": 30, "width_dimension": 20, "height_dimension": 10, "weight_amount": 1.5}
	}
	return map[string]any{
		"shipping_channel_id": channel, "reference_number": reference,
		"sender_contact":      map[string]any{"company_name": "Acme s.r.o.", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"recipient_contact":   map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"},
		"origin_address":      map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"destination_address": map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"},
		"parcels":             ps,
	}
}

// TestSandboxJourneysMoveShipments books one shipment per sandbox journey
// and lets the sandbox clock run 72,000 times faster than real time (a
// sandbox hour every 50 ms; checks every 6 sandbox hours): each shipment's
// tracking parcels are made from shipment.created, checked on schedule, and
// their statuses move the shipment to shipped, then delivered or returned.
func TestSandboxJourneysMoveShipments(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.SandboxTimeScale = 72000 }))
	key := env.NewKey("acme")
	ch := env.ActiveSandboxChannel(key, "Sandbox", nil)
	journeys := []struct {
		reference     string
		parcels       int
		cod           bool
		finalShipment string
		finalParcel   string
		passes        string // a status the parcel's updates must include
	}{
		{"ORDER-NORMAL", 2, true, "delivered", "delivered", "out_for_delivery"},
		{"TRACK-FAILED-1", 1, false, "delivered", "delivered", "delivery_failed"},
		{"TRACK-RETURNED-1", 1, false, "returned", "returned", "ready_for_pickup"},
		{"TRACK-HOLD-1", 1, true, "delivered", "delivered", "on_hold"},
		{"TRACK-UNKNOWN-1", 1, false, "created", "not_recognized", ""},
		{"TRACK-UNMAPPED-1", 1, false, "created", "error", ""},
	}
	shipments := map[string]string{}
	for _, j := range journeys {
		body := shipmentBody(ch, j.reference, j.parcels)
		if j.cod {
			body["cash_on_delivery_amount"], body["cash_on_delivery_currency"] = 1250.5, "CZK"
		}
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: body})
		if res.Status != http.StatusCreated {
			t.Fatalf("%s: %d %s", j.reference, res.Status, res.Body)
		}
		shipments[j.reference] = res.Data(t)["id"].(string)
	}
	untracked := shipmentBody(ch, "ORDER-UNTRACKED", 1)
	untracked["enable_tracking"] = false
	untrackedID := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: untracked}).Data(t)["id"].(string)

	for _, j := range journeys {
		t.Run(j.reference, func(t *testing.T) {
			id := shipments[j.reference]
			var sh map[string]any
			apptest.Eventually(t, 30*time.Second, j.reference+" reaches "+j.finalShipment+" with its parcels "+j.finalParcel, func() bool {
				sh = env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key}).Data(t)
				tps, _ := sh["tracking_parcel_ids"].([]any)
				if sh["status"] != j.finalShipment || len(tps) != j.parcels {
					return false
				}
				for _, tp := range tps {
					if getParcel(t, env, key, tp.(string))["status"] != j.finalParcel {
						return false
					}
				}
				return !j.cod || sh["cash_on_delivery"].(map[string]any)["collected_at"] != nil
			})
			for i, tpID := range sh["tracking_parcel_ids"].([]any) {
				tp := getParcel(t, env, key, tpID.(string))
				number := sh["parcels"].([]any)[i].(map[string]any)["tracking_number"]
				if tp["shipment_id"] != id || tp["recipient_name"] != "Jana Nováková" || !slices.Contains(parcelNumbers(sh), tp["tracking_number"].(string)) {
					t.Fatalf("tracking parcel %v for parcel %v", tp, number)
				}
				if j.passes != "" && !passedThrough(tp, j.passes) {
					t.Fatalf("%s never passed %s: %v", tpID, j.passes, tp["status_updates"])
				}
				if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: parcelsPath + "/" + tpID.(string), Key: key}); res.Status != http.StatusUnprocessableEntity {
					t.Fatalf("deleting a shipment's tracking parcel: %d %s", res.Status, res.Body)
				}
			}
			if j.finalShipment != "created" {
				var changes []string
				err := env.ModuleDB("shipments").Select(&changes, `SELECT (payload->>'previous_status') || '>' || (payload->'shipment'->>'status')
					FROM (SELECT * FROM "watermill_shipments" WHERE metadata->>'name' = 'shipment.status_changed') e WHERE payload->'shipment'->>'id' = $1 ORDER BY "offset"`, id)
				if want := "pending>created,created>shipped,shipped>" + j.finalShipment; err != nil || strings.Join(changes, ",") != want {
					t.Fatalf("shipment status changes %v (%v), want %s", changes, err, want)
				}
			}
		})
	}
	if sh := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + untrackedID, Key: key}).Data(t); len(sh["tracking_parcel_ids"].([]any)) != 0 {
		t.Fatalf("a shipment without tracking got tracking parcels: %v", sh["tracking_parcel_ids"])
	}
	var n int
	if err := env.ModuleDB("tracking").Get(&n, `SELECT count(*) FROM tracking.parcels WHERE shipment_id = $1`, untrackedID); err != nil || n != 0 {
		t.Fatalf("tracking parcels of the untracked shipment: %d %v", n, err)
	}
}

func parcelNumbers(sh map[string]any) []string {
	var out []string
	for _, p := range sh["parcels"].([]any) {
		out = append(out, p.(map[string]any)["tracking_number"].(string))
	}
	return out
}

func passedThrough(tp map[string]any, status string) bool {
	for _, u := range tp["status_updates"].([]any) {
		if u.(map[string]any)["status"] == status {
			return true
		}
	}
	return false
}
