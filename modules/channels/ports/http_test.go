package ports_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
)

const channelsPath = "/v1/shipping-channels"

func sandboxChannel(name string) map[string]any {
	return map[string]any{
		"name":     name,
		"provider": "sandbox",
		"settings": map[string]any{"clientId": "client-1", "clientSecret": "top-secret-value", "productType": "STANDARD"},
	}
}

func createChannel(t *testing.T, env *apptest.Env, key, name string) map[string]any {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: sandboxChannel(name)})
	if res.Status != http.StatusCreated {
		t.Fatalf("create %q: %d %s", name, res.Status, res.Body)
	}
	return res.Data(t)
}

// fieldErrors returns the errors object of an error answer, checking that
// both forms of the decided shape agree.
func fieldErrors(t *testing.T, res *apptest.Response, status int) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	body := res.JSON(t)
	nested, ok := body["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object: %s", res.Body)
	}
	if int(nested["status"].(float64)) != status || nested["request_id"] == "" || body["message"] != nested["message"] {
		t.Fatalf("nested error disagrees with the answer: %s", res.Body)
	}
	if res.Header.Get("X-Request-Id") != nested["request_id"] {
		t.Fatalf("request id header %q vs body %v", res.Header.Get("X-Request-Id"), nested["request_id"])
	}
	errs, _ := body["errors"].(map[string]any)
	return errs
}

func hasField(errs map[string]any, field string) bool {
	_, ok := errs[field]
	return ok
}

func TestCreateChannel(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")

	res := env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: sandboxChannel("Main")})
	if res.Status != http.StatusCreated {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	if body["message"] != "Shipping channel created successfully" {
		t.Errorf("message = %v", body["message"])
	}
	ch := res.Data(t)
	id, _ := ch["id"].(string)
	if !strings.HasPrefix(id, "ch_") || len(id) != 29 {
		t.Errorf("id = %q", id)
	}
	if ch["status"] != "draft" || ch["provider"] != "sandbox" || ch["name"] != "Main" {
		t.Errorf("record = %v", ch)
	}
	settings := ch["settings"].(map[string]any)
	if settings["clientSecret"] != "••••••••" || settings["clientId"] != "client-1" {
		t.Errorf("settings not masked as decided: %v", settings)
	}
	if strings.Contains(string(res.Body), "top-secret-value") {
		t.Error("the secret appears in the answer")
	}
	created, err := time.Parse(time.RFC3339, ch["created_at"].(string))
	if err != nil || !strings.HasSuffix(ch["created_at"].(string), "Z") || created.Nanosecond() != 0 {
		t.Errorf("created_at %v is not RFC 3339 UTC whole seconds", ch["created_at"])
	}
	if loc := res.Header.Get("Location"); !strings.HasSuffix(loc, channelsPath+"/"+id) {
		t.Errorf("Location = %q", loc)
	}

	// Read your own write at once.
	got := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/" + id, Key: key})
	if got.Status != http.StatusOK || got.Data(t)["id"] != id {
		t.Fatalf("get after create: %d %s", got.Status, got.Body)
	}

	// The secret is encrypted at rest: no column holds the plaintext.
	var rowText string
	if err := env.DB.Get(&rowText, `SELECT row_to_json(c)::text FROM channels.channels c WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rowText, "top-secret-value") {
		t.Error("the secret is stored in clear")
	}
	if strings.Contains(env.Logs.String(), "top-secret-value") {
		t.Error("the secret appears in the log")
	}
}

func TestCreateChannelRejectsBadInput(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	createChannel(t, env, key, "Taken")

	cases := []struct {
		name    string
		body    any
		headers map[string]string
		status  int
		fields  []string
	}{
		{"malformed JSON", `{"name": "x",`, nil, 400, nil},
		{"not an object", `["name"]`, nil, 400, nil},
		{"empty body", ``, nil, 400, nil},
		{"missing content type", `{"name":"x"}`, map[string]string{"Content-Type": ""}, 400, nil},
		{"wrong content type", `{"name":"x"}`, map[string]string{"Content-Type": "text/plain"}, 400, nil},
		{"wrong type of name", map[string]any{"name": 5, "provider": "sandbox"}, nil, 422, []string{"name"}},
		{"settings not an object", map[string]any{"name": "x", "provider": "sandbox", "settings": []int{1}}, nil, 422, []string{"settings"}},
		{"nothing given", map[string]any{}, nil, 422, []string{"name", "provider"}},
		{"unknown provider", map[string]any{"name": "x", "provider": "pigeon", "settings": map[string]any{}}, nil, 422, []string{"provider"}},
		{"duplicate name", sandboxChannel("Taken"), nil, 422, []string{"name"}},
		{"unknown and missing settings", map[string]any{"name": "x", "provider": "sandbox",
			"settings": map[string]any{"clientId": true, "colour": "red"}}, nil, 422,
			[]string{"settings.clientId", "settings.clientSecret", "settings.colour"}},
		{"setting outside its enum", map[string]any{"name": "x", "provider": "sandbox",
			"settings": map[string]any{"clientId": "a", "clientSecret": "b", "productType": "FLIGHT"}}, nil, 422, []string{"settings.productType"}},
		{"oversized body", `{"name":"` + strings.Repeat("x", 1<<20) + `"}`, nil, 400, nil},
		{"name of 256 characters", sandboxChannel(strings.Repeat("č", 256)), nil, 422, []string{"name"}},
		{"name with a bidi override", sandboxChannel("Main\u202E"), nil, 422, []string{"name"}},
		{"a secret of 900 KB and a line break in a setting", map[string]any{"name": "x", "provider": "sandbox",
			"settings": map[string]any{"clientId": "a\r\nb", "clientSecret": strings.Repeat("s", 900*1024)}}, nil, 422,
			[]string{"settings.clientId", "settings.clientSecret"}},
		{"description of 2001 characters", map[string]any{"name": "", "provider": "sandbox", "description": strings.Repeat("d", 2001)}, nil, 422,
			[]string{"description"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: tc.body, Headers: tc.headers})
			errs := fieldErrors(t, res, tc.status)
			for _, f := range tc.fields {
				if !hasField(errs, f) {
					t.Errorf("no error for %s in %s", f, res.Body)
				}
			}
			if len(errs) != len(tc.fields) {
				t.Errorf("errors %v, want exactly %v", errs, tc.fields)
			}
		})
	}

	// Nothing of the above was stored, and no event was published for it.
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM channels.channels`); err != nil || n != 1 {
		t.Fatalf("channels stored = %d (%v), want 1", n, err)
	}
	if err := env.DB.Get(&n, `SELECT count(*) FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.created') e`); err != nil || n != 1 {
		t.Fatalf("created events = %d (%v), want 1 (a rolled-back write published an event)", n, err)
	}
	// The limit counts characters, not bytes: 255 two-byte letters are a name.
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: sandboxChannel(strings.Repeat("č", 255))}); res.Status != http.StatusCreated {
		t.Errorf("a name of 255 characters (510 bytes): %d %s", res.Status, res.Body)
	}
}

func TestListChannels(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clk))
	key := env.NewKey("acme")
	other := env.NewKey("globex")
	var ids []string
	for _, name := range []string{"A", "B", "C"} {
		clk.Advance(time.Second) // one second apart: ids of one second are in no order (ADR 0011)
		ids = append(ids, createChannel(t, env, key, name)["id"].(string))
	}
	createChannel(t, env, other, "Theirs")

	// The projection catches up with the write a moment later.
	var list map[string]any
	apptest.Eventually(t, 5*time.Second, "list shows the three channels", func() bool {
		list = env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath, Key: key}).JSON(t)
		return list["meta"].(map[string]any)["total"] == float64(3)
	})
	data := list["data"].([]any)
	if data[0].(map[string]any)["id"] != ids[2] || data[2].(map[string]any)["id"] != ids[0] {
		t.Errorf("not newest first: %v", data)
	}
	if data[0].(map[string]any)["settings"].(map[string]any)["clientSecret"] != "••••••••" {
		t.Error("list shows a secret")
	}

	page := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "?per_page=2&page=2&provider=sandbox", Key: key}).JSON(t)
	meta := page["meta"].(map[string]any)
	links := page["links"].(map[string]any)
	if meta["current_page"] != float64(2) || meta["last_page"] != float64(2) || meta["from"] != float64(3) ||
		meta["to"] != float64(3) || meta["per_page"] != float64(2) || meta["total"] != float64(3) {
		t.Errorf("meta = %v", meta)
	}
	if links["next"] != nil || !strings.Contains(links["prev"].(string), "page=1") ||
		!strings.HasPrefix(links["first"].(string), "http://") || !strings.Contains(links["first"].(string), "provider=sandbox") {
		t.Errorf("links = %v", links)
	}
	if !strings.HasPrefix(meta["path"].(string), "http://") || !strings.HasSuffix(meta["path"].(string), channelsPath) {
		t.Errorf("path = %v", meta["path"])
	}

	none := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "?status=active", Key: key}).JSON(t)
	if none["meta"].(map[string]any)["total"] != float64(0) || len(none["data"].([]any)) != 0 {
		t.Errorf("status filter: %v", none)
	}

	for _, q := range []string{"?page=0", "?per_page=101", "?per_page=x", "?status=lost", "?provider=pigeon"} {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + q, Key: key})
		if errs := fieldErrors(t, res, 422); len(errs) != 1 {
			t.Errorf("%s: errors %v", q, errs)
		}
	}

	// Channels of one second follow the newer ones, by id, highest first.
	clk.Advance(time.Second)
	same := []string{createChannel(t, env, key, "D")["id"].(string), createChannel(t, env, key, "E")["id"].(string)}
	slices.Sort(same)
	apptest.Eventually(t, 5*time.Second, "list shows the five channels", func() bool {
		list = env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath, Key: key}).JSON(t)
		return list["meta"].(map[string]any)["total"] == float64(5)
	})
	var order []string
	for _, c := range list["data"].([]any) {
		order = append(order, c.(map[string]any)["id"].(string))
	}
	if want := []string{same[1], same[0], ids[2], ids[1], ids[0]}; !slices.Equal(order, want) {
		t.Errorf("list order %v, want %v", order, want)
	}
}

func TestGetUpdateDeleteChannel(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	other := env.NewKey("globex")
	id := createChannel(t, env, key, "Main")["id"].(string)
	createChannel(t, env, key, "Second")
	path := channelsPath + "/" + id

	t.Run("unknown and malformed ids are 404", func(t *testing.T) {
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/ch_01JD0000000000000000000000", Key: key}), 404)
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/nope", Key: key}), 404)
	})
	t.Run("another account's channel is 403 and unchanged", func(t *testing.T) {
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: other}), 403)
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: other, Body: map[string]any{"name": "Stolen"}}), 403)
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodDelete, Path: path, Key: other}), 403)
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/validate", Key: other}), 403)
		if got := env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key}).Data(t); got["name"] != "Main" {
			t.Errorf("changed by another account: %v", got)
		}
	})
	t.Run("rename and describe", func(t *testing.T) {
		res := env.Do(apptest.Request{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{"name": "Renamed", "description": "for parcels"}})
		if res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		d := res.Data(t)
		if d["name"] != "Renamed" || d["description"] != "for parcels" || d["status"] != "draft" {
			t.Errorf("after rename: %v", d)
		}
		errs := fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"name": "Second"}}), 422)
		if !hasField(errs, "name") {
			t.Errorf("duplicate rename: %v", errs)
		}
		errs = fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"name": "  "}}), 422)
		if !hasField(errs, "name") {
			t.Errorf("blank rename: %v", errs)
		}
	})
	t.Run("validate, then a settings change returns to draft", func(t *testing.T) {
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/validate", Key: key})
		if res.Status != 200 || res.Data(t)["status"] != "active" || res.Data(t)["validated_at"] == nil {
			t.Fatalf("validate: %d %s", res.Status, res.Body)
		}
		// Sending back the masked record keeps the secret and changes nothing.
		same := env.Do(apptest.Request{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{
			"settings": map[string]any{"clientId": "client-1", "clientSecret": "••••••••", "productType": "STANDARD"}}})
		if same.Status != 200 || same.Data(t)["status"] != "active" {
			t.Fatalf("masked round trip changed the channel: %d %s", same.Status, same.Body)
		}
		// PATCH merges settings: a new product type is a settings change.
		patched := env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{
			"settings": map[string]any{"productType": "EXPRESS"}}})
		d := patched.Data(t)
		if d["status"] != "draft" || d["validated_at"] != nil || d["settings"].(map[string]any)["clientSecret"] != "••••••••" {
			t.Errorf("after settings change: %v", d)
		}
		var version int
		if err := env.DB.Get(&version, `SELECT version FROM channels.channels WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		// The secret survived both updates: validation with it still passes.
		if res := env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/validate", Key: key}); res.Data(t)["status"] != "active" {
			t.Errorf("secret lost: %s", res.Body)
		}
		errs := fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{
			"settings": map[string]any{"bogus": 1}}}), 422)
		if !hasField(errs, "settings.bogus") {
			t.Errorf("unknown setting on update: %v", errs)
		}
		errs = fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"settings": "x"}}), 422)
		if !hasField(errs, "settings") {
			t.Errorf("settings string: %v", errs)
		}
	})
	t.Run("pause and resume", func(t *testing.T) {
		d := env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"status": "inactive"}}).Data(t)
		if d["status"] != "inactive" {
			t.Fatalf("pause: %v", d)
		}
		d = env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"status": "active"}}).Data(t)
		if d["status"] != "active" {
			t.Fatalf("resume a validated channel: %v", d)
		}
		errs := fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: map[string]any{"status": "draft"}}), 422)
		if !hasField(errs, "status") {
			t.Error(errs)
		}
		second := createChannel(t, env, key, "Never validated")["id"].(string)
		errs = fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPatch, Path: channelsPath + "/" + second, Key: key, Body: map[string]any{"status": "active"}}), 422)
		if !hasField(errs, "status") {
			t.Errorf("unvalidated channel became active: %v", errs)
		}
	})
	t.Run("delete", func(t *testing.T) {
		res := env.Do(apptest.Request{Method: http.MethodDelete, Path: path, Key: key})
		if res.Status != 200 || res.JSON(t)["message"] != "Shipping channel deleted successfully" {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: path, Key: key}), 404)
		fieldErrors(t, env.Do(apptest.Request{Method: http.MethodDelete, Path: path, Key: key}), 404)
		apptest.Eventually(t, 5*time.Second, "list drops the deleted channel", func() bool {
			list := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "?per_page=100", Key: key}).JSON(t)
			for _, c := range list["data"].([]any) {
				if c.(map[string]any)["id"] == id {
					return false
				}
			}
			return true
		})
	})
}

func TestValidateChannel(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")

	ok := createChannel(t, env, key, "Good")["id"].(string)
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath + "/" + ok + "/validate", Key: key})
	if res.Status != 200 || res.Data(t)["status"] != "active" || res.JSON(t)["message"] != "Shipping channel validated successfully" {
		t.Fatalf("validate good: %d %s", res.Status, res.Body)
	}

	bad := env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: map[string]any{
		"name": "Bad", "provider": "sandbox", "settings": map[string]any{"clientId": "a", "clientSecret": "invalid"}}}).Data(t)["id"].(string)
	res = env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath + "/" + bad + "/validate", Key: key})
	errs := fieldErrors(t, res, 422)
	if !hasField(errs, "settings.clientSecret") {
		t.Errorf("rejection does not name the setting: %s", res.Body)
	}
	got := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/" + bad, Key: key}).Data(t)
	if got["status"] != "error" || got["validation_error"] == nil {
		t.Errorf("after rejection: %v", got)
	}

	down := env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: key, Body: map[string]any{
		"name": "Down", "provider": "sandbox", "settings": map[string]any{"clientId": "a", "clientSecret": "unavailable"}}}).Data(t)
	res = env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath + "/" + down["id"].(string) + "/validate", Key: key})
	if res.Status != 503 || res.JSON(t)["error"].(map[string]any)["code"] != "provider_unavailable" {
		t.Fatalf("unreachable carrier: %d %s", res.Status, res.Body)
	}
	after := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/" + down["id"].(string), Key: key}).Data(t)
	if after["status"] != "draft" || after["updated_at"] != down["updated_at"] {
		t.Errorf("an unreachable carrier changed the channel: %v", after)
	}

	// Events: validated and status_changed for the good one, status_changed
	// (draft → error) for the bad one, nothing for the unreachable one.
	var events []struct {
		Topic   string `db:"topic"`
		Payload []byte `db:"payload"`
	}
	err := env.DB.Select(&events, `
		SELECT 'validated' AS topic, payload::text::bytea AS payload FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.validated') e
		UNION ALL SELECT 'status_changed', payload::text::bytea FROM (SELECT * FROM "watermill_channels" WHERE metadata->>'name' = 'shipping_channel.status_changed') e ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var changes []string
	for _, e := range events {
		var p struct {
			PreviousStatus  string `json:"previous_status"`
			ShippingChannel struct {
				Name, Status string
			} `json:"shipping_channel"`
		}
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatal(err)
		}
		changes = append(changes, e.Topic+":"+p.ShippingChannel.Name+":"+p.PreviousStatus+"→"+p.ShippingChannel.Status)
	}
	want := "status_changed:Bad:draft→error status_changed:Good:draft→active validated:Good:→active"
	if strings.Join(sorted(changes), " ") != want {
		t.Errorf("events = %v, want %s", sorted(changes), want)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestAuthAndPermissions(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	readOnly := env.NewKey("acme", auth.ChannelsRead)
	writer := env.NewKey("acme")

	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath}), 401)
	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath, Key: "shp_" + strings.Repeat("x", 40)}), 401)
	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath, Headers: map[string]string{"Authorization": "Basic abc"}}), 401)

	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath, Key: readOnly, Body: sandboxChannel("x")}), 403)
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath, Key: readOnly}); res.Status != 200 {
		t.Errorf("read with channels:read: %d", res.Status)
	}
	id := createChannel(t, env, writer, "Main")["id"].(string)
	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodDelete, Path: channelsPath + "/" + id, Key: readOnly}), 403)
	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodPost, Path: channelsPath + "/" + id + "/validate", Key: readOnly}), 403)

	noChannels := env.NewKey("acme", auth.ShipmentsRead)
	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/" + id, Key: noChannels}), 403)
}

func TestProviders(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/providers", Key: key})
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	var body struct {
		Data []struct {
			Code              string   `json:"code"`
			LabelFormats      []string `json:"label_formats"`
			SupportsCOD       bool     `json:"supports_cod"`
			MaxParcels        int      `json:"max_parcels_per_shipment"`
			MaxParcelWeightKG float64  `json:"max_parcel_weight_kg"`
			Settings          []struct {
				Key    string `json:"key"`
				Secret bool   `json:"secret"`
			} `json:"settings"`
			ProductTypes []struct {
				Code              string  `json:"code"`
				CODProduct        string  `json:"cod_product"`
				MaxParcels        int     `json:"max_parcels_per_shipment"`
				MaxParcelWeightKG float64 `json:"max_parcel_weight_kg"`
				PickupPoint       string  `json:"pickup_point"`
			} `json:"product_types"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatal(err)
	}
	byCode := map[string]int{}
	var codes []string
	for i, p := range body.Data {
		byCode[p.Code] = i
		codes = append(codes, p.Code)
	}
	if want := []string{"allegro", "dhl_express", "dhl_parcel_de", "dpd_pl", "gls", "inpost", "packeta", "ppl", "sandbox"}; !slices.Equal(codes, want) {
		t.Fatalf("provider codes %v, want %v (sorted)", codes, want)
	}
	ppl := body.Data[byCode["ppl"]]
	if !ppl.SupportsCOD || len(ppl.ProductTypes) == 0 || ppl.ProductTypes[0].Code != "BUSS" || ppl.ProductTypes[0].CODProduct != "BUSD" ||
		!slices.Equal(ppl.LabelFormats, []string{"pdf", "zpl"}) {
		t.Errorf("ppl description = %+v", ppl)
	}
	// How products use a pickup point: a locker or point product needs
	// one, a product to the address takes none.
	points := map[string]string{}
	for _, p := range body.Data {
		for _, pt := range p.ProductTypes {
			points[p.Code+"/"+pt.Code] = pt.PickupPoint
		}
	}
	for product, want := range map[string]string{"inpost/inpost_locker_standard": "required", "inpost/inpost_courier_standard": "none",
		"ppl/SMAR": "required", "ppl/BUSS": "none", "packeta/pickup_point": "required", "packeta/home_delivery": "none",
		"allegro/PICKUP_POINT": "required", "dpd_pl/PICKUP": "required", "dpd_pl/CLASSIC": "none", "sandbox/POINT": "required", "sandbox/STANDARD": "none", "dhl_express/P": "optional"} {
		if points[product] != want {
			t.Errorf("%s: pickup_point %q, want %q", product, points[product], want)
		}
	}
	// Weight limits per parcel where the adapters know one.
	weights := map[string]float64{}
	for _, p := range body.Data {
		if p.MaxParcelWeightKG != 0 {
			weights[p.Code] = p.MaxParcelWeightKG
		}
		for _, pt := range p.ProductTypes {
			if pt.MaxParcelWeightKG != 0 {
				weights[p.Code+"/"+pt.Code] = pt.MaxParcelWeightKG
			}
		}
	}
	if want := map[string]float64{"sandbox": 31.5, "dhl_parcel_de": 31.5, "dpd_pl": 31.5, "packeta/pickup_point": 10}; !maps.Equal(weights, want) {
		t.Errorf("weight limits %v, want %v", weights, want)
	}
	// Parcel limits as the vendors document them (GLS, Allegro, Packeta,
	// DPD Poland: chosen).
	limits := map[string]int{}
	for _, p := range body.Data {
		limits[p.Code] = p.MaxParcels
		for _, pt := range p.ProductTypes {
			if pt.MaxParcels != 0 {
				limits[p.Code+"/"+pt.Code] = pt.MaxParcels
			}
		}
	}
	if want := map[string]int{"sandbox": 20, "ppl": 50, "dhl_parcel_de": 30, "gls": 50, "inpost": 1000,
		"inpost/inpost_locker_standard": 1, "allegro": 10, "dhl_express": 999, "packeta": 20, "dpd_pl": 50}; !maps.Equal(limits, want) {
		t.Errorf("parcel limits %v, want %v", limits, want)
	}
	sb := body.Data[byCode["sandbox"]]
	secret := map[string]bool{}
	for _, s := range sb.Settings {
		secret[s.Key] = s.Secret
	}
	if !secret["clientSecret"] || secret["clientId"] || len(sb.LabelFormats) != 3 || !sb.SupportsCOD ||
		sb.ProductTypes[0].CODProduct != "STANDARD_COD" {
		t.Errorf("sandbox description = %+v", sb)
	}
}

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	fieldErrors(t, env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/nothing-here", Key: key}), 404)
	res := env.Do(apptest.Request{Method: http.MethodDelete, Path: channelsPath, Key: key})
	fieldErrors(t, res, 405)
	if res.Header.Get("Allow") != "GET, POST" {
		t.Errorf("Allow = %q", res.Header.Get("Allow"))
	}
}
