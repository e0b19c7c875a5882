package dhlparcelde

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
	"shipd/platform/carrier"
	"shipd/platform/failswitch"
)

// Test credentials the fake accepts (DHL's sandbox uses fixed values alike).
const (
	testClientID = "KH2iQ8YwGYtGs4XUBKaGaiyWBPEZnsRm"
	testSecret   = "V8yPDt8GlGlNMRCh"
	testUser     = "user-valid"
	testPassword = "SandboxPasswort2023!"
	testBilling  = "33333333330102" // V01PAK, procedure 01
	// unservedPostal is a consignee postal code the fake's DHL refuses.
	unservedPostal = "99999"
)

func testSettings() carrier.Settings {
	return carrier.Settings{
		"clientId": testClientID, "clientSecret": testSecret, "username": testUser, "password": testPassword,
		"billingNumber": testBilling, "sandboxMode": true,
	}
}

// procedure is the billing number's procedure digits DHL expects per product.
var procedure = map[string]string{"V01PAK": "01", "V53WPAK": "53", "V54EPAK": "54", "V62KP": "62", "V66WPI": "66"}

// fakeShipment is what the fake DHL keeps of one created shipment.
type fakeShipment struct {
	label   labels.ParcelLabel
	cod     bool
	deleted bool
}

// fake is a DHL API gateway on loopback: the ROPC token endpoint, the Parcel
// DE Shipping API v2 /orders (every request validated against DHL's OpenAPI
// file) and the Unified tracking API.
type fake struct {
	t      *testing.T
	report func(format string, args ...any) // a request DHL would refuse: t.Errorf unless a test listens
	srv    *httptest.Server
	spec   *vendorspec.Spec // DHL's OpenAPI file, strict
	// pickupSpec is DHL's Pickup API v3 file, strict, and pickup the
	// fake DHL's pickup orders and agreed locations (fake_dispatch_test.go).
	pickupSpec *vendorspec.Spec
	pickup     fakePickups

	mu         sync.Mutex
	tokenTTL   int
	tokens     map[string]bool // valid access tokens
	tokenCalls int
	calls      []string // "METHOD path?query" of every call
	serial     int
	shipments  map[string]*fakeShipment
	orders     []orderRequest // bodies of POST /orders
	fail       []int          // statuses answered to the next calls, in order
	hang       bool           // answer nothing until the caller gives up
	manifested map[string]bool
	tracking   map[string]json.RawMessage // Unified answer per tracking number

	refuseTokens bool                      // answer 401 to every shipping call
	tokenStatus  int                       // answer the token endpoint with this status (problem body)
	failItem     func(i int) *responseItem // refuse the i-th shipment of an order with this item
	// failLabels counts down the next label answers fail as DHL's
	// label printing failing would: a booking answered without labels
	// (its items created, label left out, as GET /orders leaves out a
	// document it has not), a reprint answered 500 (its documented
	// InternalServerError).
	failLabels failswitch.Countdown
	created    int // POST /orders that created shipments
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, tokenTTL: 1799, tokens: map[string]bool{}, shipments: map[string]*fakeShipment{},
		manifested: map[string]bool{}, tracking: map[string]json.RawMessage{}}
	f.report = t.Errorf
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)

	// DHL's file has one example of the wrong shape (Commodity), which
	// vendorspec skips like every example; the rest validates unchanged.
	spec, err := vendorspec.Load("testdata/parcel-de-shipping-v2_2.yaml", f.srv.URL+shippingBase, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec.Auth = func(_ context.Context, a *openapi3filter.AuthenticationInput) error {
		if a.SecuritySchemeName == "ApiKey" && a.RequestValidationInput.Request.Header.Get("dhl-api-key") == testClientID {
			return nil
		}
		return errors.New("no " + a.SecuritySchemeName)
	}
	f.spec = spec
	f.loadPickupSpec()
	return f
}

// carrier returns an adapter whose sandbox and production hosts both are
// this fake.
func (f *fake) carrier() *Carrier {
	return New(Config{SandboxURL: f.srv.URL, ProductionURL: f.srv.URL, SandboxTrackingURL: f.srv.URL, ProductionTrackingURL: f.srv.URL})
}

func (f *fake) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (f *fake) tokenCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenCalls
}

// revokeTokens makes every issued token unknown, as an early expiry does.
func (f *fake) revokeTokens() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = map[string]bool{}
}

// bookings counts the POST /orders that created shipments (one per parcel,
// all of one booking): what DHL's records show as bookings.
func (f *fake) bookings() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.created
}

func (f *fake) failNext(statuses ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = append(f.fail, statuses...)
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.RequestURI())
	hang := f.hang
	status := 0
	if len(f.fail) > 0 && r.URL.Path != tokenPath {
		status, f.fail = f.fail[0], f.fail[1:]
	}
	f.mu.Unlock()
	if hang {
		io.Copy(io.Discard, r.Body) // so the server notices the caller leaving
		<-r.Context().Done()
		return
	}
	if status != 0 {
		problem(w, status, http.StatusText(status), "injected failure")
		return
	}
	f.mu.Lock()
	tokenStatus := f.tokenStatus
	f.mu.Unlock()
	switch {
	case r.URL.Path == tokenPath && tokenStatus != 0:
		problem(w, tokenStatus, http.StatusText(tokenStatus), "injected failure")
	case r.URL.Path == tokenPath:
		f.token(w, r)
	case r.URL.Path == trackingPath:
		f.track(w, r)
	case strings.HasPrefix(r.URL.Path, shippingBase+"/"):
		f.shipping(w, r)
	case strings.HasPrefix(r.URL.Path, pickupBase+"/"):
		f.pickups(w, r)
	default:
		http.NotFound(w, r)
	}
}

// token is POST /parcel/de/account/auth/ropc/v1/token (OAuth2 ROPC).
func (f *fake) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		f.t.Errorf("token request: %s with content type %q", r.Method, r.Header.Get("Content-Type"))
	}
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("token form: %v", err)
	}
	f.mu.Lock()
	f.tokenCalls++
	ttl := f.tokenTTL
	f.mu.Unlock()
	oauthError := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	switch {
	case r.PostForm.Get("grant_type") != "password":
		f.t.Errorf("grant_type = %q, want password", r.PostForm.Get("grant_type"))
		oauthError("unsupported_grant_type", "grant type not supported")
	case r.PostForm.Get("client_id") != testClientID || r.PostForm.Get("client_secret") != testSecret:
		oauthError("invalid_client", "Invalid client credentials")
	case r.PostForm.Get("username") != testUser || r.PostForm.Get("password") != testPassword:
		oauthError("invalid_grant", "Invalid user credentials")
	default:
		f.mu.Lock()
		tok := fmt.Sprintf("tok-%d", f.tokenCalls)
		f.tokens[tok] = true
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": ttl})
	}
}

// problem writes a RequestStatus as application/problem+json.
func problem(w http.ResponseWriter, status int, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(requestStatus{Title: title, StatusCode: status, Status: status, Detail: detail})
}

// shipping checks auth and the request against DHL's OpenAPI file, then
// answers /orders.
func (f *fake) shipping(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	valid := ok && f.tokens[tok] && !f.refuseTokens
	f.mu.Unlock()
	if !valid {
		problem(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized for given resource.")
		return
	}
	checked, err := f.spec.CheckRequest(r)
	if err != nil {
		if strings.Contains(err.Error(), "is no operation of the document") {
			f.t.Errorf("%v", err)
			problem(w, http.StatusNotFound, "Not Found", err.Error())
			return
		}
		f.report("%v", err)
		problem(w, http.StatusBadRequest, "Bad Request", "schema validation failed")
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	// The fake's own answers must be DHL's documented answers too.
	err = f.spec.Answer(w, checked, func(rec http.ResponseWriter) {
		switch {
		case checked.Operation == "manifestsPost":
			f.closeOut(rec, body)
		case checked.Operation == "getManifests":
			f.manifest(rec, r)
		case r.Method == http.MethodPost:
			f.create(rec, r, body)
		case r.Method == http.MethodGet:
			f.reprint(rec, r)
		case r.Method == http.MethodDelete:
			f.delete(rec, r)
		}
	})
	if err != nil {
		f.t.Errorf("the fake's answer: %v", err)
	}
}

func writeLabelData(w http.ResponseWriter, items []responseItem) {
	status, failed := http.StatusOK, 0
	for _, it := range items {
		if !it.Sstatus.ok() {
			failed++
		}
	}
	switch {
	case len(items) > 1:
		status = http.StatusMultiStatus
	case failed == 1:
		status = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusBadRequest {
		w.Header().Set("Content-Type", "application/problem+json")
	}
	w.WriteHeader(status)
	title := map[int]string{200: "OK", 207: "Multistatus", 400: "Bad Request"}[status]
	json.NewEncoder(w).Encode(labelDataResponse{Status: requestStatus{Title: title, StatusCode: status, Status: status}, Items: items})
}

func okStatus() requestStatus { return requestStatus{Title: "OK", StatusCode: 200, Status: 200} }

func itemError(prop, msg string) responseItem {
	return responseItem{Sstatus: requestStatus{Title: "Bad Request", StatusCode: 400, Status: 400},
		ValidationMessages: []validationMessage{{Property: prop, ValidationMessage: msg, ValidationState: "Error"}}}
}

// create is POST /orders: one shipment number and label per shipment.
func (f *fake) create(w http.ResponseWriter, r *http.Request, body []byte) {
	var order orderRequest
	if err := json.Unmarshal(body, &order); err != nil {
		f.t.Errorf("order body: %v", err)
	}
	f.mu.Lock()
	f.orders = append(f.orders, order)
	f.mu.Unlock()
	format := map[string]string{"PDF": "pdf", "ZPL2": "zpl", "": "pdf"}[r.URL.Query().Get("docFormat")]
	noLabels := f.failLabels.Take()
	made := false
	defer func() {
		if made {
			f.mu.Lock()
			f.created++
			f.mu.Unlock()
		}
	}()
	var items []responseItem
	for i, sh := range order.Shipments {
		pre := fmt.Sprintf("shipments[%d].", i)
		if f.failItem != nil {
			if it := f.failItem(i); it != nil {
				items = append(items, *it)
				continue
			}
		}
		switch {
		case sh.Consignee.PostalCode == unservedPostal:
			items = append(items, itemError(pre+"consignee.postalCode", "Die angegebene Postleitzahl ist nicht gültig."))
			continue
		case sh.BillingNumber[10:12] != procedure[sh.Product]:
			items = append(items, itemError(pre+"billingNumber", "Die Abrechnungsnummer passt nicht zum Produkt."))
			continue
		case sh.Services != nil && sh.Services.CashOnDelivery != nil && (sh.Product != "V01PAK" || sh.Services.CashOnDelivery.Amount.Currency != "EUR"):
			f.t.Errorf("COD sent with %s in %s", sh.Product, sh.Services.CashOnDelivery.Amount.Currency)
			items = append(items, itemError(pre+"services.cashOnDelivery", "Nachnahme nicht möglich."))
			continue
		}
		f.mu.Lock()
		f.serial++
		no := fmt.Sprintf("34043431%010d", f.serial)
		l := labels.ParcelLabel{Carrier: "DHL Paket", Product: sh.Product, TrackingNumber: no,
			Sender:      labels.Party{Name: sh.Shipper.Name1, Street: sh.Shipper.AddressStreet, PostalCode: sh.Shipper.PostalCode, City: sh.Shipper.City, CountryCode: sh.Shipper.Country},
			Recipient:   labels.Party{Name: sh.Consignee.Name1, Street: sh.Consignee.AddressStreet, PostalCode: sh.Consignee.PostalCode, City: sh.Consignee.City, CountryCode: sh.Consignee.Country},
			ParcelIndex: 1, ParcelCount: 1, Weight: fmt.Sprintf("%.0f g", sh.Details.Weight.Value), Reference: sh.RefNo}
		f.shipments[no] = &fakeShipment{label: l, cod: sh.Services != nil}
		f.mu.Unlock()
		made = true
		it := f.item(no, l, format)
		if noLabels {
			it.Label = nil
		}
		items = append(items, it)
	}
	writeLabelData(w, items)
}

func (f *fake) item(no string, l labels.ParcelLabel, format string) responseItem {
	data, err := labels.Render(format, l)
	if err != nil {
		f.t.Errorf("render label: %v", err)
	}
	doc := &document{FileFormat: map[string]string{"pdf": "PDF", "zpl": "ZPL2"}[format]}
	if format == "pdf" {
		doc.B64 = base64.StdEncoding.EncodeToString(data)
	} else {
		doc.ZPL2 = string(data)
	}
	return responseItem{ShipmentNo: no, Sstatus: okStatus(), Label: doc}
}

// reprint is GET /orders?shipment=…: the labels of existing shipments.
func (f *fake) reprint(w http.ResponseWriter, r *http.Request) {
	if f.failLabels.Take() {
		problem(w, http.StatusInternalServerError, "Internal Server Error", "label printing failed")
		return
	}
	format := map[string]string{"PDF": "pdf", "ZPL2": "zpl", "": "pdf"}[r.URL.Query().Get("docFormat")]
	var items []responseItem
	for _, no := range r.URL.Query()["shipment"] {
		f.mu.Lock()
		sh, ok := f.shipments[no]
		f.mu.Unlock()
		if !ok || sh.deleted {
			it := itemError("shipmentNo", "Die Sendungsnummer ist unbekannt.")
			it.ShipmentNo = no
			items = append(items, it)
			continue
		}
		items = append(items, f.item(no, sh.label, format))
	}
	writeLabelData(w, items)
}

// delete is DELETE /orders?profile=…&shipment=…, refused once manifested.
func (f *fake) delete(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Query().Get("profile"); p != DefaultProfile {
		f.t.Errorf("delete with profile %q", p)
	}
	var items []responseItem
	for _, no := range r.URL.Query()["shipment"] {
		f.mu.Lock()
		sh, ok := f.shipments[no]
		var it responseItem
		switch {
		case !ok || sh.deleted:
			it = responseItem{Sstatus: requestStatus{Title: "Unknown shipment number.", StatusCode: 400, Status: 400}}
		case f.manifested[no]:
			it = responseItem{Sstatus: requestStatus{Title: "Shipment already manifested.", StatusCode: 400, Status: 400,
				Detail: "The shipment was closed and cannot be deleted."}}
		default:
			sh.deleted = true
			it = responseItem{Sstatus: okStatus()}
		}
		f.mu.Unlock()
		it.ShipmentNo = no
		items = append(items, it)
	}
	writeLabelData(w, items)
}

// track is the Unified tracking API: GET /track/shipments.
func (f *fake) track(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("DHL-API-Key") != testClientID {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"status":401,"title":"Unauthorized","detail":"Invalid API key."}`))
		return
	}
	q := r.URL.Query()
	if q.Get("service") != "parcel-de" {
		f.t.Errorf("tracking service = %q", q.Get("service"))
	}
	f.mu.Lock()
	ans, ok := f.tracking[q.Get("trackingNumber")]
	f.mu.Unlock()
	if !ok {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"title":"No result found","detail":"No shipment with given tracking number found.","status":404,"instance":"/shipments?%s"}`, url.Values{"trackingNumber": {q.Get("trackingNumber")}}.Encode())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(ans)
}

// setTracking serves DHL's example Unified answer for number with events
// replaced by codes (statusCode values), oldest first, an hour apart.
func (f *fake) setTracking(t *testing.T, number string, codes ...string) {
	t.Helper()
	raw, err := os.ReadFile("testdata/dhl_unified_tracking_example.json")
	if err != nil {
		t.Fatal(err)
	}
	var example struct {
		TrackingResponse map[string]any `json:"trackingResponse"`
	}
	if err := json.Unmarshal(raw, &example); err != nil {
		t.Fatal(err)
	}
	resp := example.TrackingResponse
	sh := resp["shipments"].([]any)[0].(map[string]any)
	template := sh["events"].([]any)[0].(map[string]any)
	var events []any
	for i, c := range codes {
		e := map[string]any{}
		for k, v := range template {
			e[k] = v
		}
		e["statusCode"] = c
		e["description"] = "event " + c
		e["timestamp"] = fmt.Sprintf("2025-01-10T%02d:00:00", 8+i)
		events = append([]any{e}, events...) // newest first, as DHL lists them
	}
	sh["id"] = number
	sh["service"] = "parcel-de"
	sh["events"] = events
	body, _ := json.Marshal(resp)
	f.mu.Lock()
	f.tracking[number] = body
	f.mu.Unlock()
}
