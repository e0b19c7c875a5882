package ports_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/apptest"
)

// A merchant's day on the sandbox: the carrier's windows for tomorrow, a
// pickup of two shipments ordered (address and contact from the shipments,
// counts and weight theirs), listed, refused a second time for the date;
// every created shipment handed over on one manifest whose document scans
// back, every tracking number in parcel order; no shipment on two
// manifests; the pickup cancelled, once.
func TestAShippingDayOnTheSandbox(t *testing.T) {
	t.Parallel()
	env, clk, key, channel := dispatchEnv(t)
	// A second apart, so that oldest first is their order.
	first, firstNumbers := createdShipment(t, env, key, channel, "ORDER-1", parcel(1.5), parcel(2))
	clk.Advance(time.Second)
	second, secondNumbers := createdShipment(t, env, key, channel, "ORDER-2", parcel(0.5))
	clk.Advance(time.Second)
	third, thirdNumbers := createdShipment(t, env, key, channel, "ORDER-3", parcel(3))

	avail := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels/" + channel + "/pickup-availability?date=2026-12-01", Key: key})
	windows := avail.Data(t)
	if avail.Status != http.StatusOK || windows["source"] != "carrier" || len(windows["windows"].([]any)) != 2 {
		t.Fatalf("availability: %d %s", avail.Status, avail.Body)
	}

	res := env.Do(apptest.Request{Method: http.MethodPost, Path: pickupsPath, Key: key, Body: map[string]any{
		"shipping_channel_id": channel, "date": "2026-12-01", "ready_from": "09:00", "ready_until": "12:00",
		"shipment_ids": []string{first, second}, "note": "Gate B"}})
	if res.Status != http.StatusCreated {
		t.Fatalf("order pickup: %d %s", res.Status, res.Body)
	}
	p := res.Data(t)
	address := p["address"].(map[string]any)
	if p["status"] != "scheduled" || !strings.HasPrefix(p["confirmation_number"].(string), "SBC-20261201-") ||
		p["parcel_count"].(float64) != 3 || p["total_weight_kg"].(float64) != 4 || address["street_name"] != "Skladová" ||
		p["contact"].(map[string]any)["company_name"] != "Acme s.r.o." || p["confirmed"].(map[string]any)["ready_from"] != "09:00" {
		t.Fatalf("the pickup: %s", res.Body)
	}
	if !strings.HasSuffix(res.Header.Get("Location"), pickupsPath+"/"+p["id"].(string)) {
		t.Errorf("Location %q", res.Header.Get("Location"))
	}
	again := env.Do(apptest.Request{Method: http.MethodPost, Path: pickupsPath, Key: key, Body: map[string]any{
		"shipping_channel_id": channel, "date": "2026-12-01", "ready_from": "12:00", "ready_until": "17:00", "parcel_count": 1, "total_weight_kg": 1}})
	if errs := again.FieldErrors(t, http.StatusUnprocessableEntity); errs["date"] == nil {
		t.Errorf("a second pickup of the date: %s", again.Body)
	}
	apptest.Eventually(t, 10*time.Second, "the pickup listed", func() bool {
		list := env.Do(apptest.Request{Method: http.MethodGet, Path: pickupsPath + "?date=2026-12-01&status=scheduled&shipping_channel_id=" + channel, Key: key})
		data, _ := list.JSON(t)["data"].([]any)
		return list.Status == http.StatusOK && len(data) == 1 && data[0].(map[string]any)["id"] == p["id"]
	})

	res = env.Do(apptest.Request{Method: http.MethodPost, Path: manifestsPath, Key: key, Body: map[string]any{"shipping_channel_id": channel}})
	if res.Status != http.StatusCreated {
		t.Fatalf("manifest: %d %s", res.Status, res.Body)
	}
	m := res.Data(t)
	if m["status"] != "created" || m["document"] != "shipd" || m["shipment_count"].(float64) != 3 || m["parcel_count"].(float64) != 4 ||
		!slices.Equal(toStrings(m["shipment_ids"]), []string{first, second, third}) {
		t.Fatalf("the manifest: %s", res.Body)
	}
	doc := env.Do(apptest.Request{Method: http.MethodGet, Path: manifestsPath + "/" + m["id"].(string) + "/document", Key: key})
	if doc.Status != http.StatusOK || doc.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(doc.Body), "%PDF-") {
		t.Fatalf("document: %d %q", doc.Status, doc.Header.Get("Content-Type"))
	}
	want := slices.Concat(firstNumbers, secondNumbers, thirdNumbers)
	scanned := barcodes(t, doc.Body)
	if !slices.Equal(slices.Sorted(slices.Values(scanned)), slices.Sorted(slices.Values(want))) || !printedInOrder(t, doc.Body, want) {
		t.Errorf("the document scans %q; want %q, printed in that order", scanned, want)
	}
	onTwo := env.Do(apptest.Request{Method: http.MethodPost, Path: manifestsPath, Key: key, Body: map[string]any{
		"shipping_channel_id": channel, "shipment_ids": []string{second}}})
	if errs := onTwo.FieldErrors(t, http.StatusUnprocessableEntity); errs["shipment_ids.0"] == nil {
		t.Errorf("a shipment on two manifests: %s", onTwo.Body)
	}
	none := env.Do(apptest.Request{Method: http.MethodPost, Path: manifestsPath, Key: key, Body: map[string]any{"shipping_channel_id": channel}})
	if errs := none.FieldErrors(t, http.StatusUnprocessableEntity); errs["shipment_ids"] == nil {
		t.Errorf("a manifest of nothing left: %s", none.Body)
	}
	apptest.Eventually(t, 10*time.Second, "the manifest listed", func() bool {
		list := env.Do(apptest.Request{Method: http.MethodGet, Path: manifestsPath + "?date=2026-11-30", Key: key})
		data, _ := list.JSON(t)["data"].([]any)
		return len(data) == 1
	})

	cancel := env.Do(apptest.Request{Method: http.MethodDelete, Path: pickupsPath + "/" + p["id"].(string), Key: key})
	if cancel.Status != http.StatusOK || cancel.Data(t)["status"] != "cancelled" || cancel.Data(t)["cancelled_at"] == nil {
		t.Fatalf("cancel: %d %s", cancel.Status, cancel.Body)
	}
	if twice := env.Do(apptest.Request{Method: http.MethodDelete, Path: pickupsPath + "/" + p["id"].(string), Key: key}); twice.Status != http.StatusConflict {
		t.Errorf("a second cancel: %d %s", twice.Status, twice.Body)
	}
	// Cancelled, the pickup lets its date and shipments go.
	res = env.Do(apptest.Request{Method: http.MethodPost, Path: pickupsPath, Key: key, Body: map[string]any{
		"shipping_channel_id": channel, "date": "2026-12-01", "ready_from": "12:00", "ready_until": "17:00", "shipment_ids": []string{first}}})
	if res.Status != http.StatusCreated {
		t.Errorf("a pickup of the date after the cancel: %d %s", res.Status, res.Body)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
