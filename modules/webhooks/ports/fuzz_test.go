package ports_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"shipd"
	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/ports"
	"shipd/platform/apptest"
)

// bodySeeds are the subscription bodies of the tests and the README.
func bodySeeds() []string {
	good := func(change map[string]any) map[string]any {
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
	bodies := []any{
		map[string]any{"name": "orders", "url": "https://hooks.example.com/shipd", "events": []string{"shipment.status_changed", "tracking_parcel.status_changed"}},
		map[string]any{"name": " Orders ", "url": "https://hooks.example.com/shipd?x=1", "events": []string{"shipment.created", "tracking_parcel.status_changed", "shipment.created"}},
		map[string]any{"name": "Paused", "url": "http://example.com/h", "events": []string{"shipment.updated"}, "secret": "my-own-secret", "active": false},
		good(map[string]any{"name": nil}), good(map[string]any{"name": "  "}), good(map[string]any{"name": strings.Repeat("n", 256)}),
		good(map[string]any{"url": nil}), good(map[string]any{"url": "/hooks"}), good(map[string]any{"url": "ftp://example.com/h"}),
		good(map[string]any{"url": "https:///h"}), good(map[string]any{"url": "https://example.com:99999/h"}),
		good(map[string]any{"url": "https://u:p@example.com/h"}), good(map[string]any{"events": nil}),
		good(map[string]any{"events": "shipment.created"}), good(map[string]any{"events": []string{}}),
		good(map[string]any{"events": []string{"shipment.created", "shipment.exploded"}}), good(map[string]any{"events": []string{"shipment.requested"}}),
		good(map[string]any{"events": []any{1}}), good(map[string]any{"secret": "1234567"}), good(map[string]any{"status": "paused"}),
		good(map[string]any{"status": "inactive", "active": true}), good(map[string]any{"active": "yes"}),
		map[string]any{"url": "nope", "events": "x", "secret": "short"}, map[string]any{"url": "not a url"},
		map[string]any{"name": "renamed", "status": "inactive", "secret": ""}, map[string]any{"name": "renamed", "secret": "second-secret"},
		map[string]any{"active": true, "events": []string{"shipping_channel.created", "shipment.deleted"}},
		good(map[string]any{"url": "https://example.com/a b"}), good(map[string]any{"url": " https://example.com/h"}),
		good(map[string]any{"url": "https://example.com/h\n"}), good(map[string]any{"url": "https://example.com/h\u0085"}),
		good(map[string]any{"url": "https://example.com/h\u00a0"}), good(map[string]any{"url": "https://example.com/a%20b%0A"}),
		good(map[string]any{"secret": "        "}), good(map[string]any{"secret": "\t\n\u3000\u00a0    "}), good(map[string]any{"secret": ""}),
		map[string]any{"name": "renamed", "secret": "  \t  \n  "},
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
// /v1/webhook-subscriptions do before the app sees it: a refusal is a 400 or
// 422, and a subscription that passes has a trimmed name within its limit,
// a delivery URL that parses as http(s) without credentials, spaces or
// control characters, known public event types and a secret long enough and
// not only white space, or none (never none given as "" to POST).
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
			c, err := req.Check(method)
			if !apptest.CheckRefusal(t, err) {
				continue
			}
			if method == http.MethodPost && (c.URL == nil || len(c.Events) == 0) || method != http.MethodPatch && c.Name == nil {
				t.Fatalf("%s passed without a required field: %s", method, body)
			}
			if method == http.MethodPost && req.Secret != nil && *req.Secret == "" {
				t.Fatalf("POST passed with an empty secret: %s", body)
			}
			if c.Name != nil && (*c.Name == "" || *c.Name != strings.TrimSpace(*c.Name) || utf8.RuneCountInString(*c.Name) > 255) {
				t.Fatalf("accepted the name %q", *c.Name)
			}
			if c.URL != nil {
				checkURL(t, *c.URL)
			}
			for _, e := range c.Events {
				if !slices.Contains(app.EventTypes, e) {
					t.Fatalf("accepted the event type %q", e)
				}
			}
			if n := utf8.RuneCountInString(c.Secret); c.Secret != "" && (n < 8 || n > 255 || strings.TrimSpace(c.Secret) == "") {
				t.Fatalf("accepted the secret %q", c.Secret)
			}
		}
	})
}

// FuzzURLProblem checks delivery URLs directly: one it accepts is one the
// sender can call and shows no credentials.
func FuzzURLProblem(f *testing.F) {
	for _, u := range []string{
		"https://hooks.example.com/shipd?x=1", "http://127.0.0.1:8080/h", "http://[::1]:9/h", "/hooks", "ftp://example.com/h",
		"https:///h", "https://example.com:99999/h", "https://example.com:0/h", "https://u:p@example.com/h", "https:opaque", "",
		"https://example.com:/h", "https://exa mple.com/h", "https://%zz/", "HTTPS://EXAMPLE.COM/#frag",
		"https://example.com/a b", "https://example.com/h?q=a b", "https://example.com/h#a b", " https://example.com/h", "https://example.com/h\n",
		"https://example.com/\x7f", "https://example.com/\u0085", "https://example.com/\u00a0", "https://example.com/\u3000", "https://example.com/\u200b",
		"https://example.com/a%20b%0A%7F", "https://ex%C2%85ample.com/", "https://ex%C2%A0ample.com/", "https://b%C3%BCcher.example/", "https://bücher.example/",
	} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if ports.URLProblem(raw) == "" {
			checkURL(t, raw)
		}
	})
}

func checkURL(t *testing.T, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || len(raw) > 2048 {
		t.Fatalf("accepted the URL %q (%v)", raw, err)
	}
	for _, part := range []string{raw, u.Hostname()} {
		if i := strings.IndexFunc(part, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
			t.Fatalf("accepted the URL %q, with a space or control character in %q", raw, part)
		}
	}
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
