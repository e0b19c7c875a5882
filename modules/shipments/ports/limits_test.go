package ports_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/carrier"
	"shipd/platform/config"
)

// publishedLimits reads max_parcels_per_shipment of every provider, and of
// every product that has its own, from GET /v1/providers.
func publishedLimits(t *testing.T, env *apptest.Env, key string) (providers map[string]int, products map[string]int) {
	t.Helper()
	var body struct {
		Data []struct {
			Code         string `json:"code"`
			MaxParcels   int    `json:"max_parcels_per_shipment"`
			ProductTypes []struct {
				Code       string `json:"code"`
				MaxParcels int    `json:"max_parcels_per_shipment"`
			} `json:"product_types"`
		} `json:"data"`
	}
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/providers", Key: key})
	if res.Status != http.StatusOK {
		t.Fatalf("providers: %d %s", res.Status, res.Body)
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatal(err)
	}
	providers, products = map[string]int{}, map[string]int{}
	for _, p := range body.Data {
		providers[p.Code] = p.MaxParcels
		for _, pt := range p.ProductTypes {
			if pt.MaxParcels != 0 {
				products[p.Code+"/"+pt.Code] = pt.MaxParcels
			}
		}
	}
	return providers, products
}

// vendorChannel creates a channel of a real carrier and marks it active as
// a successful validation would: tests cannot reach the vendor.
func vendorChannel(t *testing.T, env *apptest.Env, key, name, provider string, settings map[string]any) string {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key,
		Body: map[string]any{"name": name, "provider": provider, "settings": settings}})
	if res.Status != http.StatusCreated {
		t.Fatalf("creating a %s channel: %d %s", provider, res.Status, res.Body)
	}
	id := res.Data(t)["id"].(string)
	if _, err := env.ModuleDB("channels").Exec(`UPDATE channels.channels SET status = 'active' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return id
}

func parcels(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = parcel(1)
	}
	return out
}

// Each provider's parcel limit is one rule: the number GET /v1/providers
// publishes is the one enforced, a shipment at it accepted and one parcel
// more refused on parcels with that number in the reason. The booking worker
// polls once an hour here, so no accepted shipment is sent to a vendor.
func TestParcelLimitPerProvider(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.WorkerPollInterval = time.Hour }))
	key := env.NewKey("acme")
	// The numbers themselves are the channels module's test of the endpoint.
	providers, products := publishedLimits(t, env, key)

	channels := []struct {
		name, limitOf string
		limit         int
		product, id   string
	}{
		{"sandbox", "provider sandbox", providers["sandbox"], "STANDARD", env.ActiveSandboxChannel(key, "Sandbox", nil)},
		{"ppl", "provider ppl", providers["ppl"], "BUSS", vendorChannel(t, env, key, "PPL", "ppl", map[string]any{"clientId": "c", "clientSecret": "s"})},
		{"dhl_parcel_de", "provider dhl_parcel_de", providers["dhl_parcel_de"], "V01PAK", vendorChannel(t, env, key, "DHL", "dhl_parcel_de", map[string]any{
			"clientId": "c", "clientSecret": "s", "username": "u", "password": "p", "billingNumber": "33333333330102"})},
		{"gls", "provider gls", providers["gls"], "PARCEL", vendorChannel(t, env, key, "GLS", "gls", map[string]any{"clientId": "c", "clientSecret": "s", "contactId": "276"})},
		// Without a productType setting InPost books courier standard, its
		// published default, not its first product (the locker).
		{"inpost courier", "", providers["inpost"], "inpost_courier_standard", vendorChannel(t, env, key, "InPost courier", "inpost", map[string]any{"apiToken": "t", "organizationId": "1"})},
		{"inpost locker", "product inpost_locker_standard of provider inpost", products["inpost/inpost_locker_standard"],
			"inpost_locker_standard", vendorChannel(t, env, key, "InPost locker", "inpost", map[string]any{"apiToken": "t", "organizationId": "1",
				"productType": "inpost_locker_standard", "targetPoint": "KRA010"})},
	}
	for _, ch := range channels {
		t.Run(ch.name, func(t *testing.T) {
			sh := create(t, env, key, shipmentBody(ch.id, parcels(ch.limit)...))
			if n := len(sh["parcels"].([]any)); n != ch.limit || sh["product_type"] != ch.product {
				t.Errorf("accepted with %d parcels as %v, want %d as %s", n, sh["product_type"], ch.limit, ch.product)
			}
			res := env.Do(apptest.Request{Method: http.MethodPost, Path: shipmentsPath, Key: key,
				Body: shipmentBody(ch.id, parcels(ch.limit+1)...)})
			errs := fieldErrors(t, res, http.StatusUnprocessableEntity)
			reason := strings.Join(reasons(errs["parcels"]), "; ")
			if len(errs) != 1 || !strings.Contains(reason, " "+strconv.Itoa(ch.limit)+" ") || !strings.Contains(reason, ch.limitOf) {
				t.Errorf("%d parcels: errors %v, want one on parcels naming %q and %d", ch.limit+1, errs, ch.limitOf, ch.limit)
			}
		})
	}
	var n int
	if err := env.ModuleDB("shipments").Get(&n, `SELECT count(*) FROM shipments.shipments`); err != nil || n != len(channels) {
		t.Errorf("%d shipments stored (%v), want the %d at their limits", n, err, len(channels))
	}
}

// More parcels than any provider takes are refused before the channel is
// looked at, on parcels, naming the bound the OpenAPI document states.
func TestParcelsBeyondEveryProvider(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: shipmentsPath, Key: key,
		Body: shipmentBody("ch_01JD0000000000000000000000", parcels(carrier.MaxParcelsPerShipment+1)...)})
	errs := fieldErrors(t, res, http.StatusUnprocessableEntity)
	if reason := strings.Join(reasons(errs["parcels"]), "; "); !strings.Contains(reason, "at most 1000 items") {
		t.Errorf("errors %v, want parcels refused at 1000", errs)
	}
}

func reasons(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, r := range list {
		s, _ := r.(string)
		out = append(out, s)
	}
	return out
}
