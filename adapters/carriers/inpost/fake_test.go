package inpost

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
	"shipd/platform/failswitch"
)

// fakeShipX is a ShipX look-alike on loopback: Bearer token, organization,
// asynchronous shipments (created → offer_selected → confirmed, one step per
// GET), binary labels, DELETE, tracking, ShipX's error bodies. It checks
// what the adapter sends and fails the test when a request is malformed.
type fakeShipX struct {
	t      *testing.T
	srv    *httptest.Server
	spec   *vendorspec.Spec                 // testdata/shipx.yaml, strict
	report func(format string, args ...any) // a request ShipX would refuse: t.Errorf unless a test listens
	stop   chan struct{}                    // closed when the test ends: hanging calls return

	mu        sync.Mutex
	token     string               // the only valid token; change it to revoke
	org       string               // the token's organization
	stepsToGo int                  // GETs a new shipment needs before it is confirmed; <0 never
	down      bool                 // every call answers 503
	hang      bool                 // every call blocks until the client gives up
	noOffer   bool                 // shipments are confirmed without a selected offer (no price)
	failLabel failswitch.Countdown // the next label calls answer 503, as when down
	shipments map[string]*fakeShipment
	nextID    int
	nextTN    int
	tracking  map[string][]fakeEvent // extra histories by tracking number
	calls     []string               // "METHOD path" of every call
	creates   []map[string]any       // bodies of the create calls
	// The shipping day (fake_dispatch_test.go).
	orders       map[string]*fakeOrder
	orderSteps   int                  // GETs a new dispatch order needs before InPost decides; <0 never
	orderForms   []map[string]any     // bodies of the dispatch order create calls
	printoutIDs  [][]string           // shipment_ids[] of each printouts call
	failPrintout failswitch.Countdown // the next printouts calls answer printout_generation_failed
}

type fakeShipment struct {
	id        int
	orderID   int // the dispatch order that collects it; 0 none
	status    string
	stepsToGo int
	body      map[string]any
	service   string
	tns       []string
	labelsFor []labels.ParcelLabel
}

type fakeEvent struct{ Status, Agency, Datetime string }

func newFake(t *testing.T) *fakeShipX {
	f := &fakeShipX{t: t, token: "secret-token", org: "1234", stepsToGo: 2,
		shipments: map[string]*fakeShipment{}, nextID: 100, nextTN: 1, tracking: map[string][]fakeEvent{},
		orders: map[string]*fakeOrder{}, orderSteps: 2}
	f.report = t.Errorf
	f.stop = make(chan struct{})
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	t.Cleanup(func() { close(f.stop) }) // runs first
	spec, err := vendorspec.Load("testdata/shipx.yaml", f.srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.spec = spec
	return f
}

// ShipX's label files are binary: read as files, not decoded.
func init() {
	for _, ct := range []string{"application/pdf", "text/zpl", "text/epl", "application/zip"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

func (f *fakeShipX) URL() string { return f.srv.URL }

func (f *fakeShipX) set(fn func(*fakeShipX)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeShipX) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// shipXError writes ShipX's error body.
func shipXError(w http.ResponseWriter, status int, code, msg string, details any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body := map[string]any{"status": status, "error": code, "message": msg}
	if details != nil {
		body["details"] = details
	}
	_ = json.NewEncoder(w).Encode(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

var (
	reOrgShipments = regexp.MustCompile(`^/v1/organizations/([^/]+)/shipments$`)
	reOrg          = regexp.MustCompile(`^/v1/organizations/([^/]+)$`)
	reShipment     = regexp.MustCompile(`^/v1/shipments/([^/]+)$`)
	reLabel        = regexp.MustCompile(`^/v1/shipments/([^/]+)/label$`)
	reTracking     = regexp.MustCompile(`^/v1/tracking/([^/]+)$`)
)

func (f *fakeShipX) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	down, hang, token, report := f.down, f.hang, f.token, f.report
	if reLabel.MatchString(r.URL.Path) && f.failLabel.Take() {
		down = true
	}
	f.mu.Unlock()
	if hang {
		// Reading the body lets the server notice the client hanging up.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-f.stop:
		}
		return
	}
	if down {
		http.Error(w, "<html>503 Service Temporarily Unavailable</html>", http.StatusServiceUnavailable)
		return
	}
	checked, err := f.spec.CheckRequest(r)
	if err != nil {
		// ShipX refuses what its documentation does not allow; here it is
		// also a bug of the adapter unless a test listens.
		report("fake: %v", err)
		shipXError(w, http.StatusBadRequest, "validation_failed", err.Error(), map[string]any{})
		return
	}
	// The answer is recorded so that it can be held to the document too.
	err = f.spec.Answer(w, checked, func(rec http.ResponseWriter) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			shipXError(rec, http.StatusUnauthorized, "token_invalid", "Token is missing or invalid.", nil)
		} else {
			f.route(rec, r)
		}
	})
	if err != nil {
		f.t.Errorf("fake: %v", err)
	}
}

// route answers a request the document allows and the token opens.
func (f *fakeShipX) route(w http.ResponseWriter, r *http.Request) {
	if lang := r.Header.Get("Accept-Language"); lang != "" && !slices.Contains([]string{"keys", "en_GB", "pl_PL"}, lang) {
		f.t.Errorf("fake: Accept-Language %q is not one ShipX knows", lang)
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && reOrg.MatchString(p):
		f.getOrganization(w, reOrg.FindStringSubmatch(p)[1])
	case r.Method == http.MethodPost && reOrgShipments.MatchString(p):
		f.createShipment(w, r, reOrgShipments.FindStringSubmatch(p)[1])
	case r.Method == http.MethodGet && reShipment.MatchString(p):
		f.getShipment(w, reShipment.FindStringSubmatch(p)[1])
	case r.Method == http.MethodDelete && reShipment.MatchString(p):
		f.cancel(w, reShipment.FindStringSubmatch(p)[1])
	case r.Method == http.MethodGet && reLabel.MatchString(p):
		f.label(w, r, reLabel.FindStringSubmatch(p)[1])
	case r.Method == http.MethodGet && reTracking.MatchString(p):
		f.track(w, reTracking.FindStringSubmatch(p)[1])
	case f.routeDispatch(w, r):
	default:
		f.t.Errorf("fake: unexpected call %s %s", r.Method, p)
		shipXError(w, http.StatusNotFound, "resource_not_found", "Resource not found", nil)
	}
}

func (f *fakeShipX) checkOrg(w http.ResponseWriter, org string) bool {
	switch {
	case org == f.org:
		return true
	case org == "forbidden":
		shipXError(w, http.StatusForbidden, "access_forbidden", "You do not have permission to access this resource.", nil)
	default:
		shipXError(w, http.StatusNotFound, "resource_not_found", "Resource not found", nil)
	}
	return false
}

func (f *fakeShipX) getOrganization(w http.ResponseWriter, org string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.checkOrg(w, org) {
		return
	}
	id, _ := strconv.Atoi(org)
	writeJSON(w, http.StatusOK, map[string]any{"href": f.srv.URL + "/v1/organizations/" + org, "id": id,
		"name": "Sklep testowy", "status": "confirmed", "services": productCodes})
}

// knownLockers are the parcel lockers the fake's ShipX has; another
// target_point does not exist [U: ShipX's key for it].
var knownLockers = map[string]bool{"KRA010": true, "WAW22A": true, "POZ08M": true}

var (
	rePhone    = regexp.MustCompile(`^\d{9}$`)
	rePostCode = regexp.MustCompile(`^\d{2}-\d{3}$`)
)

// validateShipment is ShipX's validation as far as the fake knows it; it
// returns details nested like the request ({"receiver":{"phone":[…]}}).
func validateShipment(b map[string]any) map[string]any {
	details := map[string]any{}
	add := func(msg string, path ...string) {
		m := details
		for _, k := range path[:len(path)-1] {
			sub, _ := m[k].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
				m[k] = sub
			}
			m = sub
		}
		last := path[len(path)-1]
		list, _ := m[last].([]any)
		m[last] = append(list, msg)
	}
	service, _ := b["service"].(string)
	if !slices.Contains(productCodes, service) {
		add("invalid", "service")
	}
	locker := service == ServiceLockerStandard
	checkParty := func(name string, required bool) {
		p, ok := b[name].(map[string]any)
		if !ok {
			if required {
				add("required", name)
			}
			return
		}
		if s, _ := p["phone"].(string); !rePhone.MatchString(s) {
			add("invalid", name, "phone")
		}
		if s, _ := p["email"].(string); !strings.Contains(s, "@") {
			add("invalid", name, "email")
		}
		_, hasCompany := p["company_name"].(string)
		_, hasFirst := p["first_name"].(string)
		if !hasCompany && !hasFirst {
			add("required", name, "first_name")
		}
		a, ok := p["address"].(map[string]any)
		if !ok {
			if !locker || name == "sender" {
				add("required", name, "address")
			}
			return
		}
		for _, k := range []string{"street", "building_number", "city", "post_code", "country_code"} {
			if s, _ := a[k].(string); s == "" {
				add("required", name, "address", k)
			}
		}
		if s, _ := a["post_code"].(string); s != "" && !rePostCode.MatchString(s) {
			add("invalid", name, "address", "post_code")
		}
		if s, _ := a["country_code"].(string); s != "" && s != "PL" {
			add("invalid", name, "address", "country_code")
		}
	}
	checkParty("receiver", true)
	checkParty("sender", false)

	parcels, _ := b["parcels"].([]any)
	switch {
	case len(parcels) == 0 || len(parcels) > 1000:
		add("invalid", "parcels")
	case locker && len(parcels) > 1:
		add("too_many_parcels", "parcels")
	}
	var parcelDetails []any
	bad := false
	for _, raw := range parcels {
		pd := map[string]any{}
		p, _ := raw.(map[string]any)
		if tmpl, ok := p["template"].(string); ok {
			if !slices.Contains([]string{"small", "medium", "large"}, tmpl) {
				pd["template"] = []any{"invalid"}
			}
		} else {
			d, _ := p["dimensions"].(map[string]any)
			if d == nil || d["unit"] != "mm" {
				pd["dimensions"] = []any{"invalid"}
			} else {
				for _, k := range []string{"length", "width", "height"} {
					if v, ok := d[k].(float64); !ok || v <= 0 {
						pd["dimensions"] = []any{"invalid"}
					}
				}
			}
			wt, _ := p["weight"].(map[string]any)
			amount, _ := wt["amount"].(float64)
			switch {
			case wt == nil || wt["unit"] != "kg" || amount <= 0:
				pd["weight"] = []any{"invalid"}
			case locker && amount > 25, amount > 50:
				pd["weight"] = []any{"too_heavy"}
			}
		}
		if _, ok := p["is_non_standard"].(bool); !ok {
			pd["is_non_standard"] = []any{"required"}
		}
		if len(pd) > 0 {
			bad = true
		}
		parcelDetails = append(parcelDetails, pd)
	}
	if bad {
		details["parcels"] = parcelDetails
	}
	attrs, _ := b["custom_attributes"].(map[string]any)
	if locker {
		switch s, _ := attrs["target_point"].(string); {
		case s == "":
			add("required", "custom_attributes", "target_point")
		case !knownLockers[s]:
			add("does_not_exist", "custom_attributes", "target_point")
		}
	}
	if cod, ok := b["cod"].(map[string]any); ok {
		amount, _ := cod["amount"].(float64)
		if amount <= 0 {
			add("invalid", "cod", "amount")
		}
		if cod["currency"] != "PLN" {
			add("invalid", "cod", "currency")
		}
		if insuranceWithCOD[service] {
			ins, _ := b["insurance"].(map[string]any)
			insAmount, _ := ins["amount"].(float64)
			if insAmount < amount {
				add("must_be_greater_or_equal_cod", "insurance", "amount")
			}
		}
	}
	return details
}

func (f *fakeShipX) createShipment(w http.ResponseWriter, r *http.Request, org string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.checkOrg(w, org) {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		f.t.Errorf("fake: create with Content-Type %q", r.Header.Get("Content-Type"))
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		f.t.Errorf("fake: create body is not JSON: %v", err)
		shipXError(w, http.StatusBadRequest, "invalid_json", "Invalid JSON", nil)
		return
	}
	f.creates = append(f.creates, body)
	if d := validateShipment(body); len(d) > 0 {
		shipXError(w, http.StatusBadRequest, "validation_failed", "There are some validation errors. Check details object for more info.", d)
		return
	}
	f.nextID++
	sh := &fakeShipment{id: f.nextID, status: "created", stepsToGo: f.stepsToGo, body: body}
	sh.service, _ = body["service"].(string)
	f.shipments[strconv.Itoa(sh.id)] = sh
	writeJSON(w, http.StatusCreated, f.view(sh))
}

// advance moves a shipment one step on: created → offer_selected → confirmed.
func (f *fakeShipX) advance(sh *fakeShipment) {
	if sh.status == "confirmed" || sh.status == "canceled" || sh.stepsToGo < 0 {
		return
	}
	sh.stepsToGo--
	switch {
	case sh.stepsToGo <= 0:
		sh.status = "confirmed"
		parcels, _ := sh.body["parcels"].([]any)
		for i := range parcels {
			tn := fmt.Sprintf("6200%020d", f.nextTN)
			f.nextTN++
			sh.tns = append(sh.tns, tn)
			sh.labelsFor = append(sh.labelsFor, labels.ParcelLabel{
				Carrier: "InPost", Product: sh.service, TrackingNumber: tn,
				ParcelIndex: i + 1, ParcelCount: len(parcels),
				Recipient: labels.Party{Name: "Receiver", City: "Kraków", CountryCode: "PL"},
			})
		}
	default:
		sh.status = "offer_selected"
	}
}

func (f *fakeShipX) view(sh *fakeShipment) map[string]any {
	out := map[string]any{"href": fmt.Sprintf("%s/v1/shipments/%d", f.srv.URL, sh.id), "id": sh.id, "status": sh.status,
		"service": sh.service, "tracking_number": nil, "receiver": sh.body["receiver"], "sender": sh.body["sender"],
		"cod": sh.body["cod"], "insurance": sh.body["insurance"], "reference": sh.body["reference"],
		"created_at": "2026-11-21T10:00:00.000+01:00", "offers": []any{}, "selected_offer": nil}
	parcels, _ := sh.body["parcels"].([]any)
	var ps []any
	for i, raw := range parcels {
		p, _ := raw.(map[string]any)
		q := map[string]any{"id": fmt.Sprintf("p%d", i), "template": nil, "dimensions": p["dimensions"],
			"weight": p["weight"], "is_non_standard": p["is_non_standard"], "tracking_number": nil}
		if i < len(sh.tns) {
			q["tracking_number"] = sh.tns[i]
		}
		ps = append(ps, q)
	}
	out["parcels"] = ps
	if attrs, _ := sh.body["custom_attributes"].(map[string]any); attrs != nil || sh.orderID != 0 {
		view := map[string]any{}
		for k, v := range attrs {
			view[k] = v
		}
		if sh.orderID != 0 {
			view["dispatch_order_id"] = sh.orderID
		}
		out["custom_attributes"] = view
	}
	if len(sh.tns) > 0 {
		out["tracking_number"] = sh.tns[0]
	}
	if (sh.status == "offer_selected" || sh.status == "confirmed") && !f.noOffer {
		offer := map[string]any{"id": sh.id * 10, "status": "selected", "rate": 13.99, "currency": "PLN",
			"service": map[string]any{"id": sh.service}}
		if sh.status == "confirmed" {
			offer["status"] = "bought"
		}
		out["offers"] = []any{offer}
		out["selected_offer"] = offer
	}
	return out
}

func (f *fakeShipX) lookup(w http.ResponseWriter, id string) *fakeShipment {
	sh := f.shipments[id]
	if sh == nil {
		shipXError(w, http.StatusNotFound, "resource_not_found", "Resource not found", nil)
	}
	return sh
}

func (f *fakeShipX) getShipment(w http.ResponseWriter, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.lookup(w, id)
	if sh == nil {
		return
	}
	f.advance(sh)
	writeJSON(w, http.StatusOK, f.view(sh))
}

func (f *fakeShipX) cancel(w http.ResponseWriter, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.lookup(w, id)
	if sh == nil {
		return
	}
	switch sh.status {
	case "created", "offers_prepared", "offer_selected":
		sh.status = "canceled"
		w.WriteHeader(http.StatusNoContent)
	default:
		shipXError(w, http.StatusBadRequest, "invalid_action",
			fmt.Sprintf("Action (cancel) can not be taken on shipment with status (%s).", sh.status),
			map[string]any{"action": "cancel", "shipment_status": sh.status})
	}
}

func (f *fakeShipX) label(w http.ResponseWriter, r *http.Request, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.lookup(w, id)
	if sh == nil {
		return
	}
	q := r.URL.Query()
	format := map[string]string{"Pdf": "pdf", "Zpl": "zpl", "Epl": "epl"}[q.Get("format")]
	if format == "" {
		f.t.Errorf("fake: label format %q", q.Get("format"))
		shipXError(w, http.StatusBadRequest, "validation_failed", "There are some validation errors.", map[string]any{"format": []any{"invalid"}})
		return
	}
	typ := q.Get("type")
	if !slices.Contains([]string{"normal", "A6", "dpi300"}, typ) || (sh.service != ServiceLockerStandard && typ != "A6") {
		f.t.Errorf("fake: label type %q for %s", typ, sh.service)
		shipXError(w, http.StatusBadRequest, "validation_failed", "There are some validation errors.", map[string]any{"type": []any{"invalid"}})
		return
	}
	if sh.status != "confirmed" {
		shipXError(w, http.StatusBadRequest, "invalid_action",
			fmt.Sprintf("Action (label) can not be taken on shipment with status (%s).", sh.status), nil)
		return
	}
	var parts [][]byte
	for _, l := range sh.labelsFor {
		b, err := labels.Render(format, l)
		if err != nil {
			f.t.Errorf("fake: render: %v", err)
		}
		parts = append(parts, b)
	}
	file, err := labels.Merge(format, parts)
	if err != nil {
		f.t.Errorf("fake: merge: %v", err)
	}
	ct := map[string]string{"pdf": "application/pdf", "zpl": "text/zpl", "epl": "text/epl"}[format]
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="label_%d.%s"`, sh.id, format))
	_, _ = w.Write(file)
}

func (f *fakeShipX) track(w http.ResponseWriter, number string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	events, ok := f.tracking[number]
	if !ok {
		for _, sh := range f.shipments {
			if slices.Contains(sh.tns, number) {
				ok = true
				events = []fakeEvent{{"confirmed", "", "2026-11-21T10:00:00.000+01:00"}}
			}
		}
	}
	if !ok {
		shipXError(w, http.StatusNotFound, "resource_not_found", "Resource not found", nil)
		return
	}
	var details []any
	for i := len(events) - 1; i >= 0; i-- { // newest first, as ShipX lists them
		e := events[i]
		details = append(details, map[string]any{"status": e.Status, "origin_status": strings.ToUpper(e.Status),
			"agency": e.Agency, "datetime": e.Datetime})
	}
	last := events[len(events)-1]
	writeJSON(w, http.StatusOK, map[string]any{"tracking_number": number, "type": "inpost_courier_standard",
		"service": "inpost_courier_standard", "status": last.Status, "custom_attributes": map[string]any{},
		"created_at": events[0].Datetime, "updated_at": last.Datetime, "tracking_details": details,
		"expected_flow": []any{}})
}

// at is a ShipX datetime minutes after a fixed start.
func at(min int) string {
	return time.Date(2026, 11, 21, 10, 0, 0, 0, time.FixedZone("CET", 3600)).Add(time.Duration(min) * time.Minute).Format("2006-01-02T15:04:05.000-07:00")
}
