package ports_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/adapters/carriers/sandbox"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
)

const parcelsPath = "/v1/tracking-parcels"

var start = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// manualEnv runs the service on a clock the test moves.
func manualEnv(t *testing.T) (*apptest.Env, *clock.Manual) {
	clk := clock.NewManual(start)
	return apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clk)), clk
}

// sandboxAccount is manualEnv with an account's key and an active sandbox
// channel of it, where most tests start.
func sandboxAccount(t *testing.T) (env *apptest.Env, clk *clock.Manual, key, ch string) {
	t.Helper()
	env, clk = manualEnv(t)
	key = env.NewKey("acme")
	return env, clk, key, env.ActiveSandboxChannel(key, "Sandbox", nil)
}

func createParcel(t *testing.T, env *apptest.Env, key string, body map[string]any) map[string]any {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key, Body: body})
	if res.Status != http.StatusCreated {
		t.Fatalf("create tracking parcel: %d %s", res.Status, res.Body)
	}
	return res.Data(t)
}

func getParcel(t *testing.T, env *apptest.Env, key, id string) map[string]any {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: parcelsPath + "/" + id, Key: key})
	if res.Status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, res.Status, res.Body)
	}
	return res.Data(t)
}

// awaitChecks polls until the parcel has had n checks.
func awaitChecks(t *testing.T, env *apptest.Env, key, id string, n int) map[string]any {
	t.Helper()
	var tp map[string]any
	apptest.Eventually(t, 10*time.Second, id+" checked "+strconv.Itoa(n)+" times", func() bool {
		tp = getParcel(t, env, key, id)
		return int(tp["checks_done"].(float64)) >= n
	})
	return tp
}

// awaitCheckerIdle waits until the checker has nothing left to do at the
// clock's present: a parcel made now, so due at once, has been checked, and
// no parcel is leased. A claim takes the longest overdue first, so a check
// of anything due by now was claimed with or before the marker's, and has
// ended; what is still unchecked is not due. The marker's carrier answers
// 503: its check changes no status and records no carrier event.
func awaitCheckerIdle(t *testing.T, env *apptest.Env, key, channel string) {
	t.Helper()
	marker := createParcel(t, env, key, map[string]any{"tracking_number": "SB600000015CZ", "shipping_channel_id": channel})["id"].(string)
	awaitChecks(t, env, key, marker, 1)
	apptest.Eventually(t, 10*time.Second, "no tracking check in flight", func() bool {
		var leased int
		if err := env.ModuleDB("tracking").Get(&leased, `SELECT count(*) FROM tracking.parcels WHERE lease_until IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
		return leased == 0
	})
}

func list(t *testing.T, env *apptest.Env, key, query string) map[string]any {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: parcelsPath + query, Key: key})
	if res.Status != http.StatusOK {
		t.Fatalf("list %s: %d %s", query, res.Status, res.Body)
	}
	return res.JSON(t)
}

func ids(body map[string]any) []string {
	var out []string
	for _, item := range body["data"].([]any) {
		out = append(out, item.(map[string]any)["id"].(string))
	}
	return out
}

func TestCreateTrackingParcel(t *testing.T) {
	t.Parallel()
	env, _, key, ch := sandboxAccount(t)
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key, Body: map[string]any{
		"tracking_number": " sb 0000 0001 4cz ", "shipping_channel_id": ch, "recipient_name": "Jana Nováková",
		"recipient_email": "jana@example.test", "recipient_phone": "+420777888999", "check_delay_hours": 12, "max_checks": 5,
		"external_data": map[string]any{"order": "A-17", "lines": []any{1.0, 2.0}},
	}})
	if res.Status != http.StatusCreated {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	tp := body["data"].(map[string]any)
	if body["message"] != "Tracking parcel created successfully" || !strings.HasPrefix(tp["id"].(string), "tp_") ||
		res.Header.Get("Location") != env.URL()+parcelsPath+"/"+tp["id"].(string) {
		t.Fatalf("answer: %s / Location %s", res.Body, res.Header.Get("Location"))
	}
	want := map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch, "provider": "sandbox", "status": "created",
		"shipment_id": nil, "recipient_name": "Jana Nováková", "recipient_email": "jana@example.test", "recipient_phone": "+420777888999",
		"check_delay_hours": 12.0, "max_checks": 5.0, "checks_done": 0.0, "last_checked_at": nil, "last_check_error": nil,
		"next_check_at": "2026-11-02T08:00:00Z", "cod_collected_at": nil, "created_at": "2026-11-02T08:00:00Z", "updated_at": "2026-11-02T08:00:00Z"}
	for k, v := range want {
		if tp[k] != v {
			t.Errorf("%s = %v, want %v", k, tp[k], v)
		}
	}
	if ext := tp["external_data"].(map[string]any); ext["order"] != "A-17" || len(tp["status_updates"].([]any)) != 0 {
		t.Fatalf("external data or updates: %v %v", ext, tp["status_updates"])
	}
	// Defaults, and the first check is due at once: the worker does it.
	def := createParcel(t, env, key, map[string]any{"tracking_number": "SB100000017CZ", "shipping_channel_id": ch})
	if def["check_delay_hours"] != 6.0 || def["max_checks"] != 20.0 || def["recipient_name"] != nil || len(def["external_data"].(map[string]any)) != 0 {
		t.Fatalf("defaults: %v", def)
	}
	checked := awaitChecks(t, env, key, def["id"].(string), 1)
	if checked["status"] != "waiting_for_shipment" || checked["next_check_at"] != "2026-11-02T14:00:00Z" || checked["last_checked_at"] != "2026-11-02T08:00:00Z" {
		t.Fatalf("after the first check: %v", checked)
	}
	updates := checked["status_updates"].([]any)
	first := updates[0].(map[string]any)
	if len(updates) != 1 || first["carrier_code"] != "DATA" || first["status"] != "waiting_for_shipment" ||
		first["timestamp"] != "2026-11-02T08:00:00Z" || !strings.HasPrefix(first["id"].(string), "tpu_") || first["description"] == "" {
		t.Fatalf("status updates: %v", updates)
	}
}

// One case per rule proves that the API answers the domain's problems by
// their paths (the domain's tests hold each rule's message and bounds);
// a number of the wrong JSON type and external data that is no object are
// the port's own.
func TestCreateTrackingParcelRejectsBadInput(t *testing.T) {
	t.Parallel()
	env, _, key, ch := sandboxAccount(t)
	draft := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key,
		Body: map[string]any{"name": "Draft", "provider": "sandbox", "settings": map[string]any{"clientId": "c", "clientSecret": "s"}}}).Data(t)["id"].(string)
	other := env.ActiveSandboxChannel(env.NewKey("other"), "Theirs", nil)
	ok := func(kv ...any) map[string]any {
		b := map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch}
		for i := 0; i < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"no tracking number", map[string]any{"shipping_channel_id": ch}, "tracking_number"},
		{"blank tracking number", ok("tracking_number", "   "), "tracking_number"},
		{"odd characters", ok("tracking_number", "SB<1>"), "tracking_number"},
		{"too long", ok("tracking_number", strings.Repeat("1", 65)), "tracking_number"},
		{"number as a number", ok("tracking_number", 12345), "tracking_number"},
		{"no channel", map[string]any{"tracking_number": "SB000000014CZ"}, "shipping_channel_id"},
		{"unknown channel", ok("shipping_channel_id", "ch_01JZZZZZZZZZZZZZZZZZZZZZZZ"), "shipping_channel_id"},
		{"draft channel", ok("shipping_channel_id", draft), "shipping_channel_id"},
		{"delay zero", ok("check_delay_hours", 0), "check_delay_hours"},
		{"delay fractional", ok("check_delay_hours", 1.5), "check_delay_hours"},
		{"no checks", ok("max_checks", 0), "max_checks"},
		{"bad email", ok("recipient_email", "jana"), "recipient_email"},
		{"long name", ok("recipient_name", strings.Repeat("x", 256)), "recipient_name"},
		{"long phone", ok("recipient_phone", strings.Repeat("1", 51)), "recipient_phone"},
		{"external data a list", ok("external_data", []any{1}), "external_data"},
		{"external data a string", ok("external_data", "x"), "external_data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key, Body: tc.body}).FieldErrors(t, http.StatusUnprocessableEntity)
			if _, ok := errs[tc.field]; !ok {
				t.Fatalf("errors %v do not name %s", errs, tc.field)
			}
		})
	}
	// Another account's channel is forbidden, as its id in a path is
	// (architecture/README.md, "Another account's resources").
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key, Body: ok("shipping_channel_id", other)}); res.Status != http.StatusForbidden {
		t.Fatalf("another account's channel: %d %s", res.Status, res.Body)
	}
	for _, raw := range []string{"", "[]", "{", `{"tracking_number": "SB000000014CZ"} {}`} {
		if res := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key, Body: raw}); res.Status != http.StatusBadRequest {
			t.Fatalf("body %q: %d %s", raw, res.Status, res.Body)
		}
	}
	createParcel(t, env, key, ok())
	errs := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key, Body: ok("tracking_number", "sb000000014cz")}).
		FieldErrors(t, http.StatusUnprocessableEntity)
	if reasons, _ := errs["tracking_number"].([]any); len(reasons) != 1 || !strings.Contains(reasons[0].(string), "already tracked") {
		t.Fatalf("duplicate: %v", errs)
	}
	// Nothing of the refused requests was stored.
	var n int
	if err := env.ModuleDB("tracking").Get(&n, `SELECT count(*) FROM tracking.parcels`); err != nil || n != 1 {
		t.Fatalf("parcels stored: %d %v", n, err)
	}
}

func TestListTrackingParcels(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t)
	key := env.NewKey("acme")
	chA := env.ActiveSandboxChannel(key, "A", nil)
	chB := env.ActiveSandboxChannel(key, "B", nil)
	var made []string
	for i, n := range []string{"SB000000014CZ", "SB100000017CZ", "SB400000015CZ", "SB500000018CZ"} {
		ch := chA
		if i%2 == 1 {
			ch = chB
		}
		made = append(made, createParcel(t, env, key, map[string]any{"tracking_number": n, "shipping_channel_id": ch})["id"].(string))
		clk.Advance(time.Second)
	}
	createParcel(t, env, env.NewKey("other"), map[string]any{"tracking_number": "SB000000014CZ",
		"shipping_channel_id": env.ActiveSandboxChannel(env.NewKey("other"), "Theirs", nil)})
	// The first checks move three parcels: waiting, waiting, not recognized, error.
	for _, id := range made {
		awaitChecks(t, env, key, id, 1)
	}
	var body map[string]any
	apptest.Eventually(t, 5*time.Second, "the list shows the checked statuses", func() bool {
		body = list(t, env, key, "?status=not_recognized")
		return len(ids(body)) == 1 && len(ids(list(t, env, key, "?status=error"))) == 1 &&
			len(ids(list(t, env, key, "?status=waiting_for_shipment"))) == 2
	})
	if ids(body)[0] != made[2] {
		t.Fatalf("not_recognized: %v", ids(body))
	}
	all := list(t, env, key, "?per_page=3")
	meta := all["meta"].(map[string]any)
	if got := ids(all); len(got) != 3 || got[0] != made[3] || got[2] != made[1] || meta["total"] != 4.0 || meta["last_page"] != 2.0 {
		t.Fatalf("page 1 newest first: %v %v", got, meta)
	}
	if links := all["links"].(map[string]any); links["prev"] != nil || !strings.Contains(links["next"].(string), "page=2") {
		t.Fatalf("links: %v", links)
	}
	item := all["data"].([]any)[0].(map[string]any)
	if _, has := item["checks_done"]; has || item["status"] != "error" || item["tracking_number"] != "SB500000018CZ" {
		t.Fatalf("list item: %v", item)
	}
	if got := ids(list(t, env, key, "?shipping_channel_id="+chB)); len(got) != 2 || got[0] != made[3] || got[1] != made[1] {
		t.Fatalf("channel filter: %v", got)
	}
	if got := ids(list(t, env, key, "?search=sb1")); len(got) != 1 || got[0] != made[1] {
		t.Fatalf("search: %v", got)
	}
	if got := ids(list(t, env, key, "?search=SB%25")); len(got) != 0 {
		t.Fatalf("search with a LIKE wildcard: %v", got)
	}
	if got := ids(list(t, env, key, "?status=waiting_for_shipment&shipping_channel_id="+chA)); len(got) != 1 || got[0] != made[0] {
		t.Fatalf("status and channel: %v", got)
	}
	for _, q := range []string{"?status=lost", "?page=0", "?per_page=1000"} {
		env.Do(apptest.Request{Method: http.MethodGet, Path: parcelsPath + q, Key: key}).FieldErrors(t, http.StatusUnprocessableEntity)
	}
}

func TestUpdateAndDeleteTrackingParcel(t *testing.T) {
	t.Parallel()
	env, _, key, ch := sandboxAccount(t)
	tp := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch,
		"recipient_name": "Jana", "recipient_email": "jana@example.test", "external_data": map[string]any{"a": 1}})
	id := tp["id"].(string)
	path := parcelsPath + "/" + id
	awaitChecks(t, env, key, id, 1) // so that the edit is the only later change
	res := env.Do(apptest.Request{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{
		"recipient_name": "Jana Nováková", "recipient_email": "", "external_data": map[string]any{"b": "x"}}})
	if res.Status != http.StatusOK {
		t.Fatalf("put: %d %s", res.Status, res.Body)
	}
	up := res.Data(t)
	if up["recipient_name"] != "Jana Nováková" || up["recipient_email"] != nil || up["external_data"].(map[string]any)["b"] != "x" ||
		up["tracking_number"] != "SB000000014CZ" {
		t.Fatalf("after put: %v", up)
	}
	for field, v := range map[string]any{"tracking_number": "X1", "shipping_channel_id": ch, "max_checks": 3, "check_delay_hours": 2, "status": "delivered"} {
		errs := env.Do(apptest.Request{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{field: v}}).FieldErrors(t, http.StatusUnprocessableEntity)
		if _, ok := errs[field]; !ok {
			t.Fatalf("changing %s: %v", field, errs)
		}
	}
	for _, body := range []map[string]any{{"recipient_email": "nope"}, {"external_data": []any{}}, {"recipient_name": strings.Repeat("x", 256)}} {
		env.Do(apptest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: body}).FieldErrors(t, http.StatusUnprocessableEntity)
	}
	if got := getParcel(t, env, key, id); got["recipient_name"] != "Jana Nováková" {
		t.Fatalf("a refused edit changed the parcel: %v", got)
	}
	var updated int
	if err := env.ModuleDB("tracking").Get(&updated, `SELECT count(*) FROM (SELECT * FROM "watermill_tracking" WHERE metadata->>'name' = 'tracking_parcel.updated') e WHERE payload->'tracking_parcel'->>'id' = $1
		AND payload->'tracking_parcel'->>'recipient_name' = 'Jana Nováková'`, id); err != nil || updated != 1 {
		t.Fatalf("updated events: %d %v", updated, err)
	}
	if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: path, Key: env.NewKey("other")}); res.Status != http.StatusForbidden {
		t.Fatalf("delete by another account: %d", res.Status)
	}
	if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: path, Key: key}); res.Status != http.StatusNoContent || len(res.Body) != 0 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if res := env.Do(apptest.Request{Method: m, Path: path, Key: key}); res.Status != http.StatusNotFound {
			t.Fatalf("%s after delete: %d", m, res.Status)
		}
	}
	apptest.Eventually(t, 5*time.Second, "the list drops the deleted parcel", func() bool {
		return len(ids(list(t, env, key, ""))) == 0
	})
	var deleted string
	if err := env.ModuleDB("tracking").Get(&deleted, `SELECT payload->'tracking_parcel'->>'id' FROM (SELECT * FROM "watermill_tracking" WHERE metadata->>'name' = 'tracking_parcel.deleted') e`); err != nil || deleted != id {
		t.Fatalf("deleted event: %q %v", deleted, err)
	}
}

func TestPermissionsAndUnknownParcels(t *testing.T) {
	t.Parallel()
	env, _, key, ch := sandboxAccount(t)
	id := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch})["id"].(string)
	readOnly := env.NewKey("acme", auth.TrackingRead)
	shipmentsOnly := env.NewKey("acme", auth.ShipmentsRead, auth.ShipmentsWrite)
	checks := []struct {
		key, method, path string
		want              int
	}{
		{readOnly, http.MethodGet, parcelsPath, 200},
		{readOnly, http.MethodGet, parcelsPath + "/" + id, 200},
		{readOnly, http.MethodPost, parcelsPath, 403},
		{readOnly, http.MethodPut, parcelsPath + "/" + id, 403},
		{readOnly, http.MethodDelete, parcelsPath + "/" + id, 403},
		{readOnly, http.MethodPost, parcelsPath + "/" + id + "/refresh", 403},
		{shipmentsOnly, http.MethodGet, parcelsPath, 403},
		{"", http.MethodGet, parcelsPath, 401},
		{env.NewKey("other"), http.MethodGet, parcelsPath + "/" + id, 403},
		{env.NewKey("other"), http.MethodPost, parcelsPath + "/" + id + "/refresh", 403},
		{key, http.MethodGet, parcelsPath + "/tp_01JZZZZZZZZZZZZZZZZZZZZZZZ", 404},
		{key, http.MethodGet, parcelsPath + "/sh_01JZZZZZZZZZZZZZZZZZZZZZZZ", 404},
		{key, http.MethodPost, parcelsPath + "/tp_01JZZZZZZZZZZZZZZZZZZZZZZZ/refresh", 404},
	}
	for _, c := range checks {
		var body any
		if c.method == http.MethodPost || c.method == http.MethodPut {
			body = map[string]any{}
		}
		if res := env.Do(apptest.Request{Method: c.method, Path: c.path, Key: c.key, Body: body}); res.Status != c.want {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, res.Status, c.want, res.Body)
		}
	}
}

// TestScheduledChecksFollowTheJourney moves the clock through a normal
// journey: checks every check_delay_hours, statuses in order, events for
// each change, and no more checks once delivered.
func TestScheduledChecksFollowTheJourney(t *testing.T) {
	t.Parallel()
	env, clk, key, ch := sandboxAccount(t)
	id := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch})["id"].(string)
	steps := []string{"waiting_for_shipment", "in_transit", "in_transit", "in_transit", "out_for_delivery", "delivered"}
	var tp map[string]any
	for i, want := range steps {
		if i > 0 {
			clk.Advance(6 * time.Hour)
		}
		tp = awaitChecks(t, env, key, id, i+1)
		if tp["status"] != want {
			t.Fatalf("check %d at +%dh: %s, want %s", i+1, 6*i, tp["status"], want)
		}
	}
	if tp["next_check_at"] != nil {
		t.Fatalf("a delivered parcel is still scheduled: %v", tp["next_check_at"])
	}
	updates := tp["status_updates"].([]any)
	var codes []string
	for _, u := range updates {
		codes = append(codes, u.(map[string]any)["carrier_code"].(string))
	}
	if strings.Join(codes, ",") != "DLV,OUTDLV,DEPART,HUB,PICKUP,DATA" {
		t.Fatalf("updates newest first: %v", codes)
	}
	clk.Advance(24 * time.Hour)
	awaitCheckerIdle(t, env, key, ch)
	if got := getParcel(t, env, key, id); got["checks_done"] != 6.0 {
		t.Fatalf("checked after the journey ended: %v", got["checks_done"])
	}
	rows, err := env.ModuleDB("tracking").Query(`SELECT payload::text FROM (SELECT * FROM "watermill_tracking" WHERE metadata->>'name' = 'tracking_parcel.status_changed') e ORDER BY "offset"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var chain []string
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var e struct {
			TrackingParcel map[string]any `json:"tracking_parcel"`
		}
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			t.Fatal(err)
		}
		if len(e.TrackingParcel) != 7 || e.TrackingParcel["id"] != id || e.TrackingParcel["tracking_number"] != "SB000000014CZ" ||
			e.TrackingParcel["shipping_channel_id"] != ch || e.TrackingParcel["created_at"] != "2026-11-02T08:00:00Z" {
			t.Fatalf("status_changed payload is not the spec's: %s", raw)
		}
		chain = append(chain, e.TrackingParcel["previous_status"].(string)+">"+e.TrackingParcel["status"].(string))
	}
	if want := "created>waiting_for_shipment,waiting_for_shipment>in_transit,in_transit>out_for_delivery,out_for_delivery>delivered"; strings.Join(chain, ",") != want {
		t.Fatalf("status changes: %v", chain)
	}
}

func TestChecksStopAtMaxChecks(t *testing.T) {
	t.Parallel()
	env, clk, key, ch := sandboxAccount(t)
	id := createParcel(t, env, key, map[string]any{"tracking_number": "SB400000015CZ", "shipping_channel_id": ch,
		"max_checks": 2, "check_delay_hours": 1})["id"].(string)
	awaitChecks(t, env, key, id, 1)
	clk.Advance(time.Hour)
	tp := awaitChecks(t, env, key, id, 2)
	if tp["status"] != "not_recognized" || tp["next_check_at"] != nil || len(tp["status_updates"].([]any)) != 0 {
		t.Fatalf("after max checks: %v", tp)
	}
	// A refresh still checks on demand.
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath + "/" + id + "/refresh", Key: key})
	if res.Status != http.StatusOK || res.Data(t)["checks_done"] != 3.0 {
		t.Fatalf("refresh: %d %s", res.Status, res.Body)
	}
}

func TestRefreshAndFailedChecks(t *testing.T) {
	t.Parallel()
	env, clk, key, ch := sandboxAccount(t)
	id := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch})["id"].(string)
	awaitChecks(t, env, key, id, 1)
	clk.Advance(3 * time.Hour) // not due yet; refresh checks now
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath + "/" + id + "/refresh", Key: key})
	body := res.JSON(t)
	tp := body["data"].(map[string]any)
	if res.Status != http.StatusOK || body["message"] != "Tracking parcel refreshed successfully" || tp["status"] != "in_transit" ||
		tp["checks_done"] != 2.0 || tp["next_check_at"] != "2026-11-02T17:00:00Z" || len(tp["status_updates"].([]any)) != 2 {
		t.Fatalf("refresh: %d %s", res.Status, res.Body)
	}
	// The carrier answers 503 for this number: a failed check, reason kept, status unchanged.
	down := createParcel(t, env, key, map[string]any{"tracking_number": "SB600000015CZ", "shipping_channel_id": ch})["id"].(string)
	failed := awaitChecks(t, env, key, down, 1)
	if failed["status"] != "created" || !strings.Contains(failed["last_check_error"].(string), "503") || failed["next_check_at"] != "2026-11-02T17:00:00Z" {
		t.Fatalf("failed check: %v", failed)
	}
	res = env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath + "/" + down + "/refresh", Key: key})
	if res.Status != http.StatusServiceUnavailable || !strings.Contains(string(res.Body), "503 Service Unavailable") {
		t.Fatalf("refresh of an unavailable carrier: %d %s", res.Status, res.Body)
	}
	if got := getParcel(t, env, key, down); got["checks_done"] != 2.0 || got["status"] != "created" {
		t.Fatalf("after the failed refresh: %v", got)
	}
	var events int
	if err := env.ModuleDB("tracking").Get(&events, `SELECT count(*) FROM (SELECT * FROM "watermill_tracking" WHERE metadata->>'name' = 'tracking_parcel.updated') e WHERE payload->'tracking_parcel'->>'id' = $1`, down); err != nil || events != 0 {
		t.Fatalf("failed checks published %d updated events (%v)", events, err)
	}
}

// TestHangingCarrierDelaysNothingElse: a check that hangs until the carrier
// timeout holds one worker slot; other parcels are checked meanwhile, and
// the timeout is recorded as a failed check.
func TestHangingCarrierDelaysNothingElse(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(start)
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clk), apptest.WithConfig(func(c *config.Config) {
		// Long enough that the healthy parcel, checked behind nothing,
		// is done well before on a loaded machine; the test waits it out.
		c.CarrierTimeout = 5 * time.Second
	}))
	key := env.NewKey("acme")
	ch := env.ActiveSandboxChannel(key, "Sandbox", nil)
	hang := createParcel(t, env, key, map[string]any{"tracking_number": "SB700000013CZ", "shipping_channel_id": ch})["id"].(string)
	apptest.Eventually(t, 5*time.Second, "the hanging check is in flight", func() bool {
		var leased bool
		_ = env.ModuleDB("tracking").Get(&leased, `SELECT lease_until IS NOT NULL FROM tracking.parcels WHERE id = $1`, hang)
		return leased
	})
	ok := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch})["id"].(string)
	awaitChecks(t, env, key, ok, 1)
	// Checked while the hanging check is still in flight: it did not wait
	// behind it.
	var leased bool
	if err := env.ModuleDB("tracking").Get(&leased, `SELECT lease_until IS NOT NULL FROM tracking.parcels WHERE id = $1`, hang); err != nil || !leased {
		t.Fatalf("the hanging check was no longer in flight when the healthy parcel was checked (%v)", err)
	}
	if got := getParcel(t, env, key, hang); got["checks_done"] != 0.0 {
		t.Fatalf("the hanging check finished early: %v", got)
	}
	failed := awaitChecks(t, env, key, hang, 1)
	if failed["status"] != "created" || !strings.Contains(failed["last_check_error"].(string), "did not answer") {
		t.Fatalf("timed-out check: %v", failed)
	}
}

func TestDeletedChannelStopsTracking(t *testing.T) {
	t.Parallel()
	env, clk, key, ch := sandboxAccount(t)
	id := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch})["id"].(string)
	awaitChecks(t, env, key, id, 1)
	if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: "/v1/shipping-channels/" + ch, Key: key}); res.Status != http.StatusOK {
		t.Fatalf("delete channel: %d %s", res.Status, res.Body)
	}
	clk.Advance(6 * time.Hour)
	var tp map[string]any
	apptest.Eventually(t, 10*time.Second, "tracking stops", func() bool {
		tp = getParcel(t, env, key, id)
		return tp["next_check_at"] == nil
	})
	if tp["status"] != "waiting_for_shipment" || !strings.Contains(tp["last_check_error"].(string), "deleted") {
		t.Fatalf("after the channel went: %v", tp)
	}
}

// TestSeveralInstancesCheckEachParcelOnce: two instances run the checker
// on one database; every due parcel is checked exactly once and its carrier
// events are recorded once.
func TestSeveralInstancesCheckEachParcelOnce(t *testing.T) {
	t.Parallel()
	env, _ := manualEnv(t)
	env.StartInstance()
	key := env.NewKey("acme")
	ch := env.ActiveSandboxChannel(key, "Sandbox", nil)
	var made []string
	for i := range 80 {
		number := sandboxNumber(i)
		made = append(made, createParcel(t, env, key, map[string]any{"tracking_number": number, "shipping_channel_id": ch})["id"].(string))
	}
	apptest.Eventually(t, 20*time.Second, "every parcel is checked", func() bool {
		var left int
		if err := env.ModuleDB("tracking").Get(&left, `SELECT count(*) FROM tracking.parcels WHERE (state->>'checks_done')::int = 0`); err != nil {
			t.Fatal(err)
		}
		return left == 0
	})
	awaitCheckerIdle(t, env, key, ch)
	var twice, updates int
	if err := env.ModuleDB("tracking").Get(&twice, `SELECT count(*) FROM tracking.parcels WHERE (state->>'checks_done')::int <> 1`); err != nil || twice != 0 {
		t.Fatalf("%d parcels checked more than once (%v)", twice, err)
	}
	if err := env.ModuleDB("tracking").Get(&updates, `SELECT count(*) FROM tracking.status_updates`); err != nil || updates != len(made) {
		t.Fatalf("%d status updates for %d parcels with one carrier event each (%v)", updates, len(made), err)
	}
}

// sandboxNumber is the i-th normal-journey sandbox tracking number.
func sandboxNumber(i int) string {
	return sandbox.S10("SB", "00"+strconv.Itoa(100000+i), "CZ")
}
