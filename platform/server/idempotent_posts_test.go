package server_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"shipd/platform/apptest"
)

// Every POST that creates or changes something, sent again with its key,
// replays its first answer and changes nothing: no second resource, no new
// version, no second carrier call's outcome.
func TestEveryPostReplaysWithItsKey(t *testing.T) {
	t.Parallel()
	env, app := startKeepingApp(t)
	key := env.NewKey("replays")
	channel := env.SandboxChannel(key, "Replays", nil)
	state := func(query string, args ...any) string {
		t.Helper()
		var s string
		if err := env.DB.Get(&s, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return s
	}
	checked := map[string]bool{}
	// once sends req with a fresh key, then again with the same one, and
	// checks the second is the first replayed and that what the query reads
	// did not move; it returns the first answer.
	once := func(name string, req apptest.Request, want int, query string, args ...any) *apptest.Response {
		t.Helper()
		checked[req.Path] = true
		req.Key = key
		req.Headers = map[string]string{"Idempotency-Key": "replay-" + name}
		first := env.Do(req)
		if first.Status != want {
			t.Fatalf("%s: %d %s, want %d", name, first.Status, first.Body, want)
		}
		before := state(query, args...)
		again := env.Do(req)
		if again.Status != want || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
			t.Errorf("%s again: %d replayed=%q %s", name, again.Status, again.Header.Get("Idempotent-Replayed"), again.Body)
		}
		if after := state(query, args...); after != before {
			t.Errorf("%s: the replay changed %q to %q", name, before, after)
		}
		return first
	}

	once("validate", apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels/" + channel + "/validate"}, http.StatusOK,
		`SELECT status || ':' || version FROM channels.channels WHERE id = $1`, channel)
	once("channel", apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels",
		Body: map[string]any{"name": "Second", "provider": "sandbox", "settings": map[string]any{"clientId": "c", "clientSecret": "s"}}},
		http.StatusCreated, `SELECT count(*)::text FROM channels.channels`)
	// Untracked: its tracking parcels' news would change its version in the
	// background, which is not what the replays are checked for.
	body := shipment(channel)
	body["enable_tracking"] = false
	sh := once("shipment", apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Body: body},
		http.StatusCreated, `SELECT count(*)::text FROM shipments.shipments`)
	id, _ := sh.Data(t)["id"].(string)
	apptest.Eventually(t, 10*time.Second, "the shipment booked", func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key})
		return res.Status == http.StatusOK && res.Data(t)["status"] == "created"
	})
	// A courier pickup (the carrier asked once) and a manifest of the
	// shipment, once the dispatch module knows it.
	once("pickup", apptest.Request{Method: http.MethodPost, Path: "/v1/pickups", Body: map[string]any{"shipping_channel_id": channel,
		"date": aWeekdayAhead(), "ready_from": "09:00", "ready_until": "12:00", "parcel_count": 2, "total_weight_kg": 3,
		"address": map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"contact": map[string]any{"company_name": "Acme", "phone_number": "+420111222333"}}},
		http.StatusCreated, `SELECT count(*) || ':' || max(version) FROM dispatch.pickups`)
	apptest.Eventually(t, 10*time.Second, "the dispatch module knows the shipment", func() bool {
		return state(`SELECT count(*)::text FROM dispatch.shipments WHERE id = $1 AND status = 'created'`, id) == "1"
	})
	manifest := once("manifest", apptest.Request{Method: http.MethodPost, Path: "/v1/manifests", Body: map[string]any{"shipping_channel_id": channel,
		"shipment_ids": []string{id}}}, http.StatusCreated, `SELECT count(*)::text FROM dispatch.manifests`)
	// The shipment takes in its manifest (a version of its own) before its
	// cancel's replay is compared.
	apptest.Eventually(t, 10*time.Second, "the shipment on its manifest", func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key})
		return res.Data(t)["manifest_id"] == manifest.Data(t)["id"]
	})
	// A shipment the carrier holds whose label is being fetched: asking
	// for the label again is accepted as it stands (ADR 0041).
	held := shipment(channel)
	held["enable_tracking"], held["reference_number"] = false, "LABELFAIL-9-REPLAY"
	heldRes := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Body: held, Key: key})
	heldID, _ := heldRes.Data(t)["id"].(string)
	apptest.Eventually(t, 10*time.Second, "the carrier holding the shipment", func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + heldID, Key: key})
		return res.Status == http.StatusOK && res.Data(t)["provider_shipment_id"] != nil
	})
	once("label retry", apptest.Request{Method: http.MethodPost, Path: "/v1/shipments/" + heldID + "/label/retry"}, http.StatusAccepted,
		`SELECT status || ':' || version FROM shipments.shipments WHERE id = $1`, heldID)
	once("cancel", apptest.Request{Method: http.MethodPost, Path: "/v1/shipments/" + id + "/cancel"}, http.StatusOK,
		`SELECT status || ':' || version FROM shipments.shipments WHERE id = $1`, id)
	tp := once("tracking parcel", apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels",
		Body: map[string]any{"tracking_number": "SB100000017CZ", "shipping_channel_id": channel}},
		http.StatusCreated, `SELECT count(*)::text FROM tracking.parcels WHERE tracking_number = 'SB100000017CZ'`)
	parcel, _ := tp.Data(t)["id"].(string)
	once("refresh", apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels/" + parcel + "/refresh"}, http.StatusOK,
		`SELECT version::text FROM tracking.parcels WHERE id = $1`, parcel)
	once("subscription", apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions",
		Body: map[string]any{"name": "replayed", "url": "https://hooks.example.com/shipd", "events": []string{"shipment.created"}}},
		http.StatusCreated, `SELECT count(*)::text FROM webhooks.subscriptions`)
	// Every POST route of /v1 was among them.
	for _, r := range app.Routes() {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.Path, "/v1/") {
			continue
		}
		quoted := regexp.QuoteMeta(pathParam.ReplaceAllString(r.Path, "ID"))
		pattern := regexp.MustCompile("^" + strings.ReplaceAll(quoted, "ID", "[^/]+") + "$")
		found := false
		for path := range checked {
			found = found || pattern.MatchString(path)
		}
		if !found {
			t.Errorf("POST %s is not checked here", r.Path)
		}
	}
}

var pathParam = regexp.MustCompile(`\{[a-z_]+\}`)
