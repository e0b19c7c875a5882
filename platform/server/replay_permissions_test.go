package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/platform/apptest"
	"shipd/platform/auth"
)

// An idempotent replay is answered only to a key that may make the request
// (issue 31, ADR 0007): for every POST route of /v1, a key without the
// route's permission gets the route's 403 and no claim, so the same key
// then works for a key that may; and a key that may stores its answer,
// which a key without the permission is never handed (a webhook
// subscription's generated secret among them).
func TestReplaysRespectTheKeysPermissions(t *testing.T) {
	t.Parallel()
	env, app := startKeepingApp(t)
	full := env.NewKey("matrix")
	ch := env.ActiveSandboxChannel(full, "Matrix", nil)
	without := func(perm string) string {
		perms := slices.DeleteFunc(slices.Clone(auth.AllPermissions), func(p auth.Permission) bool { return string(p) == perm })
		return env.NewKey("matrix", perms...)
	}
	// held is a shipment the carrier holds whose label is still being
	// fetched (the sandbox fails its labels 9 times): it may be cancelled
	// and its label asked for again, whatever came before.
	held := func() string {
		body := shipment(ch)
		body["reference_number"], body["enable_tracking"] = "LABELFAIL-9-MATRIX", false
		id, _ := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Body: body, Key: full}).Data(t)["id"].(string)
		apptest.Eventually(t, 15*time.Second, "the carrier holding "+id, func() bool {
			return env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: full}).Data(t)["provider_shipment_id"] != nil
		})
		return id
	}
	// dispatchable is a shipment the carrier created, as the dispatch
	// module knows it.
	dispatchable := func() string {
		body := shipment(ch)
		body["enable_tracking"] = false
		id, _ := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Body: body, Key: full}).Data(t)["id"].(string)
		apptest.Eventually(t, 15*time.Second, "the dispatch module knowing "+id, func() bool {
			var n int
			_ = env.ModuleDB("dispatch").Get(&n, `SELECT count(*) FROM dispatch.shipments WHERE id = $1 AND status = 'created'`, id)
			return n == 1
		})
		return id
	}
	// Names and tracking numbers are unique per account and channel.
	n := 0
	next := func() int { n++; return n }
	number := func() string { return sandbox.S10("SB", fmt.Sprintf("%08d", 10000000+next()), "CZ") }
	parcel := func() string {
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels", Key: full,
			Body: map[string]any{"tracking_number": number(), "shipping_channel_id": ch}})
		id, _ := res.Data(t)["id"].(string)
		return id
	}
	// request is the POST of route, on a resource of its own.
	request := func(path string) (string, map[string]any) {
		switch path {
		case "/v1/shipping-channels":
			return path, channel(fmt.Sprintf("Matrix %d", next()))
		case "/v1/shipping-channels/{id}/validate":
			return "/v1/shipping-channels/" + ch + "/validate", nil
		case "/v1/shipments":
			return path, shipment(ch)
		case "/v1/shipments/{id}/cancel":
			return "/v1/shipments/" + held() + "/cancel", nil
		case "/v1/shipments/{id}/label/retry":
			return "/v1/shipments/" + held() + "/label/retry", nil
		case "/v1/tracking-parcels":
			return path, map[string]any{"tracking_number": number(), "shipping_channel_id": ch}
		case "/v1/tracking-parcels/{id}/refresh":
			return "/v1/tracking-parcels/" + parcel() + "/refresh", nil
		case "/v1/webhook-subscriptions":
			return path, map[string]any{"name": "matrix", "url": "https://hooks.example.com/shipd", "events": []string{"shipment.created"}}
		case "/v1/pickups": // one a channel a date: a channel of its own
			return path, map[string]any{"shipping_channel_id": env.ActiveSandboxChannel(full, fmt.Sprintf("Pickups %d", next()), nil),
				"date": aWeekdayAhead(), "ready_from": "09:00", "ready_until": "12:00", "parcel_count": 1, "total_weight_kg": 2,
				"address": map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
				"contact": map[string]any{"company_name": "Acme", "phone_number": "+420111222333"}}
		case "/v1/manifests": // a shipment is on one manifest: a shipment of its own
			return path, map[string]any{"shipping_channel_id": ch, "shipment_ids": []string{dispatchable()}}
		}
		t.Fatalf("POST %s: no request for it here; add one", path)
		return "", nil
	}
	checked := 0
	for i, route := range app.Routes() {
		if route.Method != http.MethodPost || !strings.HasPrefix(route.Path, "/v1/") {
			continue
		}
		if route.Permission == "" {
			t.Errorf("POST %s asks no permission", route.Path)
			continue
		}
		checked++
		denied := without(route.Permission)

		// A key without the permission first: refused, nothing claimed.
		path, body := request(route.Path)
		key := fmt.Sprintf("matrix-deny-%d", i)
		first := env.Do(apptest.Request{Method: http.MethodPost, Path: path, Body: body, Key: denied, Headers: map[string]string{"Idempotency-Key": key}})
		if first.Status != http.StatusForbidden {
			t.Errorf("POST %s by a key without %s: %d %s", route.Path, route.Permission, first.Status, first.Body)
		}
		then := env.Do(apptest.Request{Method: http.MethodPost, Path: path, Body: body, Key: full, Headers: map[string]string{"Idempotency-Key": key}})
		if then.Status == http.StatusForbidden || then.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("POST %s by a key that may, after a refused one with its Idempotency-Key: %d replayed=%q %s",
				route.Path, then.Status, then.Header.Get("Idempotent-Replayed"), then.Body)
		}

		// A key that may first: its answer is stored, and never handed to
		// a key without the permission.
		path, body = request(route.Path)
		key = fmt.Sprintf("matrix-allow-%d", i)
		stored := env.Do(apptest.Request{Method: http.MethodPost, Path: path, Body: body, Key: full, Headers: map[string]string{"Idempotency-Key": key}})
		if stored.Status >= 300 {
			t.Errorf("POST %s by a key that may: %d %s", route.Path, stored.Status, stored.Body)
		}
		replay := env.Do(apptest.Request{Method: http.MethodPost, Path: path, Body: body, Key: denied, Headers: map[string]string{"Idempotency-Key": key}})
		if replay.Status != http.StatusForbidden || replay.Header.Get("Idempotent-Replayed") != "" || strings.Contains(string(replay.Body), "generated_secret") {
			t.Errorf("POST %s replayed to a key without %s: %d replayed=%q %s",
				route.Path, route.Permission, replay.Status, replay.Header.Get("Idempotent-Replayed"), replay.Body)
		}
		again := env.Do(apptest.Request{Method: http.MethodPost, Path: path, Body: body, Key: full, Headers: map[string]string{"Idempotency-Key": key}})
		if again.Status != stored.Status || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("POST %s again by the key that may: %d replayed=%q, want its stored %d", route.Path, again.Status, again.Header.Get("Idempotent-Replayed"), stored.Status)
		}
	}
	if checked < 8 {
		t.Errorf("only %d POST routes checked", checked)
	}
}

// A refusal made before the handler changed anything (a field refused) is
// not stored: the same key with a corrected request runs it.
func TestARefusalThatChangedNothingIsNotReplayed(t *testing.T) {
	t.Parallel()
	env, _ := startKeepingApp(t)
	key := env.NewKey("refusals")
	channel := env.SandboxChannel(key, "Refusals", nil)
	bad := map[string]any{"tracking_number": "SB100000017CZ", "shipping_channel_id": channel, "bogus": 1}
	headers := map[string]string{"Idempotency-Key": "refused-then-fixed"}
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels", Body: bad, Key: key, Headers: headers}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("an unknown member: %d %s", res.Status, res.Body)
	}
	again := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels", Body: bad, Key: key, Headers: headers})
	if again.Status != http.StatusUnprocessableEntity || again.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the same refused request again: %d replayed=%q", again.Status, again.Header.Get("Idempotent-Replayed"))
	}
}
