package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"shipd"
	"shipd/platform/apidoc"
	"shipd/platform/apptest"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/server"
)

type delivery struct {
	header http.Header
	body   []byte
}

func eventTypes(doc *openapi3.T) []string {
	var out []string
	for name := range doc.Webhooks {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// startKeepingApp starts the app as apptest does and keeps the *server.App.
func startKeepingApp(t *testing.T) (*apptest.Env, *server.App) {
	var app *server.App
	env := apptest.Start(t, func(ctx context.Context, cfg config.Config, clk clock.Clock) (*server.App, func(), error) {
		a, cleanup, err := shipd.InitializeApp(ctx, cfg, clk)
		if app == nil {
			app = a
		}
		return a, cleanup, err
	})
	return env, app
}

func loadDocument(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(apidoc.Document())
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	return doc
}

// The document's operations are exactly the routes served under /v1: a route
// added without documenting it (or documented and gone) fails here. Routes
// outside /v1 (operator endpoints, /dashboard, the /docs reference page and
// its assets) are not part of the API and are left out by the prefix.
func TestOpenAPIDocumentHasEveryRoute(t *testing.T) {
	t.Parallel()
	_, app := startKeepingApp(t)
	doc := loadDocument(t)
	prefix := doc.Servers[0].URL // "/v1"
	var served, documented []string
	for _, r := range app.Routes() {
		if strings.HasPrefix(r.Path, prefix+"/") {
			served = append(served, r.Method+" "+r.Path)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+prefix+path)
		}
	}
	for _, s := range served {
		if !slices.Contains(documented, s) {
			t.Errorf("%s is served but not in platform/apidoc/openapi.json", s)
		}
	}
	for _, d := range documented {
		if !slices.Contains(served, d) {
			t.Errorf("%s is documented but not served", d)
		}
	}
	if len(served) < 30 {
		t.Errorf("only %d routes under %s: %v", len(served), prefix, served)
	}
}

func TestOpenAPIDocumentServedWithoutKey(t *testing.T) {
	t.Parallel()
	env, _ := startKeepingApp(t)
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/openapi.json"})
	if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /v1/openapi.json: %d %q %s", res.Status, res.Header.Get("Content-Type"), res.Body)
	}
	if !json.Valid(res.Body) || !bytes.Equal(res.Body, apidoc.Document()) {
		t.Error("the answer is not the embedded document")
	}
}

// A few real answers match their schemas in the document.
func TestRealAnswersMatchTheDocument(t *testing.T) {
	t.Parallel()
	openapi3filter.RegisterBodyDecoder("application/pdf", openapi3filter.FileBodyDecoder)
	env, _ := startKeepingApp(t)
	doc := loadDocument(t)
	key := env.NewKey("acme")
	check := func(req apptest.Request, path string) *apptest.Response {
		t.Helper()
		res := env.Do(req)
		method := req.Method
		item := doc.Paths.Value(path)
		if item == nil || item.GetOperation(method) == nil {
			t.Fatalf("no %s %s in the document", method, path)
		}
		httpReq := httptest.NewRequest(method, req.Path, nil)
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: httpReq,
				Route: &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: item.GetOperation(method)}},
			Status: res.Status, Header: res.Header, Body: io.NopCloser(bytes.NewReader(res.Body)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		}
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			t.Errorf("%s %s answered %d, not as documented: %v\n%s", method, req.Path, res.Status, err, res.Body)
		}
		return res
	}

	var mu sync.Mutex
	var deliveries []delivery
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		deliveries = append(deliveries, delivery{r.Header.Clone(), body})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	sub := check(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key,
		Body: map[string]any{"name": "all", "url": receiver.URL, "events": eventTypes(doc)}}, "/webhook-subscriptions")
	subID, _ := sub.JSON(t)["data"].(map[string]any)["id"].(string)

	created := check(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key, Body: channel("Main")}, "/shipping-channels")
	id, _ := created.Data(t)["id"].(string)
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels/" + id, Key: key}, "/shipping-channels/{id}")
	check(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels/" + id + "/validate", Key: key}, "/shipping-channels/{id}/validate")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels?per_page=1", Key: key}, "/shipping-channels")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/providers", Key: key}, "/providers")

	active := env.ActiveSandboxChannel(key, "Sandbox", nil)
	shipment := check(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: shipment(active)}, "/shipments")
	shipmentID, _ := shipment.Data(t)["id"].(string)
	apptest.Eventually(t, 15*time.Second, "the shipment booked", func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipmentID, Key: key})
		return res.Data(t)["has_label"] == true
	})
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipmentID, Key: key}, "/shipments/{id}")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipmentID + "/label", Key: key}, "/shipments/{id}/label")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments?page=1&per_page=5", Key: key}, "/shipments")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipmentID + "/label/file", Key: key}, "/shipments/{id}/label/file")
	// The spec's download address answers that operation's file.
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipmentID + "/label?download=true", Key: key}, "/shipments/{id}/label/file")
	booked := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + shipmentID, Key: key}).Data(t)
	number, _ := booked["parcels"].([]any)[0].(map[string]any)["tracking_number"].(string)
	check(apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels", Key: key,
		Body: map[string]any{"tracking_number": number, "shipping_channel_id": active, "recipient_name": "Jana"}}, "/tracking-parcels")
	apptest.Eventually(t, 15*time.Second, "the tracking parcel listed", func() bool {
		items, _ := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels", Key: key}).JSON(t)["data"].([]any)
		return len(items) > 0
	})
	list := check(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels", Key: key}, "/tracking-parcels")
	if items, _ := list.JSON(t)["data"].([]any); len(items) > 0 {
		parcelID, _ := items[0].(map[string]any)["id"].(string)
		check(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels/" + parcelID, Key: key}, "/tracking-parcels/{id}")
		check(apptest.Request{Method: http.MethodPost, Path: "/v1/tracking-parcels/" + parcelID + "/refresh", Key: key}, "/tracking-parcels/{id}/refresh")
		check(apptest.Request{Method: http.MethodPatch, Path: "/v1/tracking-parcels/" + parcelID, Key: key, Body: map[string]any{"status": "delivered"}}, "/tracking-parcels/{id}")
		check(apptest.Request{Method: http.MethodDelete, Path: "/v1/tracking-parcels/" + parcelID, Key: key}, "/tracking-parcels/{id}")
	} else {
		t.Error("no tracking parcel")
	}
	check(apptest.Request{Method: http.MethodPatch, Path: "/v1/shipments/" + shipmentID, Key: key, Body: map[string]any{"reference_number": "ORDER-1B"}}, "/shipments/{id}")
	check(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments/" + shipmentID + "/cancel", Key: key}, "/shipments/{id}/cancel")
	check(apptest.Request{Method: http.MethodDelete, Path: "/v1/shipments/" + shipmentID, Key: key}, "/shipments/{id}")
	check(apptest.Request{Method: http.MethodPatch, Path: "/v1/shipping-channels/" + id, Key: key, Body: map[string]any{"description": "d"}}, "/shipping-channels/{id}")
	check(apptest.Request{Method: http.MethodDelete, Path: "/v1/shipping-channels/" + id, Key: key}, "/shipping-channels/{id}")

	apptest.Eventually(t, 20*time.Second, "deliveries of several event types", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(deliveries) >= 6
	})
	logs := check(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions/" + subID + "/logs", Key: key}, "/webhook-subscriptions/{id}/logs")
	if items, _ := logs.JSON(t)["data"].([]any); len(items) > 0 {
		logID, _ := items[0].(map[string]any)["id"].(string)
		check(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions/" + subID + "/logs/" + logID, Key: key}, "/webhook-subscriptions/{id}/logs/{log_id}")
	}
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions/" + subID, Key: key}, "/webhook-subscriptions/{id}")
	check(apptest.Request{Method: http.MethodPut, Path: "/v1/webhook-subscriptions/" + subID, Key: key, Body: map[string]any{"url": "not a url"}}, "/webhook-subscriptions/{id}")
	mu.Lock()
	defer mu.Unlock()
	seen := map[string]bool{}
	for _, d := range deliveries {
		eventType := d.header.Get("X-Service-Event")
		seen[eventType] = true
		item := doc.Webhooks[eventType]
		if item == nil || item.Post == nil {
			t.Errorf("delivery of %q: not in the document's webhooks", eventType)
			continue
		}
		for _, p := range item.Post.Parameters {
			if p.Value.In == "header" && p.Value.Required && d.header.Get(p.Value.Name) == "" {
				t.Errorf("delivery of %s: no %s header", eventType, p.Value.Name)
			}
		}
		var v any
		if err := json.Unmarshal(d.body, &v); err != nil {
			t.Fatal(err)
		}
		if err := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
			t.Errorf("delivery of %s does not match its schema: %v\n%s", eventType, err, d.body)
		}
	}
	t.Logf("deliveries checked: %d, event types %v", len(deliveries), seen)

	check(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions", Key: key}, "/webhook-subscriptions")

	// Error answers.
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/shp_01JD0000000000000000000000", Key: key}, "/shipments/{id}")
	check(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: map[string]any{}}, "/shipments")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments?per_page=1000", Key: key}, "/shipments")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments"}, "/shipments")
	check(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments", Key: env.NewKey("readonly", "channels:read")}, "/shipments")
}

// The document says an optional field sent as null is the same as absent
// (its type includes "null"): every write takes such a body. The exchanges
// are checked against the document by apptest as well.
func TestOptionalFieldsTakeNull(t *testing.T) {
	t.Parallel()
	env, _ := startKeepingApp(t)
	key := env.NewKey("acme")
	active := env.ActiveSandboxChannel(key, "Sandbox", nil)
	send := func(method, path string, body map[string]any, want int) map[string]any {
		t.Helper()
		res := env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: body})
		if res.Status != want {
			t.Fatalf("%s %s with nulls: %d, want %d: %s", method, path, res.Status, want, res.Body)
		}
		if res.Status == http.StatusNoContent {
			return nil
		}
		return res.Data(t)
	}

	ch := send(http.MethodPost, "/v1/shipping-channels", map[string]any{"name": "Nulls", "provider": "sandbox", "description": nil,
		"settings": map[string]any{"clientId": "id", "clientSecret": "secret"}}, http.StatusCreated)
	chPath := "/v1/shipping-channels/" + ch["id"].(string)
	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		if got := send(method, chPath, map[string]any{"name": nil, "description": nil, "settings": nil, "status": nil}, http.StatusOK); got["name"] != "Nulls" {
			t.Errorf("%s with name null changed the name to %v", method, got["name"])
		}
	}

	contact := map[string]any{"company_name": nil, "first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"}
	address := map[string]any{"street_name": "Dlouhá", "house_number": "12", "apartment_number": nil, "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"}
	sh := send(http.MethodPost, "/v1/shipments", map[string]any{
		"shipping_channel_id": active, "label_format": nil, "reference_number": nil, "shipping_date": nil, "sender_contact": contact,
		"recipient_contact": contact, "origin_address": address, "destination_address": address, "parcel": nil,
		"parcels": []any{map[string]any{"parcel_type": nil, "length_dimension": 30, "width_dimension": 20, "height_dimension": 10,
			"dimension_unit": nil, "weight_amount": 1.5, "weight_unit": nil}},
		"cash_on_delivery_amount": nil, "cash_on_delivery_currency": nil, "metadata": nil, "enable_tracking": nil, "additional_services": nil,
	}, http.StatusCreated)
	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		send(method, "/v1/shipments/"+sh["id"].(string), map[string]any{"reference_number": nil, "metadata": nil, "enable_tracking": nil}, http.StatusOK)
	}

	tp := send(http.MethodPost, "/v1/tracking-parcels", map[string]any{"tracking_number": "NULLS0001", "shipping_channel_id": active,
		"recipient_name": nil, "recipient_email": nil, "recipient_phone": nil, "check_delay_hours": nil, "max_checks": nil, "external_data": nil},
		http.StatusCreated)
	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		send(method, "/v1/tracking-parcels/"+tp["id"].(string), map[string]any{"recipient_name": nil, "recipient_email": nil,
			"recipient_phone": nil, "external_data": nil}, http.StatusOK)
	}

	wh := send(http.MethodPost, "/v1/webhook-subscriptions", map[string]any{"name": "Nulls", "url": "https://example.test/hook",
		"events": []string{"shipment.created"}, "secret": nil, "active": nil, "status": nil}, http.StatusCreated)
	whPath := "/v1/webhook-subscriptions/" + wh["id"].(string)
	send(http.MethodPut, whPath, map[string]any{"name": "Nulls", "url": nil, "events": nil, "secret": nil, "active": nil, "status": nil}, http.StatusOK)
	send(http.MethodPatch, whPath, map[string]any{"name": nil, "url": nil, "events": nil, "secret": nil, "active": nil, "status": nil}, http.StatusOK)
}
