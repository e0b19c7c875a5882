package dhlexpress

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// Credentials and account the fake accepts.
const (
	testKey     = "apiKeyMyDHL"
	testSecret  = "S3cr3t!MyDHL"
	testAccount = "123456789"
	specFile    = "testdata/mydhl-express-api-2.12.0.yaml"
	sandboxBase = "/mydhlapi/test"
	prodBase    = "/mydhlapi"
)

func testSettings() carrier.Settings {
	return carrier.Settings{settingKey: testKey, settingSecret: testSecret, settingAccount: testAccount, "sandboxMode": true}
}

// fixedNow is the fake's and the adapter's clock in tests.
var fixedNow = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

// fakeShipment is what the fake DHL keeps of one waybill.
type fakeShipment struct {
	waybill string
	pieces  []string
	product string
}

// fake is DHL Express's MyDHL API on loopback: every request is checked
// against DHL's OpenAPI file (strict: no property the file does not name)
// and so is every answer the fake gives; the answers are shaped after the
// file's examples.
type fake struct {
	t      *testing.T
	report func(format string, args ...any) // what DHL would refuse: t.Errorf unless a test listens
	srv    *httptest.Server
	base   string // the vendor's base path under the fake's address
	spec   *vendorspec.Spec

	mu        sync.Mutex
	calls     []string // "METHOD path?query"
	bodies    []shipmentRequest
	serial    int
	shipments map[string]*fakeShipment // by waybill
	pieceOf   map[string]string        // piece number → waybill
	tracking  map[string][]string      // waybill → checkpoint codes, oldest first
	fail      []int                    // statuses answered to the next calls
	hang      bool

	pickups fakePickups // the pickup side (fake_dispatch_test.go)

	labelMode string                                   // "linked" (default), "unlinked", "single"
	charges   bool                                     // answer shipmentCharges
	refuse    func(req shipmentRequest) (int, problem) // DHL's own refusal of a booking (status 0: none)
}

func newFake(t *testing.T, base string) *fake {
	t.Helper()
	f := &fake{t: t, base: base, shipments: map[string]*fakeShipment{}, pieceOf: map[string]string{},
		tracking: map[string][]string{}, labelMode: "linked", charges: true, pickups: fakePickups{booked: map[string]*fakePickup{}}}
	f.report = t.Errorf
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	spec, err := vendorspec.Load(specFile, f.srv.URL+base, nil) // DHL's file loads as it is: nothing to fix
	if err != nil {
		t.Fatal(err)
	}
	spec.Auth = func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
		if in.SecuritySchemeName != "basicAuth" {
			return fmt.Errorf("only Basic authentication is used")
		}
		if k, s, ok := in.RequestValidationInput.Request.BasicAuth(); !ok || k != testKey || s != testSecret {
			return fmt.Errorf("wrong Basic credentials")
		}
		return nil
	}
	f.spec = spec
	return f
}

// carrier is an adapter whose test and production hosts are this fake.
func (f *fake) carrier() *Carrier {
	return New(Config{SandboxURL: f.srv.URL + f.base, ProductionURL: f.srv.URL + f.base, Now: func() time.Time { return fixedNow }})
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

// bookings counts the waybills DHL booked: what its records show.
func (f *fake) bookings() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.shipments)
}

func (f *fake) failNext(statuses ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = append(f.fail, statuses...)
}

// writeProblem answers DHL's error shape (status is a string there).
func writeProblem(w http.ResponseWriter, status int, p problem) {
	if p.Status == "" {
		p.Status = fmt.Sprint(status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(p)
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+strings.TrimPrefix(r.URL.RequestURI(), f.base))
	hang := f.hang
	status := 0
	if len(f.fail) > 0 {
		status, f.fail = f.fail[0], f.fail[1:]
	}
	f.mu.Unlock()
	if hang {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		return
	}
	if status != 0 {
		writeProblem(w, status, problem{Title: http.StatusText(status), Detail: "injected failure", Message: http.StatusText(status)})
		return
	}
	// DHL's gateway refuses wrong credentials before any operation
	// (AssumedGateway401: no operation documents the answer).
	if k, s, ok := r.BasicAuth(); !ok || k != testKey || s != testSecret {
		writeProblem(w, http.StatusUnauthorized, problem{Title: "Unauthorized", Detail: "Invalid credentials", Message: "Unauthorized"})
		return
	}
	if r.Header.Get("x-version") != APIVersion {
		f.report("x-version = %q", r.Header.Get("x-version"))
	}
	in, err := f.spec.CheckRequest(r)
	if err != nil {
		f.report("%v", err)
		writeProblem(w, http.StatusUnprocessableEntity, problem{Instance: "/expressapi" + strings.TrimPrefix(r.URL.Path, f.base),
			Title: "Validation error", Message: "Unprocessable Entity", Detail: err.Error()})
		return
	}
	err = f.spec.Answer(w, in, func(rec http.ResponseWriter) {
		f.operation(rec, r, in)
	})
	if err != nil {
		f.t.Errorf("the fake's own answer: %v", err)
	}
}

// operation answers one operation of DHL's file.
func (f *fake) operation(rec http.ResponseWriter, r *http.Request, in *vendorspec.Request) {
	switch in.Operation {
	case "exp-api-shipments":
		f.create(rec, r)
	case "exp-api-shipments-tracking":
		f.track(rec, in.PathParams["shipmentTrackingNumber"], r.URL.Query().Get("requestGMTOffsetPerEvent") == "true")
	case "exp-api-shipments-tracking-multi":
		f.track(rec, f.waybillOf(r.URL.Query().Get("pieceTrackingNumber")), false)
	case "exp-api-pickups":
		f.bookPickup(rec, r)
	case "exp-api-pickups-cancel":
		f.cancelPickup(rec, r, in.PathParams["dispatchConfirmationNumber"])
	case "exp-api-products":
		f.products(rec, r)
	case "exp-api-reference-data":
		rec.Header().Set("Content-Type", "application/json")
		json.NewEncoder(rec).Encode(f.example(f.spec.Doc().Paths.Find("/reference-data").Get.Responses.Status(200).Value.
			Content.Get("application/json").Examples["Sample Reference Data - country"].Value.Value))
	default:
		f.report("the adapter called %s, which it has no need of", in.Operation)
		writeProblem(rec, http.StatusBadRequest, problem{Title: "Bad request", Detail: "unexpected"})
	}
}

// example is a deep copy of an example value of DHL's file.
func (f *fake) example(v any) map[string]any {
	raw, err := json.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fake) namedExample(name string) map[string]any {
	ex, ok := f.spec.Doc().Components.Examples[name]
	if !ok || ex.Value == nil {
		f.t.Fatalf("DHL's file has no example %s", name)
	}
	return f.example(ex.Value.Value)
}

// create is POST /shipments: one waybill, one piece number and label per
// package, shaped after DHL's linkLabelsByPiecesShipmentResponse example.
func (f *fake) create(w http.ResponseWriter, r *http.Request) {
	var req shipmentRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("shipment body: %v", err)
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, req)
	refuse := f.refuse
	f.mu.Unlock()
	f.checkBusinessRules(req)
	if refuse != nil {
		if status, p := refuse(req); status != 0 {
			writeProblem(w, status, p)
			return
		}
	}
	if req.Accounts[0].Number != testAccount {
		writeProblem(w, http.StatusBadRequest, problem{Instance: "/expressapi/shipments", Title: "Bad request", Message: "Bad request",
			Detail: "420505: The account number #/accounts/0/number is not valid for this shipper."})
		return
	}

	f.mu.Lock()
	f.serial++
	waybill := fmt.Sprintf("%010d", 5374534600+f.serial)
	sh := &fakeShipment{waybill: waybill, product: req.ProductCode}
	for i := range req.Content.Packages {
		n := fmt.Sprintf("JD01460000%04d%06d", f.serial, i+1)
		sh.pieces = append(sh.pieces, n)
		f.pieceOf[n] = waybill
	}
	f.shipments[waybill] = sh
	mode, charges := f.labelMode, f.charges
	f.mu.Unlock()

	format := req.OutputImageProperties.EncodingFormat
	ans := f.namedExample("linkLabelsByPiecesShipmentResponse")
	ans["shipmentTrackingNumber"] = waybill
	ans["trackingUrl"] = "https://express.api.dhl.com/mydhlapi/shipments/" + waybill + "/tracking"
	var pkgs, docs []any
	var rendered [][]byte
	for i, n := range sh.pieces {
		p := req.Content.Packages[i]
		pkgs = append(pkgs, map[string]any{"referenceNumber": p.ReferenceNumber, "trackingNumber": n,
			"trackingUrl": ans["trackingUrl"].(string) + "?pieceTrackingNumber=" + n})
		shipper, receiver := req.CustomerDetails.ShipperDetails, req.CustomerDetails.ReceiverDetails
		data, err := labels.Render(format, labels.ParcelLabel{Carrier: "DHL Express", Product: req.ProductCode, TrackingNumber: n,
			Sender:      labels.Party{Name: shipper.ContactInformation.FullName, Company: shipper.ContactInformation.CompanyName, Street: shipper.PostalAddress.AddressLine1, PostalCode: shipper.PostalAddress.PostalCode, City: shipper.PostalAddress.CityName, CountryCode: shipper.PostalAddress.CountryCode},
			Recipient:   labels.Party{Name: receiver.ContactInformation.FullName, Company: receiver.ContactInformation.CompanyName, Street: receiver.PostalAddress.AddressLine1, PostalCode: receiver.PostalAddress.PostalCode, City: receiver.PostalAddress.CityName, CountryCode: receiver.PostalAddress.CountryCode},
			ParcelIndex: i + 1, ParcelCount: len(sh.pieces), Weight: fmt.Sprintf("%.3f KG", p.Weight), Reference: waybill})
		if err != nil {
			f.t.Fatalf("render label: %v", err)
		}
		rendered = append(rendered, data)
		doc := map[string]any{"imageFormat": strings.ToUpper(format), "content": base64.StdEncoding.EncodeToString(data), "typeCode": "label"}
		if mode == "linked" {
			doc["packageReferenceNumber"] = p.ReferenceNumber
		}
		docs = append(docs, doc)
	}
	if mode == "linked" { // DHL's example lists the labels in no promised order
		for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
			docs[i], docs[j] = docs[j], docs[i]
		}
	}
	if mode == "single" {
		merged, err := labels.Merge(format, rendered)
		if err != nil {
			f.t.Fatal(err)
		}
		docs = []any{map[string]any{"imageFormat": strings.ToUpper(format), "content": base64.StdEncoding.EncodeToString(merged), "typeCode": "label"}}
	}
	// A receipt is no label: the adapter must leave it out.
	docs = append(docs, map[string]any{"imageFormat": "PDF", "content": base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 receipt")), "typeCode": "receipt"})
	ans["packages"], ans["documents"] = pkgs, docs
	if charges && req.GetRateEstimates {
		ans["shipmentCharges"] = []any{
			map[string]any{"currencyType": "BILLC", "priceCurrency": "EUR", "price": 48.37},
			map[string]any{"currencyType": "PULCL", "priceCurrency": "EUR", "price": 61.2},
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/shipments/"+waybill)
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(ans)
}

// checkBusinessRules reports what DHL's documentation requires beyond the
// schema and the adapter must never send.
func (f *fake) checkBusinessRules(req shipmentRequest) {
	if req.Content.IsCustomsDeclarable {
		f.report("a dutiable shipment without content.exportDeclaration (DHL requires it)")
	}
	if _, err := time.Parse("2006-01-02T15:04:05 GMT-07:00", req.PlannedShippingDateAndTime); err != nil {
		f.report("plannedShippingDateAndTime %q: %v", req.PlannedShippingDateAndTime, err)
	} else if t, _ := time.Parse("2006-01-02T15:04:05 GMT-07:00", req.PlannedShippingDateAndTime); t.Before(fixedNow) || t.After(fixedNow.AddDate(0, 0, 10)) {
		f.report("plannedShippingDateAndTime %s is in the past or more than 10 days ahead", t)
	}
	for i, p := range req.Content.Packages {
		if p.ReferenceNumber != i+1 {
			f.report("package %d has reference number %d", i, p.ReferenceNumber)
		}
	}
	if req.Pickup.IsRequested {
		f.report("a pickup was requested")
	}
}

func (f *fake) waybillOf(piece string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pieceOf[piece]
}

// setTracking makes the waybill's checkpoints codes, oldest first, an hour
// apart, for the shipment and each of its pieces.
func (f *fake) setTracking(waybill string, codes ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tracking[waybill] = codes
}

// track answers a tracking request, shaped after DHL's example for a
// shipment tracking number (its remarks and empty actualDimensions, which
// DHL's own schema does not allow, left out).
func (f *fake) track(w http.ResponseWriter, waybill string, offsets bool) {
	f.mu.Lock()
	codes, ok := f.tracking[waybill]
	sh := f.shipments[waybill]
	f.mu.Unlock()
	if !ok || sh == nil {
		writeProblem(w, http.StatusNotFound, problem{Instance: "/expressapi/shipments/" + waybill + "/tracking", Title: "Not data found", Message: "Not data found", Detail: "No data found"})
		return
	}
	ans := f.example(f.spec.Doc().Paths.Find("/shipments/{shipmentTrackingNumber}/tracking").Get.Responses.Status(200).Value.
		Content.Get("application/json").Examples["Sample Tracking response for shipment tracking number"].Value.Value)
	shipment := ans["shipments"].([]any)[0].(map[string]any)
	template := shipment["events"].([]any)[0].(map[string]any)
	events := func() []any {
		var out []any
		for i, c := range codes {
			e := map[string]any{}
			for k, v := range template {
				if k != "remarks" {
					e[k] = v
				}
			}
			at := time.Date(2026, 11, 23, 9+i, 0, 0, 0, time.UTC)
			e["date"], e["time"], e["typeCode"], e["description"] = at.Format("2006-01-02"), at.Format("15:04:05"), c, "event "+c
			if offsets {
				e["GMTOffset"] = "+01:00"
			}
			out = append(out, e)
		}
		return out
	}
	pieceTemplate := shipment["pieces"].([]any)[0].(map[string]any)
	delete(pieceTemplate, "actualDimensions")
	var pieces []any
	for i, n := range sh.pieces {
		p := map[string]any{}
		for k, v := range pieceTemplate {
			p[k] = v
		}
		p["number"], p["shipmentTrackingNumber"], p["trackingNumber"], p["events"] = i+1, waybill, n, events()
		pieces = append(pieces, p)
	}
	shipment["shipmentTrackingNumber"], shipment["productCode"], shipment["numberOfPieces"] = waybill, sh.product, len(sh.pieces)
	shipment["events"], shipment["pieces"] = events(), pieces
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ans)
}

// docOf is DHL's loaded file, for tests that read its examples.
func docOf(t *testing.T) *openapi3.T {
	t.Helper()
	spec, err := vendorspec.Load(specFile, "http://dhl.test"+sandboxBase, nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec.Doc()
}
