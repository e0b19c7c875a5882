package ports_test

import (
	"net/http"
	"strings"
	"testing"

	"shipd"
	"shipd/modules/webhooks/contract"
	"shipd/platform/apptest"
	"shipd/platform/auth"
)

func TestCreateSubscriptionGeneratesSecretShownOnce(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key, Body: map[string]any{
		"name": " Orders ", "url": "https://hooks.example.com/shipd?x=1", "events": []string{"shipment.created", "tracking_parcel.status_changed", "shipment.created"},
	}})
	if res.Status != http.StatusCreated {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	sub := body["data"].(map[string]any)
	id := sub["id"].(string)
	generated, _ := body["generated_secret"].(string)
	if !strings.HasPrefix(id, "wh_") || len(generated) < 32 || sub["secret"] != contract.MaskedSecret || sub["active"] != true ||
		sub["name"] != "Orders" || sub["url"] != "https://hooks.example.com/shipd?x=1" || body["message"] != "Webhook subscription created successfully" ||
		res.Header.Get("Location") != env.URL()+subsPath+"/"+id {
		t.Fatalf("answer: %s", res.Body)
	}
	if ev := sub["events"].([]any); len(ev) != 2 || ev[0] != "shipment.created" || ev[1] != "tracking_parcel.status_changed" {
		t.Fatalf("events: %v", ev)
	}
	if strings.Count(string(res.Body), generated) != 1 {
		t.Fatalf("the secret shows more than once: %s", res.Body)
	}
	// Never again: not in GET, not in the list, not in the database in clear.
	got := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath + "/" + id, Key: key})
	list := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath, Key: key})
	for _, r := range []*apptest.Response{got, list} {
		if r.Status != http.StatusOK || strings.Contains(string(r.Body), generated) || !strings.Contains(string(r.Body), contract.MaskedSecret) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	if _, ok := got.JSON(t)["generated_secret"]; ok {
		t.Fatal("GET shows generated_secret")
	}
	var stored string
	if err := env.DB.Get(&stored, `SELECT secret FROM webhooks.subscriptions WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored, generated) || !strings.HasPrefix(stored, "v1:") {
		t.Fatalf("secret stored as %q", stored)
	}
	if meta := list.JSON(t)["meta"].(map[string]any); meta["total"] != 1.0 {
		t.Fatalf("list meta: %v", meta)
	}

	// A secret the client chose is not echoed, and nothing is generated.
	res = env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key, Body: map[string]any{
		"name": "Paused", "url": "http://example.com/h", "events": []string{"shipment.updated"}, "secret": "my-own-secret", "active": false,
	}})
	if res.Status != http.StatusCreated || strings.Contains(string(res.Body), "my-own-secret") || strings.Contains(string(res.Body), "generated_secret") ||
		res.Data(t)["active"] != false {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
}

// goodBody is a subscription body the API accepts, with change applied:
// a key given nil is left out.
func goodBody(change map[string]any) map[string]any {
	b := map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created"}}
	for k, v := range change {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

// One case per rule proves that the API answers the domain's problems by
// their paths (the domain's tests hold each rule's cases); the internal
// event proves which event types the app offers, and events that are no
// array, status and active are the port's own.
func TestSubscriptionBadInput(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	cases := []struct {
		name  string
		body  map[string]any
		field string
		says  string
	}{
		{"missing name", goodBody(map[string]any{"name": nil}), "name", "is required"},
		{"long name", goodBody(map[string]any{"name": strings.Repeat("n", 256)}), "name", "at most 255"},
		{"missing url", goodBody(map[string]any{"url": nil}), "url", "is required"},
		{"relative url", goodBody(map[string]any{"url": "/hooks"}), "url", "must be a valid URL"},
		{"credentials in url", goodBody(map[string]any{"url": "https://u:p@example.com/h"}), "url", "user name or password"},
		{"missing events", goodBody(map[string]any{"events": nil}), "events", "is required"},
		{"events not an array", goodBody(map[string]any{"events": "shipment.created"}), "events", "must be an array"},
		{"events empty", goodBody(map[string]any{"events": []string{}}), "events", "at least one"},
		{"unknown event", goodBody(map[string]any{"events": []string{"shipment.created", "shipment.exploded"}}), "events.1", "must be one of"},
		{"internal event", goodBody(map[string]any{"events": []string{"shipment.requested"}}), "events.0", "must be one of"},
		{"event not a string", goodBody(map[string]any{"events": []any{1}}), "events.0", "must be a string"},
		{"short secret", goodBody(map[string]any{"secret": "1234567"}), "secret", "at least 8"},
		{"bad status", goodBody(map[string]any{"status": "paused"}), "status", "active or inactive"},
		{"status contradicts active", goodBody(map[string]any{"status": "inactive", "active": true}), "status", "contradicts"},
		{"active not a boolean", goodBody(map[string]any{"active": "yes"}), "active", "must be a boolean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key, Body: c.body})
			errs := res.FieldErrors(t, http.StatusUnprocessableEntity)
			reasons, _ := errs[c.field].([]any)
			if len(reasons) == 0 || !strings.Contains(reasons[0].(string), c.says) {
				t.Fatalf("errors %v, want %s: %q", errs, c.field, c.says)
			}
		})
	}
	// Every problem at once, each under its field.
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key, Body: map[string]any{"url": "nope", "events": "x", "secret": "short"}})
	errs := res.FieldErrors(t, http.StatusUnprocessableEntity)
	for _, f := range []string{"name", "url", "events", "secret"} {
		if errs[f] == nil {
			t.Errorf("no error for %s: %v", f, errs)
		}
	}
	for _, raw := range []string{"", "[]", "{", `{"name": "n"} {}`} {
		if res := env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key, Body: raw}); res.Status != http.StatusBadRequest {
			t.Errorf("body %q: %d %s", raw, res.Status, res.Body)
		}
	}
	list := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath, Key: key})
	if list.JSON(t)["meta"].(map[string]any)["total"] != 0.0 {
		t.Fatalf("something was stored: %s", list.Body)
	}
}

func TestUpdateSubscription(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created"}, "secret": "first-secret"})
	path := subsPath + "/" + sub["id"].(string)

	// PUT needs name; the 422 body carries the errors nested under error too.
	res := env.Do(apptest.Request{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{"url": "not a url"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	nested := res.JSON(t)["error"].(map[string]any)
	errs := nested["errors"].(map[string]any)
	if nested["message"] == "" || errs["name"] == nil || errs["url"] == nil {
		t.Fatalf("nested error: %s", res.Body)
	}
	var version int
	_ = env.DB.Get(&version, `SELECT version FROM webhooks.subscriptions WHERE id = $1`, sub["id"])
	if version != 1 {
		t.Fatalf("a refused update changed the subscription (version %d)", version)
	}

	// status "inactive" pauses; omitted and empty secrets are kept.
	res = env.Do(apptest.Request{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{"name": "renamed", "status": "inactive", "secret": ""}})
	up := res.Data(t)
	if res.Status != http.StatusOK || up["name"] != "renamed" || up["active"] != false || up["secret"] != contract.MaskedSecret ||
		up["url"] != "https://example.com/h" || len(up["events"].([]any)) != 1 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	var sealed string
	_ = env.DB.Get(&sealed, `SELECT secret FROM webhooks.subscriptions WHERE id = $1`, sub["id"])
	// PATCH changes only what it names.
	res = env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"active": true, "events": []string{"shipping_channel.created", "shipment.deleted"}}})
	up = res.Data(t)
	if res.Status != http.StatusOK || up["name"] != "renamed" || up["active"] != true || len(up["events"].([]any)) != 2 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	res = env.Do(apptest.Request{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{"name": "renamed", "secret": "second-secret"}})
	var resealed string
	_ = env.DB.Get(&resealed, `SELECT secret FROM webhooks.subscriptions WHERE id = $1`, sub["id"])
	if res.Status != http.StatusOK || strings.Contains(string(res.Body), "second-secret") || resealed == sealed {
		t.Fatalf("new secret: %d %s", res.Status, res.Body)
	}

	// Delete: 204, then gone for every verb.
	if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: path, Key: key}); res.Status != http.StatusNoContent || len(res.Body) != 0 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		if res := env.Do(apptest.Request{Method: m, Path: path, Key: key, Body: map[string]any{"name": "x"}}); res.Status != http.StatusNotFound {
			t.Errorf("%s after delete: %d %s", m, res.Status, res.Body)
		}
	}
	if list := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath, Key: key}); list.JSON(t)["meta"].(map[string]any)["total"] != 0.0 {
		t.Fatalf("deleted subscription listed: %s", list.Body)
	}
}

func TestSubscriptionAccess(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key, other := env.NewKey("acme"), env.NewKey("globex")
	readOnly := env.NewKey("acme", auth.WebhooksRead)
	noWebhooks := env.NewKey("acme", auth.ShipmentsRead)
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created"}})
	path := subsPath + "/" + sub["id"].(string)
	cases := []struct {
		method, path, key string
		want              int
	}{
		{http.MethodGet, path, "", http.StatusUnauthorized},
		{http.MethodGet, path, "sk_nope", http.StatusUnauthorized},
		{http.MethodGet, path, noWebhooks, http.StatusForbidden},
		{http.MethodGet, subsPath, noWebhooks, http.StatusForbidden},
		{http.MethodGet, path, readOnly, http.StatusOK},
		{http.MethodGet, path + "/logs", readOnly, http.StatusOK},
		{http.MethodPost, subsPath, readOnly, http.StatusForbidden},
		{http.MethodPut, path, readOnly, http.StatusForbidden},
		{http.MethodDelete, path, readOnly, http.StatusForbidden},
		{http.MethodGet, path, other, http.StatusForbidden},
		{http.MethodPut, path, other, http.StatusForbidden},
		{http.MethodDelete, path, other, http.StatusForbidden},
		{http.MethodGet, path + "/logs", other, http.StatusForbidden},
		{http.MethodGet, path + "/logs/whl_01JZZZZZZZZZZZZZZZZZZZZZZZ", other, http.StatusForbidden},
		{http.MethodGet, subsPath + "/wh_01JZZZZZZZZZZZZZZZZZZZZZZZ", key, http.StatusNotFound},
		{http.MethodGet, subsPath + "/sh_01JZZZZZZZZZZZZZZZZZZZZZZZ", key, http.StatusNotFound},
		{http.MethodGet, subsPath + "/wh_01JZZZZZZZZZZZZZZZZZZZZZZZ/logs", key, http.StatusNotFound},
		{http.MethodGet, path + "/logs/whl_01JZZZZZZZZZZZZZZZZZZZZZZZ", key, http.StatusNotFound},
		{http.MethodGet, path + "/logs/nope", key, http.StatusNotFound},
		{http.MethodGet, path + "/logs?status=meh&event_type=shipment.exploded&page=0", key, http.StatusUnprocessableEntity},
	}
	for _, c := range cases {
		res := env.Do(apptest.Request{Method: c.method, Path: c.path, Key: c.key, Body: map[string]any{"name": "changed"}})
		if res.Status != c.want {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, res.Status, c.want, res.Body)
		}
	}
	if got := subscribe(t, env, key, map[string]any{"name": "again", "url": "https://example.com/h", "events": []string{"shipment.created"}}); got["name"] != "again" {
		t.Fatal(got)
	}
	if list := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath, Key: other}); list.JSON(t)["meta"].(map[string]any)["total"] != 0.0 {
		t.Fatalf("another account sees subscriptions: %s", list.Body)
	}
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key})
	if res.Data(t)["name"] != "n" {
		t.Fatalf("a refused update changed the subscription: %s", res.Body)
	}
}
