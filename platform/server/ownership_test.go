package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/apptest"
)

// The rule of architecture/README.md, "Another account's resources", on
// every /v1 route with an id in its path: another account's resource
// answers 403 and stays as it was; an id that names nothing, or cannot,
// answers 404. A route added later is covered without touching this test,
// and fails it when its collection has no resource here.
func TestAnotherAccountsIDsAre403AndUnknownIDs404(t *testing.T) {
	t.Parallel()
	env, app := startKeepingApp(t)
	key, other := env.NewKey("acme"), env.NewKey("globex")
	receiver, _ := webhookReceiver(t)
	create := func(path string, body map[string]any) string {
		t.Helper()
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/" + path, Key: key, Body: body})
		if res.Status != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", path, res.Status, res.Body)
		}
		id, _ := res.Data(t)["id"].(string)
		return id
	}
	mine := map[string]string{"webhook-subscriptions": create("webhook-subscriptions",
		map[string]any{"name": "n", "url": receiver, "events": []string{"shipping_channel.created"}})}
	mine["shipping-channels"] = env.ActiveSandboxChannel(key, "Main", nil)
	mine["shipments"] = create("shipments", shipment(mine["shipping-channels"]))
	mine["tracking-parcels"] = create("tracking-parcels", map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": mine["shipping-channels"]})
	logsPath := "/v1/webhook-subscriptions/" + mine["webhook-subscriptions"] + "/logs"
	var logID string
	apptest.Eventually(t, 10*time.Second, "the channel's delivery logged", func() bool {
		logs, _ := env.Do(apptest.Request{Method: http.MethodGet, Path: logsPath, Key: key}).JSON(t)["data"].([]any)
		if len(logs) > 0 {
			logID, _ = logs[0].(map[string]any)["id"].(string)
		}
		return logID != ""
	})
	unknown := map[string]string{"webhook-subscriptions": "wh_01JZZZZZZZZZZZZZZZZZZZZZZZ", "shipping-channels": "ch_01JZZZZZZZZZZZZZZZZZZZZZZZ",
		"shipments": "sh_01JZZZZZZZZZZZZZZZZZZZZZZZ", "tracking-parcels": "tp_01JZZZZZZZZZZZZZZZZZZZZZZZ"}
	// Bodies every PUT and PATCH accepts, so the answer is about the id.
	edits := map[string]map[string]any{"webhook-subscriptions": {"name": "Stolen"}, "shipping-channels": {"name": "Stolen"},
		"shipments": {"reference_number": "STOLEN"}, "tracking-parcels": {"recipient_name": "Stolen"}}
	var owned []string
	for c, id := range mine {
		owned = append(owned, "/v1/"+c+"/"+id)
	}
	slices.Sort(owned)
	owned = append(owned, logsPath, logsPath+"/"+logID)
	// The shipment's own tracking parcel is checked once too, and the check
	// reaches the shipment, before anything is compared.
	apptest.Eventually(t, 20*time.Second, "the shipment's tracking parcel checked", func() bool {
		sh := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + mine["shipments"], Key: key}).Data(t)
		ids, _ := sh["tracking_parcel_ids"].([]any)
		if len(ids) == 0 {
			return false
		}
		tp := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels/" + ids[0].(string), Key: key}).Data(t)
		if tp["checks_done"] != float64(1) {
			return false
		}
		// The shipment has taken in the parcel's latest version (its
		// follow-up of tracking changes nothing the API shows but its
		// updated_at).
		var parcel, followed int
		_ = env.ModuleDB("tracking").Get(&parcel, `SELECT version FROM tracking.parcels WHERE id = $1`, ids[0])
		_ = env.ModuleDB("shipments").Get(&followed, `SELECT coalesce((state->'tracked'->$2->>'version')::int, 0) FROM shipments.shipments WHERE id = $1`,
			mine["shipments"], ids[0])
		return parcel > 0 && followed == parcel
	})
	// A courier pickup and a manifest of the booked shipment, once the
	// dispatch module knows it.
	apptest.Eventually(t, 20*time.Second, "the dispatch module knows the shipment", func() bool {
		var n int
		_ = env.ModuleDB("dispatch").Get(&n, `SELECT count(*) FROM dispatch.shipments WHERE id = $1 AND status = 'created'`, mine["shipments"])
		return n == 1
	})
	mine["pickups"] = create("pickups", map[string]any{"shipping_channel_id": mine["shipping-channels"], "date": aWeekdayAhead(),
		"ready_from": "12:00", "ready_until": "17:00", "shipment_ids": []string{mine["shipments"]}})
	mine["manifests"] = create("manifests", map[string]any{"shipping_channel_id": mine["shipping-channels"]})
	owned = append(owned, "/v1/pickups/"+mine["pickups"], "/v1/manifests/"+mine["manifests"])
	unknown["pickups"], unknown["manifests"] = "pck_01JZZZZZZZZZZZZZZZZZZZZZZZ", "mnf_01JZZZZZZZZZZZZZZZZZZZZZZZ"
	// Booked, tracked and checked once: nothing moves by itself for hours.
	before := env.Settled(key, func(answers string) bool {
		return strings.Contains(answers, `"tracking_parcel_ids":["tp_`) && strings.Contains(answers, `"checks_done":1`)
	}, owned...)

	routes := 0
	for _, r := range app.Routes() {
		collection, rest, ok := strings.Cut(strings.TrimPrefix(r.Path, "/v1/"), "/")
		if !strings.HasPrefix(r.Path, "/v1/") || !ok || !strings.HasPrefix(rest, "{id}") {
			continue
		}
		routes++
		if mine[collection] == "" {
			t.Errorf("%s %s: no resource of %s made here to try it with", r.Method, r.Path, collection)
			continue
		}
		path := func(id, logID string) string {
			return strings.NewReplacer("{id}", id, "{log_id}", logID).Replace(r.Path)
		}
		var body map[string]any
		if r.Method == http.MethodPut || r.Method == http.MethodPatch {
			body = edits[collection]
		}
		for _, c := range []struct {
			who, key, path string
			status         int
			code           string
		}{
			{"another account", other, path(mine[collection], logID), http.StatusForbidden, "forbidden"},
			{"an unknown id", key, path(unknown[collection], logID), http.StatusNotFound, "not_found"},
			{"a malformed id", key, path("nope", logID), http.StatusNotFound, "not_found"},
			{"an id of another kind", key, path(mine["shipments"], logID), http.StatusNotFound, "not_found"},
			{"an unknown log id", key, path(mine[collection], "whl_01JZZZZZZZZZZZZZZZZZZZZZZZ"), http.StatusNotFound, "not_found"},
		} {
			if !strings.Contains(r.Path, "{log_id}") && c.who == "an unknown log id" ||
				collection == "shipments" && c.who == "an id of another kind" {
				continue
			}
			res := env.Do(apptest.Request{Method: r.Method, Path: c.path, Key: c.key, Body: body})
			code, _ := res.JSON(t)["error"].(map[string]any)["code"].(string)
			if res.Status != c.status || code != c.code {
				t.Errorf("%s %s with %s: %d %s, want %d %s", r.Method, r.Path, c.who, res.Status, code, c.status, c.code)
			}
		}
	}
	if routes < 20 {
		t.Errorf("only %d routes with an id tried", routes)
	}
	if after := env.Answers(key, owned...); after != before {
		t.Errorf("another account's calls changed something:\n%s", apptest.DiffLines(before, after))
	}

	// An id in a body is held to the same rule: another account's channel is
	// forbidden; one that names nothing is the request's fault, 422 on the field.
	theirs := env.ActiveSandboxChannel(other, "Theirs", nil)
	bodies := map[string]map[string]any{"shipments": shipment(theirs),
		"tracking-parcels": {"tracking_number": "SB100000017CZ", "shipping_channel_id": theirs}}
	for path, body := range bodies {
		if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/" + path, Key: key, Body: body}); res.Status != http.StatusForbidden {
			t.Errorf("POST %s with another account's channel: %d %s", path, res.Status, res.Body)
		}
		body["shipping_channel_id"] = unknown["shipping-channels"]
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/" + path, Key: key, Body: body})
		if errs := res.FieldErrors(t, http.StatusUnprocessableEntity); errs["shipping_channel_id"] == nil {
			t.Errorf("POST %s with an unknown channel: %v", path, errs)
		}
	}
}

// aWeekdayAhead is a weekday at least two days from now (UTC): a date the
// sandbox collects on, whatever the time of day the test runs at.
func aWeekdayAhead() string {
	d := time.Now().UTC().AddDate(0, 0, 2)
	for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d.Format("2006-01-02")
}
