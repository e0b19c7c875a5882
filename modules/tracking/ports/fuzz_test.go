package ports_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"shipd"
	"shipd/modules/tracking/ports"
	"shipd/platform/apptest"
)

// bodySeeds are the bodies of the tests and the README for channel ch.
func bodySeeds(ch string) []string {
	ok := func(kv ...any) map[string]any {
		b := map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch}
		for i := 0; i < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	bodies := []any{
		ok(), ok("tracking_number", "sb 1000 0001 7cz", "recipient_name", "Jana Nováková", "recipient_email", "jana@example.test",
			"recipient_phone", "+420777888999", "check_delay_hours", 6, "max_checks", 20, "external_data", map[string]any{"order": "A-17", "lines": []any{1.0, 2.0}}),
		map[string]any{"shipping_channel_id": ch}, ok("tracking_number", "   "), ok("tracking_number", "SB<1>"),
		ok("tracking_number", strings.Repeat("1", 65)), ok("tracking_number", 12345), map[string]any{"tracking_number": "SB000000014CZ"},
		ok("shipping_channel_id", "ch_01JZZZZZZZZZZZZZZZZZZZZZZZ"), ok("check_delay_hours", 0), ok("check_delay_hours", 169),
		ok("check_delay_hours", 1.5), ok("max_checks", 0), ok("max_checks", 1001), ok("recipient_email", "jana"),
		ok("external_data", []any{1}), ok("external_data", "x"),
		map[string]any{"recipient_name": "Jana Nováková", "recipient_email": "", "external_data": map[string]any{"b": "x"}},
		map[string]any{"max_checks": 3}, map[string]any{"status": "delivered"}, map[string]any{"recipient_email": "nope"},
		map[string]any{"external_data": []any{}}, map[string]any{"recipient_name": strings.Repeat("x", 256)},
		// Members no tracking parcel body has; external_data's keys are free.
		ok("recipient_emial", "jana@example.test", "max_check", 3), ok("bogus", 1), map[string]any{"recipient_nmae": "Eva"},
		map[string]any{"Recipient_Name": "Eva", "external_data": map[string]any{"any": map[string]any{"deep": []any{1}}}},
	}
	var out []string
	for _, b := range bodies {
		raw, _ := json.Marshal(b)
		out = append(out, string(raw))
	}
	return append(out, `{"recipient_name":"Nov\u00e1kov\u00e1"}`, `{"recipient_name":"\u0000"}`, `{"external_data":{"a":"\u0000"}}`, "", "[]", "{", `{"tracking_number": "SB000000014CZ"} {}`)
}

var trackingNumber = regexp.MustCompile(`^[A-Z0-9-]{1,64}$`)

// FuzzTrackingParcelRequests decodes any body as POST /v1/tracking-parcels
// and PUT/PATCH do before the app sees it: a refusal is a 400 or 422; a
// parcel that passes has a tracking number as carriers print it and check
// settings within their ranges, and an edit changes only what may change.
func FuzzTrackingParcelRequests(f *testing.F) {
	for _, b := range bodySeeds("ch_01JD0000000000000000000000") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var create ports.CreateRequest
		if err := apptest.DecodeBody(body, &create); err != nil {
			apptest.CheckRefusal(t, err)
		} else if st, err := create.Check(); apptest.CheckRefusal(t, err) {
			switch {
			case !trackingNumber.MatchString(st.TrackingNumber) || st.ChannelID == "":
				t.Fatalf("accepted tracking number %q on channel %q", st.TrackingNumber, st.ChannelID)
			case st.CheckDelayHours < 1 || st.CheckDelayHours > 168 || st.MaxChecks < 1 || st.MaxChecks > 1000:
				t.Fatalf("accepted checks every %d hours, %d at most", st.CheckDelayHours, st.MaxChecks)
			case utf8.RuneCountInString(st.Recipient.Name) > 255 || st.Recipient.Email != "" && !strings.Contains(st.Recipient.Email, "@"):
				t.Fatalf("accepted recipient %+v", st.Recipient)
			}
		}

		var update ports.UpdateRequest
		if err := apptest.DecodeBody(body, &update); err != nil {
			apptest.CheckRefusal(t, err)
			return
		}
		external, err := update.Check()
		if !apptest.CheckRefusal(t, err) {
			return
		}
		for _, raw := range []json.RawMessage{update.TrackingNumber, update.ChannelID, update.CheckDelayHours, update.MaxChecks, update.Status} {
			if len(raw) > 0 {
				t.Fatalf("an edit of a fixed field passed: %s", body)
			}
		}
		if update.RecipientName != nil && utf8.RuneCountInString(*update.RecipientName) > 255 {
			t.Fatalf("accepted a recipient name of %d characters", utf8.RuneCountInString(*update.RecipientName))
		}
		if absent := len(update.ExternalData) == 0 || string(update.ExternalData) == "null"; (external == nil) != absent {
			t.Fatalf("external_data %s read as %v", update.ExternalData, external)
		}
	})
}

// fuzzEnv starts the app with an active sandbox channel and one tracking
// parcel on it.
func fuzzEnv(f *testing.F) (env *apptest.Env, key, channel, parcel string) {
	env = apptest.Start(f, shipd.InitializeApp, apptest.Quiet())
	key = env.NewKey("acme")
	channel = env.ActiveSandboxChannel(key, "Sandbox", nil)
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key,
		Body: map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": channel}})
	if res.Status != http.StatusCreated {
		f.Fatalf("create tracking parcel: %d %s", res.Status, res.Body)
	}
	parcel, _ = res.Data(f)["id"].(string)
	return env, key, channel, parcel
}

// FuzzTrackingParcelBodies sends any body to POST /v1/tracking-parcels and
// to PUT and PATCH of one tracking parcel of the real app.
func FuzzTrackingParcelBodies(f *testing.F) {
	env, key, channel, parcel := fuzzEnv(f)
	for _, b := range bodySeeds(channel) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) { env.CheckWrites(t, key, parcelsPath, parcel, body) })
}

// FuzzTrackingParcelQueries sends any query string to the tracking parcel
// list and any path id to GET /v1/tracking-parcels/{id}.
func FuzzTrackingParcelQueries(f *testing.F) {
	env, key, channel, parcel := fuzzEnv(f)
	for _, q := range []string{
		"", "status=waiting_for_shipment", "status=lost", "shipping_channel_id=" + channel, "search=sb0000", "search=SB 0000 0001",
		"status=waiting_for_shipment&shipping_channel_id=" + channel + "&per_page=1&page=2", "search=" + strings.Repeat("1", 65),
		"search=%00", "search=\xe9", "shipping_channel_id=%ff", "search=%25_",
	} {
		f.Add(q, parcel)
	}
	for _, bad := range []string{"tp_01JD0000000000000000000000", "nope", "", "..", channel} {
		f.Add("", bad)
	}
	f.Fuzz(func(t *testing.T, query, pathID string) {
		for _, req := range []apptest.Request{
			{Method: http.MethodGet, Path: parcelsPath + "?" + apptest.RawQuery(query), Key: key},
			{Method: http.MethodGet, Path: parcelsPath + "/" + url.PathEscape(pathID), Key: key},
		} {
			apptest.CheckAnswer(t, req.Method+" "+req.Path, env.Send(t, req))
		}
	})
}
