package ports_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"shipd"
	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/domain/deliverytest"
	"shipd/modules/webhooks/ports"
	"shipd/platform/apptest"
	"shipd/platform/carrier"
)

// bodySeeds are the subscription bodies of the tests and the README.
func bodySeeds() []string {
	bodies := []any{
		map[string]any{"name": "orders", "url": "https://hooks.example.com/shipd", "events": []string{"shipment.status_changed", "tracking_parcel.status_changed"}},
		map[string]any{"name": " Orders ", "url": "https://hooks.example.com/shipd?x=1", "events": []string{"shipment.created", "tracking_parcel.status_changed", "shipment.created"}},
		map[string]any{"name": "Paused", "url": "http://example.com/h", "events": []string{"shipment.updated"}, "secret": "my-own-secret", "active": false},
		goodBody(map[string]any{"name": nil}), goodBody(map[string]any{"name": "  "}), goodBody(map[string]any{"name": strings.Repeat("n", 256)}),
		goodBody(map[string]any{"url": nil}), goodBody(map[string]any{"url": "/hooks"}), goodBody(map[string]any{"url": "ftp://example.com/h"}),
		goodBody(map[string]any{"url": "https:///h"}), goodBody(map[string]any{"url": "https://example.com:99999/h"}),
		goodBody(map[string]any{"url": "https://u:p@example.com/h"}), goodBody(map[string]any{"events": nil}),
		goodBody(map[string]any{"events": "shipment.created"}), goodBody(map[string]any{"events": []string{}}),
		goodBody(map[string]any{"events": []string{"shipment.created", "shipment.exploded"}}), goodBody(map[string]any{"events": []string{"shipment.requested"}}),
		goodBody(map[string]any{"events": []any{1}}), goodBody(map[string]any{"secret": "1234567"}), goodBody(map[string]any{"status": "paused"}),
		goodBody(map[string]any{"status": "inactive", "active": true}), goodBody(map[string]any{"active": "yes"}),
		map[string]any{"url": "nope", "events": "x", "secret": "short"}, map[string]any{"url": "not a url"},
		map[string]any{"name": "renamed", "status": "inactive", "secret": ""}, map[string]any{"name": "renamed", "secret": "second-secret"},
		map[string]any{"active": true, "events": []string{"shipping_channel.created", "shipment.deleted"}},
		goodBody(map[string]any{"url": "https://example.com/a b"}), goodBody(map[string]any{"url": " https://example.com/h"}),
		goodBody(map[string]any{"url": "https://example.com/h\n"}), goodBody(map[string]any{"url": "https://example.com/h\u0085"}),
		goodBody(map[string]any{"url": "https://example.com/h\u00a0"}), goodBody(map[string]any{"url": "https://example.com/a%20b%0A"}),
		goodBody(map[string]any{"secret": "        "}), goodBody(map[string]any{"secret": "\t\n\u3000\u00a0    "}), goodBody(map[string]any{"secret": ""}),
		map[string]any{"name": "renamed", "secret": "  \t  \n  "},
		// Members no subscription body has.
		goodBody(map[string]any{"secert": "long-enough-secret"}), goodBody(map[string]any{"headers": map[string]any{"X-A": "1"}}),
		map[string]any{"name": "renamed", "event": []string{"shipment.deleted"}}, map[string]any{"Active": false},
		// Issue 31: a name with a bidi override or a line break, events
		// repeated past the number of event types.
		goodBody(map[string]any{"name": "orders\u202e"}), goodBody(map[string]any{"name": "a\r\nb"}),
		goodBody(map[string]any{"events": slices.Repeat([]string{"shipment.created"}, 20)}),
	}
	var out []string
	for _, b := range bodies {
		raw, _ := json.Marshal(b)
		out = append(out, string(raw))
	}
	return append(out, `{"name":"Objedn\u00e1vky","secret":"\u00e1\u00e1\u00e1\u00e1\u00e1\u00e1\u00e1\u00e1"}`, `{"name":"\u0000"}`, "", "[]", "{",
		"{\"name\":\"Objedn\xe1vky\"}", `{"name":"\ud800"}`, "{\"url\":\"https://example.com/\xff\"}")
}

// FuzzSubscriptionRequests decodes any body as POST, PUT and PATCH
// /v1/webhook-subscriptions do and makes or changes a subscription of it as
// the domain does: a refusal is a 400 or 422, and a subscription kept has a
// trimmed name within its limit, a delivery URL that parses as http(s)
// without credentials, spaces or control characters, known public event
// types, each once and no more than there are, a name free of control,
// bidi and zero-width characters (issue 31), and a secret long enough and
// not only white space; a POST with an
// empty secret and a PUT without a name are refused.
func FuzzSubscriptionRequests(f *testing.F) {
	for _, b := range bodySeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var req ports.SubscriptionRequest
		if err := apptest.DecodeBody(body, &req); err != nil {
			apptest.CheckRefusal(t, err)
			return
		}
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch} {
			s, err := req.Check(method)
			if !apptest.CheckRefusal(t, err) {
				continue
			}
			if method == http.MethodPut && req.Name == nil {
				t.Fatalf("PUT passed without a name: %s", body)
			}
			if method == http.MethodPost && req.Secret != nil && *req.Secret == "" {
				t.Fatalf("POST passed with an empty secret: %s", body)
			}
			if s.Name == "" || s.Name != strings.TrimSpace(s.Name) || utf8.RuneCountInString(s.Name) > 255 || carrier.NameProblem(s.Name) != "" {
				t.Fatalf("kept the name %q", s.Name)
			}
			if len(s.Events) > len(app.EventTypes) || len(slices.Compact(slices.Sorted(slices.Values(s.Events)))) != len(s.Events) {
				t.Fatalf("kept the events %q", s.Events)
			}
			deliverytest.CheckURL(t, s.URL)
			if len(s.Events) == 0 {
				t.Fatalf("kept no event type: %s", body)
			}
			for _, e := range s.Events {
				if !slices.Contains(app.EventTypes, e) {
					t.Fatalf("kept the event type %q", e)
				}
			}
			if n := utf8.RuneCountInString(s.Secret); n < 8 || n > 255 || strings.TrimSpace(s.Secret) == "" {
				t.Fatalf("kept the secret %q", s.Secret)
			}
		}
	})
}

// fuzzEnv starts the app with one webhook subscription.
func fuzzEnv(f *testing.F) (env *apptest.Env, key, sub string) {
	env = apptest.Start(f, shipd.InitializeApp, apptest.Quiet())
	key = env.NewKey("acme")
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key,
		Body: map[string]any{"name": "orders", "url": "https://hooks.example.com/shipd", "events": []string{"shipment.created"}}})
	if res.Status != http.StatusCreated {
		f.Fatalf("create subscription: %d %s", res.Status, res.Body)
	}
	sub, _ = res.Data(f)["id"].(string)
	return env, key, sub
}

// FuzzSubscriptionBodies sends any body to POST /v1/webhook-subscriptions
// and to PUT and PATCH of one subscription of the real app.
func FuzzSubscriptionBodies(f *testing.F) {
	env, key, sub := fuzzEnv(f)
	for _, b := range bodySeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) { env.CheckWrites(t, key, subsPath, sub, body) })
}

// FuzzSubscriptionQueries sends any query string to the subscription list
// and its delivery logs, and any path id to GET of a subscription and of a
// log.
func FuzzSubscriptionQueries(f *testing.F) {
	env, key, sub := fuzzEnv(f)
	for _, q := range []string{
		"", "per_page=1&page=2", "status=success", "status=failed&event_type=shipment.created", "status=lost", "event_type=shipment.requested",
		"event_type=%00", "status=\xe9", "page=x",
	} {
		f.Add(q, sub)
	}
	for _, bad := range []string{"wh_01JD0000000000000000000000", "whl_01JD0000000000000000000000", "nope", "", ".."} {
		f.Add("", bad)
	}
	f.Fuzz(func(t *testing.T, query, pathID string) {
		id := url.PathEscape(pathID)
		for _, req := range []apptest.Request{
			{Method: http.MethodGet, Path: subsPath + "?" + apptest.RawQuery(query), Key: key},
			{Method: http.MethodGet, Path: subsPath + "/" + id, Key: key},
			{Method: http.MethodGet, Path: subsPath + "/" + sub + "/logs?" + apptest.RawQuery(query), Key: key},
			{Method: http.MethodGet, Path: subsPath + "/" + sub + "/logs/" + id, Key: key},
		} {
			apptest.CheckAnswer(t, req.Method+" "+req.Path, env.Send(t, req))
		}
	})
}
