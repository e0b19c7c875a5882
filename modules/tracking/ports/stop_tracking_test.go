package ports_test

import (
	"net/http"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

// Deleting a channel sends tracking the command to stop its parcels: they
// stop at once, with the reason shown and an updated event each, while
// another channel's parcel goes on. No check runs in this test (the checker
// is off), so nothing but the command can have stopped them.
func TestDeletingAChannelStopsItsParcels(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.TrackingConcurrency = 0 }))
	key := env.NewKey("acme")
	gone, kept := env.ActiveSandboxChannel(key, "Gone", nil), env.ActiveSandboxChannel(key, "Kept", nil)
	a := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000101CZ", "shipping_channel_id": gone})["id"].(string)
	b := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000102CZ", "shipping_channel_id": gone})["id"].(string)
	other := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000103CZ", "shipping_channel_id": kept})["id"].(string)

	if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: "/v1/shipping-channels/" + gone, Key: key}); res.Status != http.StatusOK {
		t.Fatalf("delete channel: %d %s", res.Status, res.Body)
	}
	for _, id := range []string{a, b} {
		apptest.Eventually(t, 10*time.Second, id+" stopped", func() bool { return getParcel(t, env, key, id)["next_check_at"] == nil })
		tp := getParcel(t, env, key, id)
		if tp["last_check_error"] != "the shipping channel was deleted; tracking stopped" || tp["checks_done"] != float64(0) {
			t.Errorf("%s: last_check_error %v, checks_done %v", id, tp["last_check_error"], tp["checks_done"])
		}
	}
	if tp := getParcel(t, env, key, other); tp["next_check_at"] == nil {
		t.Errorf("the other channel's parcel stopped too: %v", tp)
	}
	var updated int
	if err := env.ModuleDB("tracking").Get(&updated, `SELECT count(*) FROM "watermill_tracking" WHERE metadata->>'name' = 'tracking_parcel.updated'
		AND payload->'tracking_parcel'->>'shipping_channel_id' = $1`, gone); err != nil || updated != 2 {
		t.Errorf("updated events of the stopped parcels: %d, %v; want 2", updated, err)
	}
}
