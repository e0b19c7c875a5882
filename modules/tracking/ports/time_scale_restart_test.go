package ports_test

import (
	"net/http"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
)

// The README's walk-through: a shipment booked while the sandbox runs on
// real time has its parcels' next checks six real hours away; restarted
// with a SANDBOX_TIME_SCALE, the service checks them on the sandbox's clock
// (ADR 0017), and the shipment is delivered, its cash on delivery
// collected, within seconds, not hours.
func TestRestartAtATimeScaleBringsChecksForward(t *testing.T) {
	apptest.SkipInSplit(t, "restarts the one instance with another time scale")
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	ch := env.ActiveSandboxChannel(key, "Sandbox", nil)
	body := shipmentBody(ch, "ORDER-1001", 2)
	body["cash_on_delivery_amount"], body["cash_on_delivery_currency"] = 125.5, "CZK"
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: body})
	if res.Status != http.StatusCreated {
		t.Fatalf("creating the shipment: %d %s", res.Status, res.Body)
	}
	id := res.Data(t)["id"].(string)
	var parcels []any
	apptest.Eventually(t, 20*time.Second, "the shipment's two parcels checked once on real time", func() bool {
		parcels, _ = env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key}).Data(t)["tracking_parcel_ids"].([]any)
		if len(parcels) != 2 {
			return false
		}
		for _, tp := range parcels {
			p := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels/" + tp.(string), Key: key}).Data(t)
			if p["checks_done"] != float64(1) {
				return false
			}
			next, _ := time.Parse(time.RFC3339, p["next_check_at"].(string))
			if time.Until(next) < 5*time.Hour {
				t.Fatalf("%s: next check at %v, want six hours on", tp, next)
			}
		}
		return true
	})
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}

	// A sandbox hour every 0.1 s: the 26-hour journey is over in 2.6 s, and
	// checks come every 0.6 s.
	env.Config.SandboxTimeScale = 36000
	restarted := env.StartInstance()
	apptest.Eventually(t, 20*time.Second, "the shipment delivered and its cash on delivery collected after the restart", func() bool {
		sh := restarted.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key}).Data(t)
		cod, _ := sh["cash_on_delivery"].(map[string]any)
		return sh["status"] == "delivered" && cod != nil && cod["collected_at"] != nil
	})
}
