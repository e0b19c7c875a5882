package gls

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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
	"shipd/platform/failswitch"
)

// fake is GLS on loopback: the authentication API v2, ShipIT and Track &
// Trace v1, each under /prod and /sandbox so tests see which host a call
// used. Every request is validated against the vendor OpenAPI files in
// testdata through vendorspec, strict: an object may carry only the
// properties its schema names, so a misspelt optional field is refused.
// One that does not validate fails the test unless a test listens (report).
//
// Vendor files as loaded, and what the fake changes in memory before
// validating them (the files in testdata are the vendor's, unchanged):
//   - every file: servers replaced by the fake's /prod and /sandbox bases.
//   - shipit-farm.yaml: info.version is "" (doc.Validate refuses it; set to
//     "v1"), and its top-level security names "OAuthPROD", a scheme the file
//     does not define (it defines "OAuth" and "OAuthSandbox"): replaced by
//     "OAuth" so the security requirement can be checked. SporadicCollection
//     gets the rules of GLS's documentation (rest_sporadic_collection.html)
//     the file lacks, fixCollection below; the end of day's date parameter
//     is typed a date (the form GLS's clients send [C]).
//   - authentification-service-v2.yaml: grant_type has an enum but no type,
//     so kin-openapi's form decoder reads it as null and the enum check
//     fails on every request; typed "string" (its enum is unchanged).
//   - ecitrackandtrace.yaml: two operations share the operationId
//     "getEventsByParcelNumber" (doc.Validate refuses it); the delivery-info
//     one is renamed "getDeliveryInfoByParcelNumber".
//   - authentification-service-v2.yaml and ecitrackandtrace.yaml: examples
//     of the wrong type (expires_in "14400", showEvents "false"): validated
//     with openapi3.DisableExamplesValidation.
type fake struct {
	t   *testing.T
	srv *httptest.Server

	// specs are the three vendor files by environment ("prod", "sandbox")
	// and API ("auth", "shipit", "track").
	specs  map[string]map[string]*vendorspec.Spec
	report func(format string, args ...any) // a request GLS would refuse: t.Errorf unless a test listens

	mu         sync.Mutex
	clientID   string
	secret     string
	contactID  string
	tokenTTL   int // expires_in, seconds
	seq        int
	tokens     map[string]fakeToken
	tokenCalls map[string]int // by env
	calls      []string       // "env METHOD path"
	bodies     map[string][]json.RawMessage
	byTrackID  map[string]*fakeParcel
	byNumber   map[string]*fakeParcel

	// Switches for failure paths.
	shipitStatus   int  // answer every ShipIT call with this status (e.g. 503)
	trackStatus    int  // answer every T&T call with this status (e.g. 429)
	tokenStatus    int  // answer the token endpoint with this status
	printDataArray bool // PrintData.Data as the spec's array of base64 strings
	// failLabels counts down the next label answers fail as GLS's
	// printing failing would: a booking answered without PrintData (which
	// CreatedShipment does not require), a reprint answered 503.
	failLabels failswitch.Countdown
	bookings   int // bookings that made parcels

	// The shipping day (fake_dispatch_test.go).
	days        []*fakeDayShipment // booked shipments, as the end of day lists them
	collections []string           // the dates of the collections ordered
	endOfDays   []string           // the dates the end of day was asked for
}

// bookingCount is how many bookings made parcels: what GLS's records show.
func (f *fake) bookingCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bookings
}

type fakeToken struct {
	env     string
	expires time.Time
	revoked bool
}

type fakeParcel struct {
	trackID, number, reference string
	label                      labels.ParcelLabel
	cancelled, noCancel        bool
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, clientID: "client-1", secret: "secret-1", contactID: "276a45fkqM", tokenTTL: 14400,
		tokens: map[string]fakeToken{}, tokenCalls: map[string]int{}, bodies: map[string][]json.RawMessage{},
		byTrackID: map[string]*fakeParcel{}, byNumber: map[string]*fakeParcel{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.report = t.Errorf
	f.specs = map[string]map[string]*vendorspec.Spec{}
	for _, env := range []string{"prod", "sandbox"} {
		f.specs[env] = map[string]*vendorspec.Spec{
			"shipit": f.load(env, "shipit-farm.yaml", "/shipit-farm/v1/backend", func(doc *openapi3.T) {
				doc.Info.Version = "v1"
				doc.Security = openapi3.SecurityRequirements{{"OAuth": []string{}}}
				fixCollection(doc)
			}),
			"auth": f.load(env, "authentification-service-v2.yaml", "/oauth2/v2", func(doc *openapi3.T) {
				form := doc.Paths.Find("/token").Post.RequestBody.Value.Content.Get("application/x-www-form-urlencoded")
				form.Schema.Value.Properties["grant_type"].Value.Type = &openapi3.Types{openapi3.TypeString}
			}),
			"track": f.load(env, "ecitrackandtrace.yaml", "/track-and-trace-v1", func(doc *openapi3.T) {
				doc.Paths.Find("/tracking/deliveryinfo/parcelid/{unitno}").Get.OperationID = "getDeliveryInfoByParcelNumber"
			}),
		}
	}
	return f
}

// load reads a vendor file strict (vendorspec), with the in-memory fixes
// listed on fake, routed under the fake's env base.
func (f *fake) load(env, file, base string, fix func(*openapi3.T)) *vendorspec.Spec {
	f.t.Helper()
	spec, err := vendorspec.Load("testdata/"+file, f.srv.URL+"/"+env+base, fix)
	if err != nil {
		f.t.Fatal(err)
	}
	spec.Auth = checkAuth
	return spec
}

// checkAuth wants the kind of credentials each security scheme names.
func checkAuth(_ context.Context, a *openapi3filter.AuthenticationInput) error {
	h := a.RequestValidationInput.Request.Header.Get("Authorization")
	switch a.SecurityScheme.Type {
	case "http":
		if !strings.HasPrefix(h, "Basic ") {
			return errors.New("no Basic authorization")
		}
	case "oauth2":
		if !strings.HasPrefix(h, "Bearer ") {
			return errors.New("no Bearer token")
		}
	}
	return nil
}

// carrier returns the adapter pointed at the fake.
func (f *fake) carrier() *Carrier {
	return New(Config{
		ProductionURL: f.srv.URL + "/prod/shipit-farm/v1/backend", SandboxURL: f.srv.URL + "/sandbox/shipit-farm/v1/backend",
		ProductionAuthURL: f.srv.URL + "/prod/oauth2/v2/token", SandboxAuthURL: f.srv.URL + "/sandbox/oauth2/v2/token",
		ProductionTrackURL: f.srv.URL + "/prod/track-and-trace-v1", SandboxTrackURL: f.srv.URL + "/sandbox/track-and-trace-v1",
		HTTPClient: f.srv.Client(),
	})
}

func (f *fake) settings() map[string]any {
	return map[string]any{"clientId": f.clientID, "clientSecret": f.secret, "contactId": f.contactID}
}

// revokeAll makes every issued token expire early, as GLS's gateway would.
func (f *fake) revokeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, tok := range f.tokens {
		tok.revoked = true
		f.tokens[k] = tok
	}
}

func (f *fake) tokenCount(env string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenCalls[env]
}

func (f *fake) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fake) lastBody(op string) json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.bodies[op]
	if len(b) == 0 {
		return nil
	}
	return b[len(b)-1]
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
	if len(parts) != 2 || (parts[0] != "prod" && parts[0] != "sandbox") {
		http.NotFound(w, r)
		return
	}
	env, rest := parts[0], "/"+parts[1]
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.calls = append(f.calls, env+" "+r.Method+" "+rest)
	f.mu.Unlock()

	var api string
	switch {
	case strings.HasPrefix(rest, "/oauth2/v2/"):
		api = "auth"
	case strings.HasPrefix(rest, "/shipit-farm/v1/backend/"):
		api = "shipit"
	case strings.HasPrefix(rest, "/track-and-trace-v1/"):
		api = "track"
	default:
		http.NotFound(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	checked, err := f.specs[env][api].CheckRequest(r)
	if err != nil {
		f.mu.Lock()
		report := f.report
		f.mu.Unlock()
		report("%v", err)
		w.Header().Set(ErrorHeader, "INVALID_REQUEST")
		w.Header().Set(MessageHeader, "request does not match the OpenAPI file")
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch api {
	case "auth":
		f.token(w, r, env, body)
	case "shipit":
		if !f.authorized(w, r, env) {
			return
		}
		f.shipit(w, r, strings.TrimPrefix(rest, "/shipit-farm/v1/backend"), body, f.answerer(env, checked))
	default:
		if !f.authorized(w, r, env) {
			return
		}
		f.track(w, r, strings.TrimPrefix(rest, "/track-and-trace-v1"))
	}
}

func (f *fake) token(w http.ResponseWriter, r *http.Request, env string, body []byte) {
	if f.tokenStatus != 0 {
		writeJSON(w, f.tokenStatus, "application/json", map[string]any{"errors": []map[string]string{{"message": "Internal server error", "type": "500"}}})
		return
	}
	id, secret, ok := r.BasicAuth()
	if r.PostFormValue("grant_type") != "client_credentials" {
		f.t.Errorf("token request: grant_type %q", r.PostFormValue("grant_type"))
	}
	if !ok || id != f.clientID || secret != f.secret {
		writeJSON(w, http.StatusBadRequest, "application/json", map[string]any{"errors": []map[string]string{{"message": "Invalid client identifier", "type": "400"}}})
		return
	}
	f.mu.Lock()
	f.seq++
	tok := fmt.Sprintf("%s-token-%d", env, f.seq)
	f.tokens[tok] = fakeToken{env: env, expires: time.Now().Add(time.Duration(f.tokenTTL) * time.Second)}
	f.tokenCalls[env]++
	ttl := f.tokenTTL
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, "application/json", map[string]any{"token_type": "Bearer", "access_token": tok, "expires_in": ttl})
}

// authorized answers 401 with the gateway's fault body for a missing,
// unknown, expired or revoked token, or one of the other environment.
func (f *fake) authorized(w http.ResponseWriter, r *http.Request, env string) bool {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	t, ok := f.tokens[tok]
	f.mu.Unlock()
	if ok && t.env == env && !t.revoked && time.Now().Before(t.expires) {
		return true
	}
	writeJSON(w, http.StatusUnauthorized, "application/json", map[string]any{"fault": map[string]any{
		"faultstring": "The Token has expired: policy(Verify-JWT)", "detail": map[string]string{"errorcode": "steps.jwt.TokenExpired"}}})
	return false
}

// refuse is ShipIT saying no: error and message headers, empty body.
func refuse(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set(ErrorHeader, code)
	w.Header().Set(MessageHeader, msg)
	w.WriteHeader(status)
}

func writeJSON(w http.ResponseWriter, status int, contentType string, v any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fake) shipit(w http.ResponseWriter, r *http.Request, path string, body []byte, answer answerer) {
	if ct := r.Header.Get("Content-Type"); len(body) > 0 && ct != MediaType {
		f.t.Errorf("ShipIT %s: Content-Type %q, want %q", path, ct, MediaType)
	}
	if a := r.Header.Get("Accept"); a != MediaType {
		f.t.Errorf("ShipIT %s: Accept %q, want %q", path, a, MediaType)
	}
	if f.shipitStatus != 0 {
		w.WriteHeader(f.shipitStatus)
		return
	}
	switch {
	case path == "/rs/shipments":
		f.create(w, r, body)
	case path == "/rs/shipments/reprintparcel":
		f.reprint(w, body)
	case strings.HasPrefix(path, "/rs/shipments/cancel/"):
		f.cancel(w, strings.TrimPrefix(path, "/rs/shipments/cancel/"))
	case path == "/rs/sporadiccollection":
		f.collection(w, body, answer)
	case path == "/rs/shipments/endofday":
		f.endOfDay(w, r.URL.Query().Get("date"), answer)
	default:
		refuse(w, http.StatusNotFound, "NOT_FOUND", "no such resource "+path)
	}
}

type fakeCreate struct {
	Shipment struct {
		ShipmentReference []string
		ShippingDate      string
		Product           string
		Consignee         struct{ Address address }
		Shipper           struct {
			ContactID string
			Address   *address
		}
		ShipmentUnit []struct {
			Weight  float64
			Service []struct{ Cash *cashService }
		}
	}
	PrintingOptions struct{ ReturnLabels returnLabels }
}

func (f *fake) create(w http.ResponseWriter, r *http.Request, body []byte) {
	f.mu.Lock()
	f.bodies["create"] = append(f.bodies["create"], body)
	f.mu.Unlock()
	var req fakeCreate
	if err := json.Unmarshal(body, &req); err != nil {
		refuse(w, http.StatusBadRequest, "INVALID_REQUEST", err.Error())
		return
	}
	sh := req.Shipment
	ref := strings.Join(sh.ShipmentReference, " ")
	switch {
	case strings.HasPrefix(ref, "DOWN"):
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	case strings.HasPrefix(ref, "HANG"):
		<-r.Context().Done()
		return
	case sh.Shipper.ContactID != f.contactID:
		refuse(w, http.StatusBadRequest, "INVALID_CONTACT", "Shipment.Shipper.ContactID: unknown ContactID "+sh.Shipper.ContactID)
		return
	case sh.Consignee.Address.Zipcode == "99999":
		refuse(w, http.StatusBadRequest, "INVALID_ZIPCODE", "Shipment.Consignee.Address.Zipcode: zipcode 99999 is not valid for "+sh.Consignee.Address.CountryCode)
		return
	}
	for i, u := range sh.ShipmentUnit {
		if u.Weight > 40 {
			refuse(w, http.StatusBadRequest, "INVALID_WEIGHT", fmt.Sprintf("Shipment.ShipmentUnit[%d].Weight: %.2f kg exceeds the maximum of 40 kg", i, u.Weight))
			return
		}
	}
	format := map[string]string{"PDF": "pdf", "ZEBRA": "zpl"}[req.PrintingOptions.ReturnLabels.LabelFormat]
	if format == "" {
		refuse(w, http.StatusBadRequest, "INVALID_LABEL_FORMAT", "PrintingOptions.ReturnLabels.LabelFormat not printable by the fake")
		return
	}
	var parcelData []map[string]any
	var parts [][]byte
	f.mu.Lock()
	for i, u := range sh.ShipmentUnit {
		f.seq++
		p := &fakeParcel{trackID: fmt.Sprintf("ZX%06d", f.seq), number: fmt.Sprintf("9383%07d", f.seq), reference: ref,
			noCancel: strings.HasPrefix(ref, "NO-CANCEL")}
		p.label = labels.ParcelLabel{Carrier: "GLS", Product: sh.Product, TrackingNumber: p.number, ParcelIndex: i + 1,
			ParcelCount: len(sh.ShipmentUnit), Weight: fmt.Sprintf("%.2f KG", u.Weight), Reference: ref,
			Recipient: labels.Party{Name: sh.Consignee.Address.Name1, Street: sh.Consignee.Address.Street,
				PostalCode: sh.Consignee.Address.Zipcode, City: sh.Consignee.Address.City, CountryCode: sh.Consignee.Address.CountryCode}}
		for _, s := range u.Service {
			if s.Cash != nil {
				p.label.COD = fmt.Sprintf("%.2f %s", s.Cash.Amount, s.Cash.Currency)
			}
		}
		f.byTrackID[p.trackID], f.byNumber[p.number] = p, p
		data, err := labels.Render(format, p.label)
		if err != nil {
			f.mu.Unlock()
			f.t.Errorf("fake label: %v", err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		parts = append(parts, data)
		parcelData = append(parcelData, map[string]any{"TrackID": p.trackID, "ParcelNumber": p.number,
			"Barcodes": map[string]any{"Primary1D": p.number, "Primary1DPrint": true}})
	}
	f.bookings++
	f.keepForTheDay(body, parcelData)
	f.mu.Unlock()
	doc, err := labels.Merge(format, parts)
	if err != nil {
		f.t.Errorf("fake merge: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	created := map[string]any{"ShipmentReference": sh.ShipmentReference, "ParcelData": parcelData,
		"PrintData":  []map[string]any{{"Data": f.printData(doc), "LabelFormat": req.PrintingOptions.ReturnLabels.LabelFormat}},
		"CustomerID": "2764200001", "PickupLocation": "DE 276"}
	if f.failLabels.Take() {
		delete(created, "PrintData")
	}
	writeJSON(w, http.StatusOK, MediaType, map[string]any{"CreatedShipment": created})
}

func (f *fake) printData(doc []byte) any {
	if f.printDataArray {
		half := len(doc) / 2
		return []string{base64.StdEncoding.EncodeToString(doc[:half]), base64.StdEncoding.EncodeToString(doc[half:])}
	}
	return base64.StdEncoding.EncodeToString(doc)
}

func (f *fake) reprint(w http.ResponseWriter, body []byte) {
	if f.failLabels.Take() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var req struct {
		TrackID         string
		PrintingOptions struct{ ReturnLabels returnLabels }
	}
	if err := json.Unmarshal(body, &req); err != nil {
		refuse(w, http.StatusBadRequest, "INVALID_REQUEST", err.Error())
		return
	}
	f.mu.Lock()
	p := f.byTrackID[req.TrackID]
	f.mu.Unlock()
	if p == nil {
		refuse(w, http.StatusNotFound, "PARCEL_NOT_FOUND", "TrackID "+req.TrackID+" not found")
		return
	}
	if p.cancelled {
		refuse(w, http.StatusBadRequest, "PARCEL_CANCELLED", "TrackID "+req.TrackID+" is cancelled")
		return
	}
	format := map[string]string{"PDF": "pdf", "ZEBRA": "zpl"}[req.PrintingOptions.ReturnLabels.LabelFormat]
	data, err := labels.Render(format, p.label)
	if err != nil {
		refuse(w, http.StatusBadRequest, "INVALID_LABEL_FORMAT", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, MediaType, map[string]any{"CreatedShipment": map[string]any{
		"ParcelData": []map[string]any{{"TrackID": p.trackID, "ParcelNumber": p.number}},
		"PrintData":  []map[string]any{{"Data": f.printData(data), "LabelFormat": req.PrintingOptions.ReturnLabels.LabelFormat}},
		"CustomerID": "2764200001", "PickupLocation": "DE 276"}})
}

func (f *fake) cancel(w http.ResponseWriter, trackID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.byTrackID[trackID]
	switch {
	case p == nil:
		refuse(w, http.StatusNotFound, "PARCEL_NOT_FOUND", "TrackID "+trackID+" not found")
	case p.noCancel:
		refuse(w, http.StatusBadRequest, "CANCELLATION_NOT_POSSIBLE", "TrackID "+trackID+": parcel already scanned, cancellation not possible")
	default:
		p.cancelled = true
		writeJSON(w, http.StatusOK, MediaType, map[string]string{"TrackID": trackID, "Result": "CANCELLED"})
	}
}

// qasParcels are the official test parcels QAS_0000001…QAS_0000012 (one per
// status, ecitrackandtrace.yaml TrackTraceTestDataSet), with events made of
// the event codes the file documents.
var qasParcels = map[string]struct {
	status string
	events []string // oldest first
}{
	"QAS_0000001": {"PLANNEDPICKUP", []string{"INTIAL.PREADVICE"}},
	"QAS_0000002": {"INPICKUP", []string{"INTIAL.PREADVICE", "INTIAL.E48_DATA"}},
	"QAS_0000003": {"NOTPICKEDUP", []string{"INTIAL.PREADVICE", "INTIAL.E48_DATA"}},
	"QAS_0000004": {"PREADVICE", []string{"INTIAL.PREADVICE"}},
	"QAS_0000005": {"INTRANSIT", []string{"INTIAL.PREADVICE", "INTIAL.NORMAL"}},
	"QAS_0000006": {"INDELIVERY", []string{"INTIAL.PREADVICE", "INTIAL.NORMAL"}},
	"QAS_0000007": {"DELIVEREDPS", []string{"INTIAL.PREADVICE", "INTIAL.NORMAL", "DELIVD.PARCELSHOP"}},
	"QAS_0000008": {"DELIVERED", []string{"INTIAL.PREADVICE", "INTIAL.NORMAL"}},
	"QAS_0000009": {"INWAREHOUSE", []string{"INTIAL.PREADVICE", "INTIAL.NORMAL", "CHANGD.MONEWADDR"}},
	"QAS_0000010": {"NOTDELIVERED", []string{"INTIAL.PREADVICE", "INTIAL.NORMAL", "CHANGD.PARCELBOX"}},
	"QAS_0000011": {"CANCELED", []string{"INTIAL.PREADVICE", "CANCEL.NORMAL"}},
	"QAS_0000012": {"FINAL", []string{"INTIAL.PREADVICE", "INTIAL.NORMAL", "DELIVD.PARCELSHOP"}},
}

var eventTexts = map[string]string{
	"INTIAL.PREADVICE":  "The parcel data was entered into the GLS IT system; the parcel was not yet handed over to GLS.",
	"INTIAL.E48_DATA":   "The parcel was provided by the sender for collection by GLS.",
	"INTIAL.NORMAL":     "The parcel was handed over to GLS.",
	"DELIVD.PARCELSHOP": "The parcel has been delivered at the ParcelShop (see ParcelShop information).",
	"CANCEL.NORMAL":     "The parcel data have been deleted from the GLS IT system.",
	"CHANGD.MONEWADDR":  "Change completed for - Delivery at new address",
	"CHANGD.PARCELBOX":  "Change completed for - ParcelLocker",
}

const glsTime = "2006-01-02T15:04:05-0700"

func (f *fake) track(w http.ResponseWriter, r *http.Request, path string) {
	if f.trackStatus != 0 {
		writeJSON(w, f.trackStatus, "application/json", map[string]any{"fault": map[string]any{
			"faultstring": "Rate limit quota violation.", "detail": map[string]string{"errorcode": "policies.ratelimit.QuotaViolation"}}})
		return
	}
	ids := strings.Split(strings.TrimPrefix(path, "/tracking/simple/trackids/"), ",")
	if len(ids) > 10 {
		writeJSON(w, http.StatusBadRequest, "application/json", map[string]any{"type": "about:blank", "title": "Bad Request", "status": 400,
			"detail": fmt.Sprintf("Provided references of size '%d' is more than allowed limit of 10", len(ids)), "instance": path})
		return
	}
	base := time.Date(2026, 11, 20, 8, 0, 0, 0, time.FixedZone("CET", 3600))
	var parcels []map[string]any
	for _, id := range ids {
		status, codes := "", []string(nil)
		if q, ok := qasParcels[id]; ok {
			status, codes = q.status, q.events
		} else {
			f.mu.Lock()
			p := f.byNumber[id]
			f.mu.Unlock()
			if p != nil {
				status, codes = "PREADVICE", []string{"INTIAL.PREADVICE"}
				if p.cancelled {
					status, codes = "CANCELED", []string{"INTIAL.PREADVICE", "CANCEL.NORMAL"}
				}
			}
		}
		if id == "QAS_FAIL" {
			parcels = append(parcels, map[string]any{"requested": id, "errorCode": "E_500_01", "errorMessage": "Internal Server Error"})
			continue
		}
		if status == "" {
			parcels = append(parcels, map[string]any{"requested": id, "errorCode": "E_404_01", "errorMessage": "Resource Not Found"})
			continue
		}
		var events []map[string]any
		for i, c := range codes { // GLS lists newest first
			at := base.Add(time.Duration(i) * time.Hour)
			events = append([]map[string]any{{"code": c, "city": "Neuenstein", "postalCode": "36286", "country": "DE",
				"description": eventTexts[c], "eventDateTime": at.Format(glsTime)}}, events...)
		}
		parcels = append(parcels, map[string]any{"requested": id, "unitno": id, "status": status,
			"statusDateTime": base.Add(time.Duration(len(codes)) * time.Hour).Format(glsTime), "events": events})
	}
	writeJSON(w, http.StatusOK, "application/json", map[string]any{"parcels": parcels})
}
