package allegro

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
	"shipd/platform/carrier"
	"shipd/platform/failswitch"
)

// Credentials and account data the fake Allegro knows.
const (
	testClientID     = "c0ffee00a1b2c3d4e5f6a7b8c9d0e1f2"
	testClientSecret = "s3cr3t-of-the-app"
	testRefreshToken = "rt-stored"
	courierMethod    = "c3066682-97a3-42fe-9eb5-3beeccab840c" // "Allegro Kurier DPD" of the account
	lockerMethod     = "2488f7b7-5d1c-4d65-b85c-4cbcf253fd93" // "Allegro Paczkomaty InPost" of the account
	knownPoint       = "WAW01M"
	handedOver       = "handed-over" // reference of a shipment the fake refuses to cancel
)

func testSettings() carrier.Settings {
	return carrier.Settings{
		"clientId": testClientID, "clientSecret": testClientSecret, "refreshToken": testRefreshToken,
		"deliveryMethodId": courierMethod, "pickupPointDeliveryMethodId": lockerMethod, "sandboxMode": true,
	}
}

// specBase is where the shared spec routes; the fake rewrites each request's
// host to it before checking, so one load serves every test.
const specBase = "http://allegro.test"

var (
	specOnce sync.Once
	spec     *vendorspec.Spec
	specErr  error
)

func loadSpec(t *testing.T) *vendorspec.Spec {
	t.Helper()
	specOnce.Do(func() { spec, specErr = vendorspec.Load("testdata/allegro-public-api.yaml", specBase, fixSpec) })
	if specErr != nil {
		t.Fatalf("Allegro's OpenAPI file: %v", specErr)
	}
	return spec
}

// fixSpec makes the addresses strict too. The file loads as it is, but its
// SenderAddressDto and ReceiverAddressDto are allOf(AddressDto, {point}),
// and PickupAddressDto allOf(AddressDto), which vendorspec leaves open (a
// strict part would refuse the other's properties); flattened into one
// object each, with the same properties and required list, a misspelt
// address field is refused like any other.
//
// It also says which reading of the pickup command shipd follows
// (AssumedPickupTimeReading): the file lists the deprecated
// pickupDateProposalId as required, while its own description says it is
// "required if pickupTime not provided"; shipd sends pickupTime, so the
// proposal id is dropped from the required list and pickupTime is held to
// PickupTimeDto like any object.
func fixSpec(doc *openapi3.T) {
	create := doc.Components.Schemas["PickupCreateRequestDto"].Value
	create.Required = slices.DeleteFunc(slices.Clone(create.Required), func(r string) bool { return r == "pickupDateProposalId" })
	base := doc.Components.Schemas["AddressDto"].Value
	for _, name := range []string{"SenderAddressDto", "ReceiverAddressDto", "PickupAddressDto"} {
		s := doc.Components.Schemas[name].Value
		props := openapi3.Schemas{}
		for k, v := range base.Properties {
			props[k] = v
		}
		for _, part := range s.AllOf {
			for k, v := range part.Value.Properties {
				props[k] = v
			}
		}
		s.AllOf = nil
		s.Type = &openapi3.Types{openapi3.TypeObject}
		s.Required = append([]string(nil), base.Required...)
		s.Properties = props
	}
}

// fakeCommand is a create or cancel command the fake took.
type fakeCommand struct {
	input      shipmentInput // create commands
	shipmentID string        // cancel commands: the shipment; create: the one made
	polls      int           // IN_PROGRESS answers left
	status     string
	errors     []apiError
}

// fakeShipment is a shipment the fake made.
type fakeShipment struct {
	id        string
	input     shipmentInput
	waybills  []string
	created   time.Time
	cancelled bool
	pickupID  string // the pickup that collects it, once one was ordered
}

// fake is Allegro on loopback: the OAuth token endpoint, the shipment
// management commands, labels and tracking, every request and answer of the
// REST API checked against Allegro's OpenAPI file.
type fake struct {
	t      *testing.T
	spec   *vendorspec.Spec
	srv    *httptest.Server
	report func(format string, args ...any)

	mu            sync.Mutex
	calls         []string
	refreshTokens map[string]bool // valid refresh tokens (each used once: rotation)
	accessTokens  map[string]bool
	tokenCalls    int
	refusedGrants int           // refresh tokens refused as used or unknown
	tokenDelay    time.Duration // before a refresh is answered
	serial        int
	creates       map[string]*fakeCommand
	cancels       map[string]*fakeCommand
	shipments     map[string]*fakeShipment
	tracking      map[string][]map[string]any // statuses per waybill
	fail          []int                       // statuses answered to the next API calls
	hang          bool
	pollsPerCmd   int
	retryAfter    string
	dropWaybill   bool                 // the next shipment read lacks its last package's waybill
	failLabels    failswitch.Countdown // the next label calls answer 504, Allegro's documented gateway timeout
	// The shipping day (fake_dispatch_test.go).
	pickupCmds     map[string]*fakePickupCommand
	pickups        map[string]*fakePickup
	lateCarrierNo  bool // a pickup command succeeds before the carrier's number is known
	proposalBodies []proposalsRequest
	protocolCalls  [][]string // shipment ids of each protocol call
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{t: t, spec: loadSpec(t), refreshTokens: map[string]bool{testRefreshToken: true},
		accessTokens: map[string]bool{}, creates: map[string]*fakeCommand{}, cancels: map[string]*fakeCommand{},
		shipments: map[string]*fakeShipment{}, tracking: map[string][]map[string]any{}, pollsPerCmd: 2, retryAfter: "1",
		pickupCmds: map[string]*fakePickupCommand{}, pickups: map[string]*fakePickup{}}
	f.report = t.Errorf
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// carrier is an adapter whose every host is this fake, polling fast.
func (f *fake) carrier() *Carrier {
	return New(Config{ProductionURL: f.srv.URL, SandboxURL: f.srv.URL, ProductionAuthURL: f.srv.URL,
		SandboxAuthURL: f.srv.URL, PollInterval: time.Millisecond})
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

func (f *fake) shipmentCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.shipments)
}

func (f *fake) failNext(statuses ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = append(f.fail, statuses...)
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	hang := f.hang
	status := 0
	if len(f.fail) > 0 && r.URL.Path != tokenPath {
		status, f.fail = f.fail[0], f.fail[1:]
	}
	f.mu.Unlock()
	switch {
	case hang:
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	case r.URL.Path == tokenPath:
		f.token(w, r)
	case !strings.HasPrefix(r.URL.Path, shipmentsBase+"/") && !strings.HasPrefix(r.URL.Path, "/order/"):
		http.NotFound(w, r)
	case status != 0:
		f.answer(w, r, nil, status, errorList{Errors: []apiError{{Code: "INJECTED", Message: http.StatusText(status)}}})
	default:
		f.api(w, r)
	}
}

// token is POST /auth/oauth/token, grant_type=refresh_token with the app's
// id and secret in HTTP Basic. Every refresh token works once, as Allegro
// documents: the answer carries the next, and the used one is refused
// (invalid_grant) from then on.
func (f *fake) token(w http.ResponseWriter, r *http.Request) {
	oauthError := func(status int, code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		f.report("token request: %s, %v", r.Method, err)
	}
	id, secret, ok := r.BasicAuth()
	f.mu.Lock()
	f.tokenCalls++
	delay := f.tokenDelay
	switch {
	case !ok || id != testClientID || secret != testClientSecret:
		f.mu.Unlock()
		oauthError(http.StatusUnauthorized, "invalid_client", "Bad client credentials")
	case r.PostForm.Get("grant_type") != "refresh_token":
		f.mu.Unlock()
		f.report("grant_type = %q, want refresh_token", r.PostForm.Get("grant_type"))
		oauthError(http.StatusBadRequest, "unsupported_grant_type", "Unsupported grant type")
	case !f.refreshTokens[r.PostForm.Get("refresh_token")]:
		f.refusedGrants++
		f.mu.Unlock()
		oauthError(http.StatusBadRequest, "invalid_grant", "Invalid refresh token: "+r.PostForm.Get("refresh_token"))
	default:
		// The used token is retired at once, its successor answered after
		// tokenDelay: a second use meanwhile is refused.
		delete(f.refreshTokens, r.PostForm.Get("refresh_token"))
		f.serial++
		access, refresh := fmt.Sprintf("at-%d", f.serial), fmt.Sprintf("rt-%d", f.serial)
		f.accessTokens[access] = true
		f.refreshTokens[refresh] = true
		f.mu.Unlock()
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "bearer", "refresh_token": refresh,
			"expires_in": 43199, "scope": "allegro:api:shipments:read allegro:api:shipments:write", "allegro_api": true})
	}
}

// revokeAccess forgets every access token, as an early expiry does.
func (f *fake) revokeAccess() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.accessTokens = map[string]bool{}
}

// api checks a REST call against the file, then serves it.
func (f *fake) api(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Accept") == "" || !strings.Contains(r.Header.Get("Accept"), mediaType) && r.URL.Path != shipmentsBase+"/label" {
		f.report("%s %s: Accept %q, want %s", r.Method, r.URL.Path, r.Header.Get("Accept"), mediaType)
	}
	f.mu.Lock()
	authorized := f.accessTokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	f.mu.Unlock()
	check := r.Clone(r.Context())
	check.URL.Scheme, check.URL.Host, check.Host = "http", "allegro.test", "allegro.test"
	req, err := f.spec.CheckRequest(check)
	if err != nil {
		f.report("%v", err)
		f.answer(w, r, nil, http.StatusBadRequest, errorList{Errors: []apiError{{Code: "VALIDATION_ERROR", Message: err.Error()}}})
		return
	}
	if !authorized {
		f.answer(w, r, req, http.StatusUnauthorized, authError{Error: "invalid_token", ErrorDescription: "Invalid access token"})
		return
	}
	body, _ := io.ReadAll(check.Body) // CheckRequest put it back there
	switch req.Operation {
	case "createNewShipment":
		f.createCommand(w, r, req, body)
	case "getShipmentCreationStatus":
		f.createStatus(w, r, req)
	case "getShipmentDetails":
		f.shipmentDetails(w, r, req)
	case "getShipmentLabels":
		f.label(w, r, req, body)
	case "cancelShipment":
		f.cancelCommand(w, r, req, body)
	case "getShipmentCancellationStatus":
		f.cancelStatus(w, r, req)
	case "getParcelTrackingUsingGET":
		f.track(w, r, req)
	case "getPickupProposals":
		f.pickupProposals(w, r, req, body)
	case "createPickup":
		f.pickupCommand(w, r, req, body)
	case "createPickupStatus":
		f.pickupStatus(w, r, req)
	case "getPickupDetails":
		f.pickupDetails(w, r, req)
	case "getShipmentProtocol":
		f.protocol(w, r, req, body)
	default:
		f.report("the adapter called %s (%s)", r.URL.Path, req.Operation)
		http.NotFound(w, r)
	}
}

// answer writes v as Allegro's JSON (nil: no body) after checking it
// against the file when the request was one of its operations.
func (f *fake) answer(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, status int, v any) {
	f.answerRaw(w, r, req, status, mediaType, v)
}

func (f *fake) answerRaw(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, status int, contentType string, v any) {
	var body []byte
	switch b := v.(type) {
	case nil:
	case []byte:
		body = b
	default:
		body, _ = json.Marshal(v)
	}
	if body != nil {
		w.Header().Set("Content-Type", contentType)
	}
	if req != nil {
		if err := f.spec.CheckResponse(r.Context(), req, status, w.Header(), body); err != nil {
			f.report("%v", err)
		}
	}
	w.WriteHeader(status)
	w.Write(body)
}

func (f *fake) createCommand(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, body []byte) {
	var cmd createCommand
	if err := json.Unmarshal(body, &cmd); err != nil {
		f.report("create command: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.creates[cmd.CommandID]; dup {
		// AssumedDuplicateCommandRefused: the second POST makes nothing.
		f.answer(w, r, req, http.StatusBadRequest, errorList{Errors: []apiError{{Code: "COMMAND_ALREADY_EXISTS",
			Message: "Command " + cmd.CommandID + " already exists", UserMessage: "Polecenie już istnieje"}}})
		return
	}
	if errs := refusedAtOnce(cmd.Input); len(errs) > 0 {
		f.answer(w, r, req, http.StatusBadRequest, errorList{Errors: errs})
		return
	}
	f.creates[cmd.CommandID] = &fakeCommand{input: cmd.Input, polls: f.pollsPerCmd, status: commandInProgress}
	w.Header().Set("Retry-After", f.retryAfter)
	f.answer(w, r, req, http.StatusOK, cmd)
}

func ptr(s string) *string { return &s }

// refusedAtOnce is what Allegro's 400 refuses synchronously: an unknown
// delivery method, a receiver email that is not the buyer's Allegro one
// ([V]: "must be a valid buyer email generated by Allegro"), non-positive
// measures.
func refusedAtOnce(in shipmentInput) []apiError {
	var errs []apiError
	if in.DeliveryMethodID != courierMethod && in.DeliveryMethodID != lockerMethod {
		errs = append(errs, apiError{Code: "VALIDATION_ERROR", Path: ptr("deliveryMethodId"), Message: "Unknown delivery method", UserMessage: "Nieznana metoda dostawy"})
	}
	if !strings.HasSuffix(in.Receiver.Email, "@allegromail.pl") {
		errs = append(errs, apiError{Code: "VALIDATION_ERROR", Path: ptr("receiver.email"), Message: "Receiver email must be the buyer's Allegro email"})
	}
	for i, p := range in.Packages {
		if p.Weight.Value <= 0 {
			errs = append(errs, apiError{Code: "VALIDATION_ERROR", Path: ptr(fmt.Sprintf("packages[%d].weight.value", i)), Message: "must be greater than 0"})
		}
		if p.Weight.Unit != unitKG || p.Length.Unit != unitCM || p.Width.Unit != unitCM || p.Height.Unit != unitCM {
			errs = append(errs, apiError{Code: "VALIDATION_ERROR", Path: ptr(fmt.Sprintf("packages[%d]", i)), Message: "unsupported unit"})
		}
	}
	return errs
}

// refusedLater is what the command fails with (status ERROR): the pickup
// point, checked against the carrier.
func refusedLater(in shipmentInput) []apiError {
	switch {
	case in.DeliveryMethodID == lockerMethod && in.Receiver.Point == "":
		return []apiError{{Code: "VALIDATION_ERROR", Path: ptr("receiver.point"), Message: "Point is required for this delivery method"}}
	case in.DeliveryMethodID == lockerMethod && in.Receiver.Point != knownPoint:
		return []apiError{{Code: "POINT_NOT_FOUND", Path: ptr("receiver.point"), Message: "Point " + in.Receiver.Point + " does not exist", UserMessage: "Punkt nie istnieje"}}
	case in.DeliveryMethodID == courierMethod && in.Receiver.Point != "":
		return []apiError{{Code: "VALIDATION_ERROR", Path: ptr("receiver.point"), Message: "Point is not allowed for this delivery method"}}
	}
	return nil
}

func (f *fake) createStatus(w http.ResponseWriter, r *http.Request, req *vendorspec.Request) {
	id := req.PathParams["commandId"]
	f.mu.Lock()
	defer f.mu.Unlock()
	cmd := f.creates[id]
	if cmd == nil {
		f.answer(w, r, req, http.StatusNotFound, nil)
		return
	}
	if cmd.status == commandInProgress {
		if cmd.polls > 0 {
			cmd.polls--
		} else if errs := refusedLater(cmd.input); errs != nil {
			cmd.status, cmd.errors = commandError, errs
		} else {
			cmd.status = commandSuccess
			cmd.shipmentID = f.makeShipment(cmd.input)
		}
	}
	f.answer(w, r, req, http.StatusOK, commandStatus{CommandID: id, Status: cmd.status, Errors: cmd.errors, ShipmentID: cmd.shipmentID})
}

// makeShipment stores a new shipment, one waybill per package (mu held).
func (f *fake) makeShipment(in shipmentInput) string {
	f.serial++
	sh := &fakeShipment{id: fmt.Sprintf("ba88f0fb-acf3-438a-877e-%012d", f.serial), input: in, created: time.Now().UTC()}
	for i := range in.Packages {
		sh.waybills = append(sh.waybills, fmt.Sprintf("A%06dE5D2%02d", f.serial, i+1))
	}
	f.shipments[sh.id] = sh
	return sh.id
}

func (f *fake) shipmentDetails(w http.ResponseWriter, r *http.Request, req *vendorspec.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.shipments[req.PathParams["shipmentId"]]
	if sh == nil {
		f.answer(w, r, req, http.StatusNotFound, errorList{Errors: []apiError{{Code: "NOT_FOUND", Message: "Shipment not found"}}})
		return
	}
	packages := make([]map[string]any, len(sh.input.Packages))
	for i, p := range sh.input.Packages {
		packages[i] = map[string]any{"waybill": sh.waybills[i], "type": p.Type, "length": p.Length, "width": p.Width,
			"height": p.Height, "weight": p.Weight, "transportingInfo": []map[string]any{{"carrierId": "ALLEGRO", "carrierWaybill": sh.waybills[i]}}}
	}
	if f.dropWaybill {
		// Numbered a little later (waybill is optional in PackageDto [V]).
		f.dropWaybill = false
		last := packages[len(packages)-1]
		delete(last, "waybill")
		delete(last, "transportingInfo")
	}
	out := map[string]any{"id": sh.id, "deliveryMethodId": sh.input.DeliveryMethodID, "sender": sh.input.Sender,
		"receiver": sh.input.Receiver, "packages": packages, "createdDate": sh.created.Format(time.RFC3339),
		"carrier": "ALLEGRO", "labelFormat": sh.input.LabelFormat, "transport": []string{"ALLEGRO"}, "pickupAvailable": true}
	if sh.input.ReferenceNumber != "" {
		out["referenceNumber"] = sh.input.ReferenceNumber
	}
	if sh.input.CashOnDelivery != nil {
		out["cashOnDelivery"] = sh.input.CashOnDelivery
	}
	if sh.cancelled {
		out["canceledDate"] = time.Now().UTC().Format(time.RFC3339)
	}
	f.answer(w, r, req, http.StatusOK, out)
}

// label answers one file holding every package's label of the shipments,
// in the format they were created with.
func (f *fake) label(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, body []byte) {
	var lr labelRequest
	json.Unmarshal(body, &lr)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failLabels.Take() {
		f.answer(w, r, req, http.StatusGatewayTimeout, errorList{Errors: []apiError{{Code: "UPSTREAM_SERVICE_TIMEOUT",
			Details: "Timeout error", Message: "Error connecting to the courier company's system"}}})
		return
	}
	var parts [][]byte
	format := ""
	for _, id := range lr.ShipmentIDs {
		sh := f.shipments[id]
		if sh == nil {
			f.answer(w, r, req, http.StatusNotFound, errorList{Errors: []apiError{{Code: "NOT_FOUND", Message: "Shipment " + id + " not found"}}})
			return
		}
		format = strings.ToLower(sh.input.LabelFormat)
		// pageSize is "only for PDF file" [V]: a ZPL shipment's labels ignore it.
		for i, wb := range sh.waybills {
			data, err := labels.Render(format, labels.ParcelLabel{Carrier: "Allegro", Product: sh.input.DeliveryMethodID[:8],
				TrackingNumber: wb, ParcelIndex: i + 1, ParcelCount: len(sh.waybills), Reference: sh.input.ReferenceNumber,
				Sender:    labels.Party{Name: sh.input.Sender.Name, Street: sh.input.Sender.Street, PostalCode: sh.input.Sender.PostalCode, City: sh.input.Sender.City, CountryCode: sh.input.Sender.CountryCode},
				Recipient: labels.Party{Name: sh.input.Receiver.Name, Street: sh.input.Receiver.Street, PostalCode: sh.input.Receiver.PostalCode, City: sh.input.Receiver.City, CountryCode: sh.input.Receiver.CountryCode},
				Weight:    fmt.Sprintf("%.2f KG", sh.input.Packages[i].Weight.Value)})
			if err != nil {
				f.t.Fatalf("rendering a label: %v", err)
			}
			parts = append(parts, data)
		}
	}
	merged, err := labels.Merge(format, parts)
	if err != nil {
		f.t.Fatalf("merging labels: %v", err)
	}
	f.answerRaw(w, r, req, http.StatusOK, "application/octet-stream", merged)
}

func (f *fake) cancelCommand(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, body []byte) {
	var cmd struct {
		CommandID string `json:"commandId"`
		Input     struct {
			ShipmentID string `json:"shipmentId"`
		} `json:"input"`
	}
	json.Unmarshal(body, &cmd)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.cancels[cmd.CommandID]; dup {
		f.answer(w, r, req, http.StatusBadRequest, errorList{Errors: []apiError{{Code: "COMMAND_ALREADY_EXISTS", Message: "Command already exists"}}})
		return
	}
	if f.shipments[cmd.Input.ShipmentID] == nil {
		f.answer(w, r, req, http.StatusBadRequest, errorList{Errors: []apiError{{Code: "NOT_FOUND", Path: ptr("input.shipmentId"), Message: "Shipment not found"}}})
		return
	}
	f.cancels[cmd.CommandID] = &fakeCommand{shipmentID: cmd.Input.ShipmentID, polls: f.pollsPerCmd, status: commandInProgress}
	w.Header().Set("Retry-After", f.retryAfter)
	f.answer(w, r, req, http.StatusOK, cmd)
}

func (f *fake) cancelStatus(w http.ResponseWriter, r *http.Request, req *vendorspec.Request) {
	id := req.PathParams["commandId"]
	f.mu.Lock()
	defer f.mu.Unlock()
	cmd := f.cancels[id]
	if cmd == nil {
		f.answer(w, r, req, http.StatusNotFound, nil)
		return
	}
	if cmd.status == commandInProgress {
		sh := f.shipments[cmd.shipmentID]
		switch {
		case cmd.polls > 0:
			cmd.polls--
		case sh.cancelled:
			// Cancelled before, by another command or in Allegro's panel:
			// the command fails (its error code is not documented [U]; the
			// adapter reads the shipment's canceledDate instead).
			cmd.status, cmd.errors = commandError, []apiError{{Code: "CANCELLATION_NOT_POSSIBLE",
				Message: "Shipment is already canceled", UserMessage: "Przesyłka została już anulowana"}}
		case sh.input.ReferenceNumber == handedOver:
			cmd.status, cmd.errors = commandError, []apiError{{Code: "CANCELLATION_NOT_POSSIBLE",
				Message: "Shipment was already handed over to the carrier", UserMessage: "Przesyłka została już nadana"}}
		default:
			cmd.status, sh.cancelled = commandSuccess, true
		}
	}
	if cmd.status == commandInProgress {
		w.Header().Set("Retry-After", f.retryAfter)
	}
	f.answer(w, r, req, http.StatusOK, commandStatus{CommandID: id, Status: cmd.status, Errors: cmd.errors, ShipmentID: cmd.shipmentID})
}

// track is GET /order/carriers/{carrierId}/tracking: carrier ALLEGRO only.
func (f *fake) track(w http.ResponseWriter, r *http.Request, req *vendorspec.Request) {
	if req.PathParams["carrierId"] != AssumedDefaultCarrierID {
		f.answer(w, r, req, http.StatusBadRequest, nil)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var waybills []map[string]any
	for _, wb := range r.URL.Query()["waybill"] {
		entry := map[string]any{"waybill": wb}
		if st := f.tracking[wb]; st != nil {
			entry["trackingDetails"] = map[string]any{"statuses": st, "createdAt": st[0]["occurredAt"], "updatedAt": st[len(st)-1]["occurredAt"]}
		}
		waybills = append(waybills, entry)
	}
	f.answer(w, r, req, http.StatusOK, map[string]any{"carrierId": AssumedDefaultCarrierID, "waybills": waybills})
}

// addTracking gives waybill a history of codes, an hour apart.
func (f *fake) addTracking(waybill string, codes ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	for i, c := range codes {
		st := map[string]any{"code": c, "occurredAt": start.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)}
		if c == "ISSUE" {
			st["description"] = "Parcel refused by the receiver"
		}
		f.tracking[waybill] = append(f.tracking[waybill], st)
	}
}

func (f *fake) tokenCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenCalls
}

// commands counts the create or cancel commands the fake took.
func (f *fake) commands(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if kind == "cancel" {
		return len(f.cancels)
	}
	return len(f.creates)
}
