package ports_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/clock"
	"shipd/platform/config"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func manualEnv(t *testing.T, opts ...apptest.Option) (*apptest.Env, *clock.Manual) {
	clk := clock.NewManual(t0)
	return apptest.Start(t, shipd.InitializeApp, append([]apptest.Option{apptest.WithClock(clk)}, opts...)...), clk
}

// hexHMAC and standardSignature recompute the signatures the way a receiver
// would, from the raw bytes received, independently of shipd's code.
func hexHMAC(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func standardSignature(secret, id, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(id + "." + ts + "." + string(body)))
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func TestDeliverySignedAndLogged(t *testing.T) {
	t.Parallel()
	env, _ := manualEnv(t)
	key := env.NewKey("acme")
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("thanks"))
	})
	const secret = "s3cret-s3cret"
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL + "/hook?source=shipd", "events": []string{"shipping_channel.created"}, "secret": secret})
	other := newReceiver(t, answering(200))
	subscribe(t, env, env.NewKey("globex"), map[string]any{"name": "n", "url": other.URL, "events": []string{"shipping_channel.created"}})
	chID := newChannel(t, env, key, "Main")

	got := rc.await(t, 1)[0]
	h := got.Header
	if h.Get("X-Service-Signature") != hexHMAC(secret, got.Body) {
		t.Fatalf("X-Service-Signature %q does not verify", h.Get("X-Service-Signature"))
	}
	ts := h.Get("X-Service-Timestamp")
	if ts != strconv.FormatInt(t0.Unix(), 10) || h.Get("Webhook-Timestamp") != ts {
		t.Fatalf("timestamps %q %q", ts, h.Get("Webhook-Timestamp"))
	}
	var body struct {
		ID        string                     `json:"id"`
		CreatedAt string                     `json:"created_at"`
		Type      string                     `json:"type"`
		Data      map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if h.Get("Webhook-Id") != body.ID || h.Get("Webhook-Signature") != standardSignature(secret, body.ID, ts, got.Body) {
		t.Fatalf("Standard Webhooks headers %v do not verify", h)
	}
	if h.Get("Content-Type") != "application/json" || h.Get("X-Service-Event") != "shipping_channel.created" ||
		!strings.HasPrefix(h.Get("User-Agent"), "shipd-webhooks/") || !strings.HasPrefix(body.ID, "evt_") ||
		body.Type != "shipping_channel.created" || body.CreatedAt != "2026-11-21T09:00:00Z" || len(body.Data) != 1 {
		t.Fatalf("delivery %v %s", h, got.Body)
	}
	var ch map[string]any
	_ = json.Unmarshal(body.Data["shipping_channel"], &ch)
	if ch["id"] != chID || ch["status"] != "draft" || strings.Contains(string(got.Body), `"s"`) {
		t.Fatalf("channel in the body (secrets must be masked): %s", got.Body)
	}

	logs := awaitLogs(t, env, key, sub["id"].(string), 1)
	l := logs[0]
	deliveryID := h.Get("X-Service-Delivery")
	if l["id"] != deliveryID || !strings.HasPrefix(deliveryID, "whl_") || l["webhook_subscription_id"] != sub["id"] || l["event_id"] != body.ID ||
		l["event_type"] != "shipping_channel.created" || l["status"] != "success" || l["url"] != rc.URL+"/hook?source=shipd" ||
		l["request_body"] != string(got.Body) || l["response_status"] != 202.0 || l["response_body"] != "thanks" ||
		l["error_message"] != nil || l["attempt"] != 1.0 || l["next_retry_at"] != nil || l["created_at"] != "2026-11-21T09:00:00Z" {
		t.Fatalf("log: %v", l)
	}
	headers := l["request_headers"].(map[string]any)
	if headers["X-Service-Signature"] != h.Get("X-Service-Signature") || headers["Webhook-Id"] != body.ID {
		t.Fatalf("logged headers %v", headers)
	}
	one := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath + "/" + sub["id"].(string) + "/logs/" + deliveryID, Key: env.NewKey("acme")})
	if one.Status != http.StatusOK || one.Data(t)["request_body"] != string(got.Body) {
		t.Fatalf("log get: %d %s", one.Status, one.Body)
	}
	// The other account's receiver got only its own account's event: none.
	other.quiet(t, env, 0)
	if len(rc.requests()) != 1 {
		t.Fatalf("%d deliveries of one event", len(rc.requests()))
	}
}

func TestEveryPublicEventIsDelivered(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.SandboxTimeScale = 72000 }))
	key := env.NewKey("acme")
	rc := newReceiver(t, answering(200))
	all := []string{"shipping_channel.created", "shipping_channel.updated", "shipping_channel.deleted", "shipping_channel.validated",
		"shipping_channel.status_changed", "shipment.created", "shipment.updated", "shipment.deleted", "shipment.status_changed",
		"tracking_parcel.created", "tracking_parcel.updated", "tracking_parcel.deleted", "tracking_parcel.status_changed"}
	subscribe(t, env, key, map[string]any{"name": "all", "url": rc.URL, "events": all})

	ch := env.ActiveSandboxChannel(key, "Main", nil)
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: shipment(ch, "ORDER-1")})
	if res.Status != http.StatusCreated {
		t.Fatalf("shipment: %d %s", res.Status, res.Body)
	}
	shipmentID := res.Data(t)["id"].(string)
	seen := map[string]map[string]any{}
	apptest.Eventually(t, 20*time.Second, "every event type delivered", func() bool {
		for _, r := range rc.requests() {
			var b map[string]any
			_ = json.Unmarshal(r.Body, &b)
			seen[b["type"].(string)] = b["data"].(map[string]any)
		}
		// The shipment delivered (status_changed to delivered); then edit
		// and delete what is left to see the remaining types.
		return seen["tracking_parcel.status_changed"] != nil && seen["shipment.status_changed"] != nil &&
			seen["shipment.created"] != nil && seen["tracking_parcel.updated"] != nil
	})
	tp := seen["tracking_parcel.status_changed"]["tracking_parcel"].(map[string]any)
	if len(tp) != 7 {
		t.Fatalf("tracking_parcel.status_changed data: %v", tp)
	}
	for _, f := range []string{"id", "tracking_number", "shipping_channel_id", "status", "previous_status", "created_at", "updated_at"} {
		if _, ok := tp[f]; !ok {
			t.Fatalf("status_changed lacks %s: %v", f, tp)
		}
	}
	if sc := seen["shipment.status_changed"]; sc["shipment"].(map[string]any)["id"] != shipmentID || sc["previous_status"] == nil {
		t.Fatalf("shipment.status_changed data: %v", sc)
	}
	tpID := tp["id"].(string)
	env.Do(apptest.Request{Method: http.MethodPatch, Path: "/v1/shipments/" + shipmentID, Key: key, Body: map[string]any{"reference_number": "ORDER-1b"}})
	refused := shipment(ch, "REFUSED-1") // the sandbox refuses postal code 99999
	refused["destination_address"].(map[string]any)["postal_code"] = "99999"
	failed := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: refused})
	env.Do(apptest.Request{Method: http.MethodPut, Path: "/v1/shipping-channels/" + ch, Key: key, Body: map[string]any{"name": "Renamed"}})
	apptest.Eventually(t, 20*time.Second, "the refused shipment", func() bool {
		r := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + failed.Data(t)["id"].(string), Key: key})
		return r.Data(t)["is_successful"] == false
	})
	if r := env.Do(apptest.Request{Method: http.MethodDelete, Path: "/v1/shipments/" + failed.Data(t)["id"].(string), Key: key}); r.Status != http.StatusNoContent {
		t.Fatalf("delete shipment: %d %s", r.Status, r.Body)
	}
	other := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels", Key: key, Body: map[string]any{"tracking_number": "SB300000010CZ", "shipping_channel_id": ch}})
	env.Do(apptest.Request{Method: http.MethodDelete, Path: "/v1/tracking-parcels/" + other.Data(t)["id"].(string), Key: key})
	scratch := newChannel(t, env, key, "Scratch")
	env.Do(apptest.Request{Method: http.MethodDelete, Path: "/v1/shipping-channels/" + scratch, Key: key})
	apptest.Eventually(t, 20*time.Second, "all 13 event types", func() bool {
		for _, r := range rc.requests() {
			var b map[string]any
			_ = json.Unmarshal(r.Body, &b)
			seen[b["type"].(string)] = b["data"].(map[string]any)
		}
		return len(seen) == len(all)
	})
	resource := map[string]string{"shipping_channel": "shipping_channel.", "shipment": "shipment.", "tracking_parcel": "tracking_parcel."}
	for typ, data := range seen {
		for name, prefix := range resource {
			if strings.HasPrefix(typ, prefix) && data[name] == nil {
				t.Errorf("%s data lacks %s: %v", typ, name, data)
			}
		}
	}
	if seen["tracking_parcel.updated"]["tracking_parcel"].(map[string]any)["id"] == nil || tpID == "" {
		t.Fatal("tracking parcel record missing")
	}
}

func shipment(channel, reference string) map[string]any {
	contact := map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"}
	address := func() map[string]any {
		return map[string]any{"street_name": "Dlouhá", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"}
	}
	return map[string]any{"shipping_channel_id": channel, "reference_number": reference, "label_format": "pdf", "enable_tracking": true,
		"sender_contact": contact, "recipient_contact": contact, "origin_address": address(), "destination_address": address(),
		"parcels": []any{map[string]any{"weight_amount": 1.5, "length_dimension": 20, "width_dimension": 10, "height_dimension": 5}}}
}
