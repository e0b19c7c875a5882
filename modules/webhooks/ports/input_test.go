package ports_test

import (
	"net/http"
	"strings"
	"testing"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/secrets"
)

// A delivery URL is kept as the client wrote it, so one with a space or a
// control character anywhere (the ends too) is refused on create, PUT and
// PATCH, and the refusal names the character; percent-encoded, the same
// characters are the URL's own and are kept.
func TestSubscriptionURLWithSpacesOrControls(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created"}})
	path := subsPath + "/" + sub["id"].(string)

	for _, c := range []struct{ url, found string }{
		{"https://example.com/a b", `' '`},
		{"https://example.com/h?q=a b", `' '`},
		{"https://example.com/h#a b", `' '`},
		{" https://example.com/h", `' '`},
		{"https://example.com/h ", `' '`},
		{"https://example.com/h\n", `'\n'`},
		{"https://example.com/h\r\nX-Evil: 1", `'\r'`},
		{"https://example.com/\th", `'\t'`},
		{"https://example.com/h\x1b", `'\x1b'`},
		{"https://example.com/h\x7f", `'\x7f'`},
		{"https://example.com/h\u0085", `'\u0085'`},
		{"https://example.com/h\u009f", `'\u009f'`},
		{"https://example.com/h\u00a0", `'\u00a0'`},
		{"https://example.com/h\u3000", `'\u3000'`},
		{"https://example.com/h\u2028", `'\u2028'`},
	} {
		for _, req := range []apptest.Request{
			{Method: http.MethodPost, Path: subsPath, Body: map[string]any{"name": "n", "url": c.url, "events": []string{"shipment.created"}}},
			{Method: http.MethodPut, Path: path, Body: map[string]any{"name": "n", "url": c.url}},
			{Method: http.MethodPatch, Path: path, Body: map[string]any{"url": c.url}},
		} {
			req.Key = key
			errs := env.Do(req).FieldErrors(t, http.StatusUnprocessableEntity)
			reasons, _ := errs["url"].([]any)
			if len(reasons) != 1 || !strings.Contains(reasons[0].(string), "must not contain spaces or control characters (found "+c.found+")") {
				t.Errorf("%s url %q: errors %v, want url naming %s", req.Method, c.url, errs, c.found)
			}
		}
	}
	// Encoded in the host, where url.Parse would decode them: not a host.
	for _, u := range []string{"https://ex%C2%85ample.com/h", "https://ex%C2%A0ample.com/h"} {
		res := env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"url": u}})
		if errs := res.FieldErrors(t, http.StatusUnprocessableEntity); errs["url"] == nil {
			t.Errorf("url %q: errors %v, want one on url", u, errs)
		}
	}
	if got := env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key}).Data(t); got["url"] != "https://example.com/h" || got["name"] != "n" {
		t.Fatalf("a refused update changed the subscription: %v", got)
	}
	list := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath, Key: key})
	if total := list.JSON(t)["meta"].(map[string]any)["total"]; total != 1.0 {
		t.Fatalf("%v subscriptions after refused creates, want 1", total)
	}

	// Percent-encoded in the path and query: valid, and stored as written.
	encoded := "https://example.com/a%20b/%0A?q=a%20b&r=%7F#x%20y"
	res := env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"url": encoded}})
	if res.Status != http.StatusOK || res.Data(t)["url"] != encoded {
		t.Fatalf("encoded url: %d %s", res.Status, res.Body)
	}
}

// A secret of white space only signs nothing a receiver could tell from a
// typo; it is refused wherever a secret is taken. An empty secret is refused
// on create (leave it out to have one generated) and, as the API
// specification says, keeps the current secret on update.
func TestSubscriptionSecretOfWhiteSpace(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created"}, "secret": "first-secret"})
	path := subsPath + "/" + sub["id"].(string)
	box, err := secrets.NewBox(env.Config.SecretKey)
	if err != nil {
		t.Fatal(err)
	}
	// stored is the subscription's secret, opened (each save seals anew).
	stored := func() string {
		t.Helper()
		var sealed string
		if err := env.DB.Get(&sealed, `SELECT secret FROM webhooks.subscriptions WHERE id = $1`, sub["id"]); err != nil {
			t.Fatal(err)
		}
		plain, err := box.Open(sealed)
		if err != nil {
			t.Fatal(err)
		}
		return string(plain)
	}

	blank := func(secret string) []apptest.Request {
		return []apptest.Request{
			{Method: http.MethodPost, Path: subsPath, Body: map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created"}, "secret": secret}},
			{Method: http.MethodPut, Path: path, Body: map[string]any{"name": "n", "secret": secret}},
			{Method: http.MethodPatch, Path: path, Body: map[string]any{"secret": secret}},
		}
	}
	for _, secret := range []string{"        ", "\t\t\t\t\t\t\t\t", "  \n  \r\n  ", "\u00a0\u00a0\u00a0\u00a0\u3000\u3000\u3000\u3000", "   "} {
		for _, req := range blank(secret) {
			req.Key = key
			errs := env.Do(req).FieldErrors(t, http.StatusUnprocessableEntity)
			reasons, _ := errs["secret"].([]any)
			if len(reasons) != 1 || reasons[0] != "must not be only white space" {
				t.Errorf("%s secret %q: errors %v", req.Method, secret, errs)
			}
		}
	}
	create := blank("")[0]
	create.Key = key
	errs := env.Do(create).FieldErrors(t, http.StatusUnprocessableEntity)
	if reasons, _ := errs["secret"].([]any); len(reasons) != 1 || !strings.Contains(reasons[0].(string), "must not be empty") {
		t.Errorf("create with an empty secret: errors %v", errs)
	}
	for _, req := range blank("")[1:] {
		req.Key = key
		if res := env.Do(req); res.Status != http.StatusOK {
			t.Errorf("%s with an empty secret: %d %s", req.Method, res.Status, res.Body)
		}
	}
	if got := stored(); got != "first-secret" {
		t.Fatalf("the secret is %q: a refused or empty secret replaced it", got)
	}
	// Spaces inside a secret with other characters are the client's choice.
	if res := env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"secret": " a secret with spaces "}}); res.Status != http.StatusOK {
		t.Fatalf("secret with spaces: %d %s", res.Status, res.Body)
	}
	if got := stored(); got != " a secret with spaces " {
		t.Fatalf("the secret is %q", got)
	}
}

// Text that is not UTF-8, in any string of the body, is a 400: encoding/json
// would store it as U+FFFD. Nothing is created or changed.
func TestSubscriptionBodyNotUTF8(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	sub := subscribe(t, env, key, map[string]any{"name": "Objednávky", "url": "https://example.com/h", "events": []string{"shipment.created"}})
	path := subsPath + "/" + sub["id"].(string)

	for _, req := range []apptest.Request{
		{Method: http.MethodPost, Path: subsPath, Body: "{\"name\":\"Objedn\xe1vky\",\"url\":\"https://example.com/h\",\"events\":[\"shipment.created\"]}"},
		{Method: http.MethodPost, Path: subsPath, Body: "{\"name\":\"n\",\"url\":\"https://example.com/\xff\",\"events\":[\"shipment.created\"]}"},
		{Method: http.MethodPost, Path: subsPath, Body: "{\"name\":\"n\",\"url\":\"https://example.com/h\",\"events\":[\"shipment.created\"],\"secret\":\"long-enough-\xc3\"}"},
		{Method: http.MethodPost, Path: subsPath, Body: "{\"name\":\"n\",\"url\":\"https://example.com/h\",\"events\":[\"shipment.created\"],\"note\":\"\xfe\"}"},
		{Method: http.MethodPut, Path: path, Body: "{\"name\":\"Objedn\xe1vky\"}"},
		{Method: http.MethodPatch, Path: path, Body: "{\"events\":[\"shipment.created\",\"\xed\xa0\x80\"]}"},
		{Method: http.MethodPatch, Path: path, Body: `{"name":"Objedn\ud800vky"}`},
	} {
		req.Key = key
		res := env.Do(req)
		e, _ := res.JSON(t)["error"].(map[string]any)
		if res.Status != http.StatusBadRequest || e["code"] != "invalid_request" ||
			!strings.Contains(e["message"].(string), "UTF-8") && !strings.Contains(e["message"].(string), "surrogate") {
			t.Errorf("%s %q: %d %s", req.Method, req.Body, res.Status, res.Body)
		}
	}
	got := env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key}).Data(t)
	if got["name"] != "Objednávky" || len(got["events"].([]any)) != 1 {
		t.Fatalf("a refused update changed the subscription: %v", got)
	}
	var names []string
	if err := env.DB.Select(&names, `SELECT name FROM webhooks.subscriptions`); err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || strings.ContainsRune(names[0], '\uFFFD') {
		t.Fatalf("stored names %q, want only the first", names)
	}
}

// A name with a line break or a bidi override, and an events list longer
// than there are event types (10,000 repeats of one), are refused on create
// and PATCH naming the field; nothing is stored.
func TestSubscriptionNameAndEventsBounds(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created", "shipment.created"}})
	path := subsPath + "/" + sub["id"].(string)
	repeats := make([]string, 10000)
	for i := range repeats {
		repeats[i] = "shipment.created"
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "Orders\r\nX"}, "name"},
		{map[string]any{"name": "Orders\u202E"}, "name"},
		{map[string]any{"events": repeats}, "events"},
	} {
		create := map[string]any{"name": "n", "url": "https://example.com/h", "events": []string{"shipment.created"}}
		for k, v := range c.body {
			create[k] = v
		}
		for _, req := range []apptest.Request{
			{Method: http.MethodPost, Path: subsPath, Body: create},
			{Method: http.MethodPatch, Path: path, Body: c.body},
		} {
			req.Key = key
			if errs := env.Do(req).FieldErrors(t, http.StatusUnprocessableEntity); errs[c.field] == nil || len(errs) != 1 {
				t.Errorf("%s %v: errors %v, want one on %s", req.Method, c.body, errs, c.field)
			}
		}
	}
	if got := env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key}).Data(t); got["name"] != "n" || len(got["events"].([]any)) != 1 {
		t.Fatalf("a refused update changed the subscription: %v", got)
	}
}
