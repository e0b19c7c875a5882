package ports_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"shipd"
	"shipd/modules/channels/domain"
	"shipd/modules/channels/ports"
	"shipd/platform/apptest"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// bodySeeds are channel bodies from the tests and the README, good and bad.
var bodySeeds = []string{
	`{"name": "Sandbox main", "provider": "sandbox", "settings": {"clientId": "demo-client", "clientSecret": "demo-secret", "productType": "STANDARD"}}`,
	`{"name":"Renamed","description":"for parcels"}`, `{"name":"  "}`, `{"status":"inactive"}`, `{"status":"draft"}`,
	`{"settings":{"clientSecret":"••••••••","productType":null}}`, `{"settings":"x"}`, `{"settings":[1]}`, `{"settings":null}`,
	`{"name":5,"provider":"sandbox"}`, `{}`, `{"name":"x","provider":"pigeon","settings":{}}`,
	`{"name":"x","provider":"sandbox","settings":{"clientId":true,"colour":"red"}}`,
	`{"name":"x","provider":"sandbox","settings":{"clientId":"a","clientSecret":"b","productType":"FLIGHT"}}`,
	`{"name":"Nov\u00e1k","provider":"sandbox","description":"D\u00e9p\u00f4t","settings":{"clientId":"\u00e1","clientSecret":"s"}}`,
	`{"name":"a\u0000b","provider":"sandbox","settings":{"clientId":"c","clientSecret":"s"}}`,
	`{"name":"z","provider":"sandbox","description":"\u0000","settings":{"clientId":"c","clientSecret":"s"}}`,
	`{"name":"y","provider":"sandbox","settings":{"clientId":"\u0000","clientSecret":"s"}}`,
	// Members no channel body has, at the top and misspelt; a settings key
	// the provider does not know.
	`{"name":"x","provider":"sandbox","descripton":"d","settings":{"clientId":"c","clientSecret":"s"}}`, `{"nmae":"Renamed","bogus":1}`,
	`{"Name":"x","provider":"sandbox"}`, `{"settings":{"clientId":"c","mode":"live"},"stauts":"active"}`, `{"":1}`,
	`{"name": "x",`, `["name"]`, ``, `{"description":` + `"` + strings.Repeat("d", 2001) + `"}`,
	// Issue 31: a name with a bidi override or a line break, a secret past
	// the settings' bound.
	`{"name":"Main\u202e","provider":"sandbox","settings":{"clientId":"c","clientSecret":"s"}}`,
	`{"name":"Main\r\nX","provider":"sandbox","settings":{"clientId":"c","clientSecret":"s"}}`,
	`{"name":"big","provider":"sandbox","settings":{"clientId":"c","clientSecret":"` + strings.Repeat("s", 5000) + `"}}`,
}

// FuzzChannelRequests decodes any body as POST and as PUT/PATCH do, and
// checks its description as the domain does before it looks the channel
// up: a refusal is a 400 or 422, and what passes is a description within
// its limit and settings that are absent or an object that encodes again
// as it came.
func FuzzChannelRequests(f *testing.F) {
	for _, b := range bodySeeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var create ports.CreateRequest
		err := apptest.DecodeBody(body, &create)
		if err == nil {
			err = domain.CheckDescription(create.Description)
		}
		if apptest.CheckRefusal(t, err) && utf8.RuneCountInString(create.Description) > 2000 {
			t.Fatalf("create accepted a description of %d characters", utf8.RuneCountInString(create.Description))
		}

		var update ports.UpdateRequest
		err = apptest.DecodeBody(body, &update)
		if err != nil {
			apptest.CheckRefusal(t, err)
			return
		}
		errs := fault.FieldErrors{}
		settings, serr := ports.DecodeSettings(update.Settings)
		if serr != nil {
			errs.Add("settings", "must be an object")
		}
		var rules error
		if update.Description != nil {
			rules = domain.CheckDescription(*update.Description)
		}
		if !apptest.CheckRefusal(t, httpapi.Refusal(errs, rules)) {
			return
		}
		if update.Description != nil && utf8.RuneCountInString(*update.Description) > 2000 {
			t.Fatalf("update accepted a description of %d characters", utf8.RuneCountInString(*update.Description))
		}
		absent := len(update.Settings) == 0 || string(update.Settings) == "null"
		if (settings == nil) != absent {
			t.Fatalf("settings %s decoded as %v", update.Settings, settings)
		}
		if !absent {
			var again map[string]any
			raw, err := json.Marshal(settings)
			if err != nil || json.Unmarshal(raw, &again) != nil || !reflect.DeepEqual(again, settings) {
				t.Fatalf("settings %s do not encode again: %s %v", update.Settings, raw, err)
			}
		}
	})
}

// FuzzChannelBodies sends any body to POST /v1/shipping-channels and to
// PUT and PATCH of one channel of the real app.
func FuzzChannelBodies(f *testing.F) {
	env := apptest.Start(f, shipd.InitializeApp, apptest.Quiet())
	key := env.NewKey("acme")
	id := env.ActiveSandboxChannel(key, "Fuzzed", nil)
	for _, b := range bodySeeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) { env.CheckWrites(t, key, channelsPath, id, body) })
}

// FuzzChannelQueries sends any query string to the channel list and any
// path id to GET /v1/shipping-channels/{id}.
func FuzzChannelQueries(f *testing.F) {
	env := apptest.Start(f, shipd.InitializeApp, apptest.Quiet())
	key := env.NewKey("acme")
	id := env.ActiveSandboxChannel(key, "Fuzzed", nil)
	for _, q := range []string{
		"", "per_page=2&page=2&provider=sandbox", "status=active", "status=lost", "provider=pigeon", "per_page=100",
		"page=0&per_page=abc", "provider=%zz&status=draft", "status=%00", "provider=\xff",
	} {
		f.Add(q, id)
	}
	for _, bad := range []string{"ch_01JD0000000000000000000000", "nope", "", "..", "ch_01jd0000000000000000000000", "a/b", "ch_\x00"} {
		f.Add("", bad)
	}
	f.Fuzz(func(t *testing.T, query, pathID string) {
		for _, req := range []apptest.Request{
			{Method: http.MethodGet, Path: channelsPath + "?" + apptest.RawQuery(query), Key: key},
			{Method: http.MethodGet, Path: channelsPath + "/" + url.PathEscape(pathID), Key: key},
			{Method: http.MethodGet, Path: "/v1/providers?" + apptest.RawQuery(query), Key: key},
		} {
			apptest.CheckAnswer(t, req.Method+" "+req.Path, env.Send(t, req))
		}
	})
}
