package ports_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"shipd/platform/apptest"
)

// receiver keeps every webhook delivery's type and data, each checked
// against the OpenAPI document's webhooks.
type receiver struct {
	mu   sync.Mutex
	seen map[string][]map[string]any
}

func newReceiver(t *testing.T) (*receiver, string) {
	r := &receiver{seen: map[string][]map[string]any{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		apptest.CheckDelivery(t, req.Header, body)
		var e struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &e)
		r.mu.Lock()
		r.seen[e.Type] = append(r.seen[e.Type], e.Data)
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func (r *receiver) got(event string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[event]
}

// A pickup and a manifest reach a subscriber as pickup.created,
// manifest.created and pickup.cancelled, in the document's shapes; the
// shipments show the pickup that collects them and the manifest they were
// handed over on, and a shipment on a manifest can no longer be edited.
func TestPickupsAndManifestsReachSubscribersAndShipments(t *testing.T) {
	t.Parallel()
	env, _, key, channel := dispatchEnv(t)
	rc, url := newReceiver(t)
	sub := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key, Body: map[string]any{
		"name": "dispatch", "url": url, "events": []string{"pickup.created", "pickup.cancelled", "manifest.created"}}})
	if sub.Status != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", sub.Status, sub.Body)
	}
	shipment, _ := createdShipment(t, env, key, channel, "ORDER-1", parcel(2))
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: pickupsPath, Key: key, Body: map[string]any{
		"shipping_channel_id": channel, "date": "2026-12-01", "ready_from": "12:00", "ready_until": "17:00", "shipment_ids": []string{shipment}}})
	if res.Status != http.StatusCreated {
		t.Fatalf("pickup: %d %s", res.Status, res.Body)
	}
	pickup := res.Data(t)["id"].(string)
	res = env.Do(apptest.Request{Method: http.MethodPost, Path: manifestsPath, Key: key, Body: map[string]any{"shipping_channel_id": channel}})
	if res.Status != http.StatusCreated {
		t.Fatalf("manifest: %d %s", res.Status, res.Body)
	}
	manifest := res.Data(t)["id"].(string)
	apptest.Eventually(t, 15*time.Second, "the shipment shows its pickup and manifest", func() bool {
		sh := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipment, Key: key}).Data(t)
		return sh["pickup_id"] == pickup && sh["manifest_id"] == manifest
	})
	edit := env.Do(apptest.Request{Method: http.MethodPatch, Path: "/v1/shipments/" + shipment, Key: key, Body: map[string]any{"reference_number": "LATE"}})
	if edit.Status != http.StatusConflict {
		t.Errorf("an edit of a shipment on a manifest: %d %s", edit.Status, edit.Body)
	}
	if c := env.Do(apptest.Request{Method: http.MethodDelete, Path: pickupsPath + "/" + pickup, Key: key}); c.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", c.Status, c.Body)
	}
	apptest.Eventually(t, 15*time.Second, "the shipment on no pickup", func() bool {
		sh := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipment, Key: key}).Data(t)
		return sh["pickup_id"] == nil && sh["manifest_id"] == manifest
	})
	apptest.Eventually(t, 15*time.Second, "the three deliveries", func() bool {
		return len(rc.got("pickup.created")) == 1 && len(rc.got("manifest.created")) == 1 && len(rc.got("pickup.cancelled")) == 1
	})
	if p := rc.got("pickup.created")[0]["pickup"].(map[string]any); p["id"] != pickup || p["status"] != "scheduled" {
		t.Errorf("pickup.created: %v", p)
	}
	if m := rc.got("manifest.created")[0]["manifest"].(map[string]any); m["id"] != manifest || m["shipment_count"] != float64(1) {
		t.Errorf("manifest.created: %v", m)
	}
	if p := rc.got("pickup.cancelled")[0]["pickup"].(map[string]any); p["status"] != "cancelled" {
		t.Errorf("pickup.cancelled: %v", p)
	}
}
