package ppl

// A fake of PPL's CPL API (myAPI2) on loopback HTTP, shaped as PPL's CPL API
// reference (ppl-cpl-api-en.apidog.io) and the community clients named in
// ppl.go describe it: OAuth2 client-credentials token endpoint, the
// asynchronous shipment batch, label documents fetched with the Bearer
// token, cancel, tracking and RFC 7807 problem+json errors. It checks what
// the adapter sends and fails the test on what PPL would not accept in a
// way the adapter should never cause (wrong content type, missing fields,
// wrong JSON types); what a user can cause (bad postal code, COD on the
// wrong product) it answers like PPL, with 400 problem+json.

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

	"shipd/adapters/labels"
)

const fakePrefix = "/ecs/ppl/myapi2"

// The product codes PPL knows (its GET /codelist/product, as far as the
// pplmyapi client's Product enum lists them) and which carry cash on delivery.
var (
	fakeProducts    = []string{"BUSS", "BUSD", "PRIV", "PRID", "SMAR", "SMAD", "SMEU", "SMED", "CONN", "COND", "DOPO", "DOPD", "COPL", "IMPO", "RETD", "RECI", "RECE"}
	fakeCODProducts = []string{"BUSD", "PRID", "SMAD", "SMED", "COND", "DOPD"}
	fakeFormats     = []string{"Zpl", "Pdf", "Jpeg", "Png", "Svg"}
)

type fakeItem struct {
	ref, number string
	label       labels.ParcelLabel
	errCode     string
	errMsg      string
}

type fakeBatch struct {
	id     string
	format string // Pdf, Zpl
	items  []*fakeItem
	polls  int
}

type fakeShipment struct {
	number   string
	product  string
	state    string
	updated  string
	events   []map[string]any
	pickedUp bool
}

type fakePPL struct {
	t    *testing.T
	name string
	srv  *httptest.Server

	mu              sync.Mutex
	clientID        string
	clientSecret    string
	tokenTTL        int // seconds
	tokens          map[string]time.Time
	tokenCalls      int
	tokenTimes      []time.Time
	batches         map[string]*fakeBatch
	shipments       map[string]*fakeShipment
	serial          int
	pollsToComplete int
	failStatus      int    // answer this status to API calls (not the token endpoint)
	failCount       int    // how many times; -1 = always
	failOn          string // only requests starting so ("GET /shipment/batch/"); "" = all
	hang            bool
	requests        []string // "METHOD /path" without the prefix
	bodies          []map[string]any
}

func newFake(t *testing.T, name string) *fakePPL {
	f := &fakePPL{t: t, name: name, clientID: "client-1", clientSecret: "secret-1", tokenTTL: 1800,
		tokens: map[string]time.Time{}, batches: map[string]*fakeBatch{}, shipments: map[string]*fakeShipment{},
		pollsToComplete: 1, serial: 400000000}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+fakePrefix+"/login/getAccessToken", f.token)
	mux.HandleFunc("POST "+fakePrefix+"/shipment/batch", f.auth(f.createBatch))
	mux.HandleFunc("GET "+fakePrefix+"/shipment/batch/{id}", f.auth(f.getBatch))
	mux.HandleFunc("PUT "+fakePrefix+"/shipment/batch/{id}", f.auth(f.putBatch))
	mux.HandleFunc("GET "+fakePrefix+"/shipment/batch/{id}/label", f.auth(f.label))
	mux.HandleFunc("POST "+fakePrefix+"/shipment/{n}/cancel", f.auth(f.cancel))
	mux.HandleFunc("GET "+fakePrefix+"/shipment", f.auth(f.track))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.t.Errorf("%s fake: unexpected %s %s", f.name, r.Method, r.URL.Path)
		problemJSON(w, http.StatusNotFound, "NotFound", "", nil)
	})
	f.srv = httptest.NewServer(f.record(mux))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakePPL) base() string { return f.srv.URL + fakePrefix }

// record notes every request and plays the injected faults.
func (f *fakePPL) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, fakePrefix)
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+path)
		hang := f.hang
		fail := 0
		if path != "/login/getAccessToken" && f.failCount != 0 && strings.HasPrefix(r.Method+" "+path, f.failOn) {
			fail = f.failStatus
			if f.failCount > 0 {
				f.failCount--
			}
		}
		f.mu.Unlock()
		if hang {
			// Read the body so the server notices the client leaving.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
				f.t.Errorf("%s fake: the client did not give up on %s %s", f.name, r.Method, r.URL.Path)
			}
			return
		}
		if fail != 0 {
			problemJSON(w, fail, http.StatusText(fail), "injected failure", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func problemJSON(w http.ResponseWriter, status int, title, detail string, errs map[string][]string) {
	body := map[string]any{"type": "https://asp.net/core", "title": title, "status": status}
	if detail != "" {
		body["detail"] = detail
	}
	if errs != nil {
		body["detail"] = "Please refer to the errors property for additional details."
		body["errors"] = errs
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// token is POST /login/getAccessToken: form-urlencoded client credentials,
// scope myapi2; at most 12 tokens a minute.
func (f *fakePPL) token(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		f.t.Errorf("token request content type %q", r.Header.Get("Content-Type"))
	}
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("token request form: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokenCalls++
	now := time.Now()
	recent := f.tokenTimes[:0]
	for _, at := range f.tokenTimes {
		if now.Sub(at) < time.Minute {
			recent = append(recent, at)
		}
	}
	f.tokenTimes = recent
	if len(f.tokenTimes) >= 12 {
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "too_many_requests"})
		return
	}
	f.tokenTimes = append(f.tokenTimes, now)
	if g := r.PostForm.Get("grant_type"); g != "client_credentials" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if s := r.PostForm.Get("scope"); s != "myapi2" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_scope"})
		return
	}
	if r.PostForm.Get("client_id") != f.clientID || r.PostForm.Get("client_secret") != f.clientSecret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "Client authentication failed"})
		return
	}
	tok := fmt.Sprintf("%s-token-%d", f.name, f.tokenCalls)
	f.tokens[tok] = now.Add(time.Duration(f.tokenTTL) * time.Second)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": f.tokenTTL})
}

// auth lets through requests with a live Bearer token.
func (f *fakePPL) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		exp, known := f.tokens[tok]
		f.mu.Unlock()
		if !ok || !known || time.Now().After(exp) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			problemJSON(w, http.StatusUnauthorized, "Unauthorized", "The access token is missing, invalid or expired.", nil)
			return
		}
		next(w, r)
	}
}

// expireTokens ends every token's life on the server side.
func (f *fakePPL) expireTokens() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k := range f.tokens {
		f.tokens[k] = time.Now().Add(-time.Second)
	}
}

func (f *fakePPL) decodeJSON(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		f.t.Errorf("%s %s: content type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		problemJSON(w, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "", nil)
		return nil, false
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		f.t.Errorf("%s %s: body is not a JSON object: %v", r.Method, r.URL.Path, err)
		problemJSON(w, http.StatusBadRequest, "BadRequest", err.Error(), nil)
		return nil, false
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	return body, true
}

// Documented keys of the booking request's objects: anything else the
// adapter sends is a test failure.
var documentedKeys = map[string][]string{
	"batch":          {"returnChannel", "labelSettings", "shipments"},
	"labelSettings":  {"format", "dpi", "completeLabelSettings"},
	"complete":       {"isCompleteLabelRequested", "pageSize", "position"},
	"shipment":       {"referenceId", "productType", "shipmentNumber", "note", "depot", "ageCheck", "integratorId", "shipmentSet", "backAddress", "sender", "senderMask", "recipient", "specificDelivery", "cashOnDelivery", "insurance", "externalNumbers", "services", "dormant", "shipmentRouting", "directInjection", "labelService"},
	"shipmentSet":    {"numberOfShipments", "shipmentSetItems"},
	"setItem":        {"shipmentNumber", "weighedShipmentInfo", "externalNumbers", "insurance"},
	"address":        {"country", "zipCode", "name", "name2", "street", "city", "contact", "phone", "email"},
	"cashOnDelivery": {"codCurrency", "codPrice", "codVarSym", "iban", "swift", "account", "accountPre", "bankCode", "specSymbol"},
}

func (f *fakePPL) keys(where, kind string, obj map[string]any) {
	for k := range obj {
		if !slices.Contains(documentedKeys[kind], k) {
			f.t.Errorf("%s: undocumented key %q", where, k)
		}
	}
}

func (f *fakePPL) object(where string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok && v != nil {
		f.t.Errorf("%s: want an object, got %T", where, v)
	}
	return m
}

func (f *fakePPL) str(where string, v any) string {
	s, ok := v.(string)
	if !ok && v != nil {
		f.t.Errorf("%s: want a string, got %T", where, v)
	}
	return s
}

func (f *fakePPL) num(where string, v any) float64 {
	n, ok := v.(float64)
	if !ok && v != nil {
		f.t.Errorf("%s: want a number, got %T", where, v)
	}
	return n
}

var czZip = regexp.MustCompile(`^\d{5}$`)

// checkLabelSettings validates labelSettings; it returns PPL's format.
func (f *fakePPL) checkLabelSettings(ls map[string]any, errs map[string][]string) string {
	if ls == nil {
		errs["LabelSettings"] = append(errs["LabelSettings"], "The LabelSettings field is required.")
		return ""
	}
	f.keys("labelSettings", "labelSettings", ls)
	format := f.str("labelSettings.format", ls["format"])
	if !slices.Contains(fakeFormats, format) {
		errs["LabelSettings.Format"] = append(errs["LabelSettings.Format"], fmt.Sprintf("The value '%s' is not valid.", format))
	}
	if dpi, ok := ls["dpi"]; ok {
		if d := f.num("labelSettings.dpi", dpi); d < 203 || d > 1200 {
			errs["LabelSettings.Dpi"] = append(errs["LabelSettings.Dpi"], "The field Dpi must be between 203 and 1200.")
		}
	}
	if c := f.object("completeLabelSettings", ls["completeLabelSettings"]); c != nil {
		f.keys("completeLabelSettings", "complete", c)
		if ps, ok := c["pageSize"]; ok && !slices.Contains([]string{"Default", "A4", "A6"}, f.str("pageSize", ps)) {
			errs["LabelSettings.CompleteLabelSettings.PageSize"] = []string{"The value is not valid."}
		}
	}
	return format
}

// createBatch is POST /shipment/batch.
func (f *fakePPL) createBatch(w http.ResponseWriter, r *http.Request) {
	body, ok := f.decodeJSON(w, r)
	if !ok {
		return
	}
	f.keys("batch", "batch", body)
	errs := map[string][]string{}
	format := f.checkLabelSettings(f.object("labelSettings", body["labelSettings"]), errs)
	list, _ := body["shipments"].([]any)
	if len(list) == 0 || len(list) > 1000 {
		errs["Shipments"] = append(errs["Shipments"], "Between 1 and 1000 shipments are allowed.")
	}
	type booking struct {
		ref, product string
		weights      []float64
		recipient    map[string]any
		n            int
	}
	var bookings []booking
	for i, raw := range list {
		p := fmt.Sprintf("Shipments[%d].", i)
		sh := f.object("shipments[]", raw)
		f.keys("shipment", "shipment", sh)
		b := booking{ref: f.str("referenceId", sh["referenceId"]), product: f.str("productType", sh["productType"]), n: 1}
		if b.ref == "" || len(b.ref) > 128 {
			errs[p+"ReferenceId"] = append(errs[p+"ReferenceId"], "The field ReferenceId must be a string with a minimum length of 1 and a maximum length of 128.")
		}
		if !slices.Contains(fakeProducts, b.product) {
			errs[p+"ProductType"] = append(errs[p+"ProductType"], fmt.Sprintf("Product type '%s' is not valid.", b.product))
		}
		for _, side := range []string{"sender", "recipient"} {
			a := f.object(side, sh[side])
			if a == nil {
				if side == "recipient" {
					errs[p+"Recipient"] = append(errs[p+"Recipient"], "The Recipient field is required.")
				}
				continue
			}
			f.keys(side, "address", a)
			Side := strings.ToUpper(side[:1]) + side[1:]
			for _, k := range []string{"country", "zipCode", "name", "street", "city"} {
				if f.str(side+"."+k, a[k]) == "" {
					K := strings.ToUpper(k[:1]) + k[1:]
					errs[p+Side+"."+K] = append(errs[p+Side+"."+K], fmt.Sprintf("The %s field is required.", K))
				}
			}
			for _, k := range []string{"name2", "contact", "phone", "email"} {
				f.str(side+"."+k, a[k])
			}
			if f.str("", a["country"]) == "CZ" && a["zipCode"] != nil && !czZip.MatchString(f.str("", a["zipCode"])) {
				errs[p+Side+".ZipCode"] = append(errs[p+Side+".ZipCode"], fmt.Sprintf("Zip code '%v' is not valid for country CZ.", a["zipCode"]))
			}
			if side == "recipient" {
				b.recipient = a
			}
		}
		if set := f.object("shipmentSet", sh["shipmentSet"]); set != nil {
			f.keys("shipmentSet", "shipmentSet", set)
			b.n = int(f.num("numberOfShipments", set["numberOfShipments"]))
			if b.n < 1 {
				errs[p+"ShipmentSet.NumberOfShipments"] = []string{"The field NumberOfShipments must be at least 1."}
			}
			items, _ := set["shipmentSetItems"].([]any)
			if len(items) > b.n {
				errs[p+"ShipmentSet.ShipmentSetItems"] = []string{"More set items than numberOfShipments."}
			}
			for j, it := range items {
				item := f.object("shipmentSetItems[]", it)
				f.keys("shipmentSetItems[]", "setItem", item)
				wi := f.object("weighedShipmentInfo", item["weighedShipmentInfo"])
				wt := f.num("weight", wi["weight"])
				if wt <= 0 || wt > 31.5 {
					k := fmt.Sprintf("%sShipmentSet.ShipmentSetItems[%d].WeighedShipmentInfo.Weight", p, j)
					errs[k] = append(errs[k], "The weight must be greater than 0 and at most 31.5 kg.")
				}
				b.weights = append(b.weights, wt)
			}
		}
		cod := f.object("cashOnDelivery", sh["cashOnDelivery"])
		isCOD := slices.Contains(fakeCODProducts, b.product)
		switch {
		case cod != nil && !isCOD && b.product != "":
			errs[p+"CashOnDelivery"] = append(errs[p+"CashOnDelivery"], fmt.Sprintf("Cash on delivery is not allowed for product %s (FILLED_COD_INFORMATIONS_FOR_NONCOD_PRODUCT).", b.product))
		case cod == nil && isCOD:
			errs[p+"CashOnDelivery"] = append(errs[p+"CashOnDelivery"], fmt.Sprintf("Product %s requires cash on delivery.", b.product))
		}
		if cod != nil {
			f.keys("cashOnDelivery", "cashOnDelivery", cod)
			if c := f.str("codCurrency", cod["codCurrency"]); !slices.Contains([]string{"CZK", "EUR", "PLN", "HUF", "RON"}, c) {
				errs[p+"CashOnDelivery.CodCurrency"] = append(errs[p+"CashOnDelivery.CodCurrency"], fmt.Sprintf("Currency '%s' is not allowed for cash on delivery.", c))
			}
			if f.num("codPrice", cod["codPrice"]) <= 0 {
				errs[p+"CashOnDelivery.CodPrice"] = append(errs[p+"CashOnDelivery.CodPrice"], "The field CodPrice must be greater than 0.")
			}
			if vs := f.str("codVarSym", cod["codVarSym"]); vs != "" && !regexp.MustCompile(`^\d{1,10}$`).MatchString(vs) {
				f.t.Errorf("codVarSym %q is not 1..10 digits", vs)
			}
			if b.recipient != nil && f.str("", b.recipient["country"]) != "CZ" && b.n > 1 {
				errs[p+"ShipmentSet"] = append(errs[p+"ShipmentSet"], "Cash on delivery service is not allowed for export bundled shipments")
			}
		}
		bookings = append(bookings, b)
	}
	if len(errs) > 0 {
		problemJSON(w, http.StatusBadRequest, "BadRequest", "", errs)
		return
	}
	f.mu.Lock()
	batch := &fakeBatch{id: fmt.Sprintf("%s-batch-%d", f.name, len(f.batches)+1), format: format}
	for _, b := range bookings {
		for j := range b.n {
			f.serial++
			no := strconv.Itoa(f.serial) + "0" + strconv.Itoa(j) // 11 digits like PPL's numbers
			item := &fakeItem{ref: b.ref, number: no}
			if strings.HasPrefix(b.ref, "IMPORTERR") {
				item.errCode, item.errMsg = "ADDRESS_NOT_FOUND", "Recipient address could not be verified."
			}
			weight := ""
			if j < len(b.weights) {
				weight = fmt.Sprintf("%.2f KG", b.weights[j])
			}
			item.label = labels.ParcelLabel{Carrier: "PPL", Product: b.product, TrackingNumber: no,
				Recipient:   labels.Party{Name: f.str("", b.recipient["name"]), City: f.str("", b.recipient["city"]), PostalCode: f.str("", b.recipient["zipCode"]), CountryCode: f.str("", b.recipient["country"])},
				ParcelIndex: j + 1, ParcelCount: b.n, Weight: weight, Reference: b.ref}
			batch.items = append(batch.items, item)
			f.shipments[no] = &fakeShipment{number: no, product: b.product, state: "None"}
		}
	}
	f.batches[batch.id] = batch
	f.mu.Unlock()
	w.Header().Set("Location", "/shipment/batch/"+batch.id)
	w.WriteHeader(http.StatusCreated)
}

func (f *fakePPL) batchOf(w http.ResponseWriter, r *http.Request) *fakeBatch {
	b := f.batches[r.PathValue("id")]
	if b == nil {
		problemJSON(w, http.StatusNotFound, "NotFound", "Batch not found.", nil)
	}
	return b
}

// getBatch is GET /shipment/batch/{id}: InProcess for the first polls,
// then Complete (or Error) per item with its label URL.
func (f *fakePPL) getBatch(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.batchOf(w, r)
	if b == nil {
		return
	}
	b.polls++
	done := b.polls > f.pollsToComplete
	var items []map[string]any
	for i, it := range b.items {
		m := map[string]any{"referenceId": it.ref, "importState": "InProcess"}
		switch {
		case !done:
		case it.errMsg != "":
			m["importState"], m["errorCode"], m["errorMessage"] = "Error", it.errCode, it.errMsg
		default:
			m["importState"], m["shipmentNumber"] = "Complete", it.number
			m["labelUrl"] = fmt.Sprintf("%s/shipment/batch/%s/label?limit=1&offset=%d", f.base(), b.id, i)
		}
		items = append(items, m)
	}
	out := map[string]any{"items": items}
	if done {
		out["completeLabel"] = map[string]any{"labelUrls": []string{fmt.Sprintf("%s/shipment/batch/%s/label", f.base(), b.id)}}
	}
	writeJSON(w, http.StatusOK, out)
}

// putBatch is PUT /shipment/batch/{id}: new labelSettings.
func (f *fakePPL) putBatch(w http.ResponseWriter, r *http.Request) {
	body, ok := f.decodeJSON(w, r)
	if !ok {
		return
	}
	errs := map[string][]string{}
	format := f.checkLabelSettings(f.object("labelSettings", body["labelSettings"]), errs)
	if len(errs) > 0 {
		problemJSON(w, http.StatusBadRequest, "BadRequest", "", errs)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b := f.batchOf(w, r); b != nil {
		b.format = format
		w.WriteHeader(http.StatusNoContent)
	}
}

// label is GET /shipment/batch/{id}/label?limit&offset: the batch's labels
// in its format.
func (f *fakePPL) label(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	b := f.batchOf(w, r)
	f.mu.Unlock()
	if b == nil {
		return
	}
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 {
		limit = len(b.items)
	}
	format := strings.ToLower(b.format)
	var parts [][]byte
	for i := offset; i < len(b.items) && i < offset+limit; i++ {
		data, err := labels.Render(format, b.items[i].label)
		if err != nil {
			f.t.Errorf("fake label: %v", err)
		}
		parts = append(parts, data)
	}
	if len(parts) == 0 {
		problemJSON(w, http.StatusNotFound, "NotFound", "No labels.", nil)
		return
	}
	data, err := labels.Merge(format, parts)
	if err != nil {
		f.t.Errorf("fake label merge: %v", err)
	}
	w.Header().Set("Content-Type", labels.MIMEType(format))
	_, _ = w.Write(data)
}

// cancel is POST /shipment/{n}/cancel: 202 {} before pickup.
func (f *fakePPL) cancel(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.shipments[r.PathValue("n")]
	switch {
	case sh == nil:
		problemJSON(w, http.StatusNotFound, "NotFound", "Shipment "+r.PathValue("n")+" not found.", nil)
	case sh.pickedUp:
		problemJSON(w, http.StatusBadRequest, "BadRequest", "Shipment "+sh.number+" cannot be cancelled, it has already been picked up.", nil)
	default:
		sh.state = "Canceled"
		sh.updated = time.Now().UTC().Format(time.RFC3339)
		writeJSON(w, http.StatusAccepted, map[string]any{})
	}
}

// track is GET /shipment?ShipmentNumbers=…: the known ones, as an array.
func (f *fakePPL) track(w http.ResponseWriter, r *http.Request) {
	numbers := r.URL.Query()["ShipmentNumbers"]
	if len(numbers) == 0 {
		f.t.Errorf("GET /shipment without ShipmentNumbers: %s", r.URL.RawQuery)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []map[string]any{}
	for _, n := range numbers {
		for _, n := range strings.Split(n, ",") {
			sh := f.shipments[n]
			if sh == nil {
				continue
			}
			events := sh.events
			if events == nil {
				events = []map[string]any{}
			}
			out = append(out, map[string]any{
				"shipmentNumber": sh.number, "productType": sh.product, "shipmentState": sh.state,
				"lastUpdateDate": sh.updated,
				"trackAndTrace":  map[string]any{"events": events},
			})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// setTracking gives a shipment its state and events.
func (f *fakePPL) setTracking(number, state, updated string, events ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.shipments[number]
	if sh == nil {
		sh = &fakeShipment{number: number, product: "BUSS"}
		f.shipments[number] = sh
	}
	sh.state, sh.updated, sh.events = state, updated, events
}

func event(statusID int, code, name, at string) map[string]any {
	return map[string]any{"statusId": statusID, "code": code, "phase": "", "group": "", "eventDate": at, "name": name,
		"gpsLatitude": 0, "gpsLongitude": 0}
}

func (f *fakePPL) pickUp(number string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shipments[number].pickedUp = true
}

func (f *fakePPL) fail(status, count int, on string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failStatus, f.failCount, f.failOn = status, count, on
}

func (f *fakePPL) setHang(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hang = v
}

func (f *fakePPL) calls(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func (f *fakePPL) tokenCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenCalls
}

func (f *fakePPL) lastBody() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		return nil
	}
	return f.bodies[len(f.bodies)-1]
}
