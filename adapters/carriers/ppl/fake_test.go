package ppl

// A fake of PPL's CPL API (myAPI2) on loopback HTTP: OAuth2
// client-credentials token endpoint, the asynchronous shipment batch, label
// documents fetched with the Bearer token, cancel, tracking, collection
// orders (fake_orders_test.go) and RFC 7807 problem+json errors. Every API request is held to testdata/cpl-api.yaml
// (vendorspec, strict: a property the document does not name is refused)
// and answered 400 problem+json like PPL when it does not validate; such a
// refusal fails the test unless the test expects it (expectRefusals). Every
// answer the fake gives is checked against the same document. What a user
// can cause (bad postal code, COD on the wrong product, an unknown
// ParcelShop) it answers like PPL, with 400 problem+json.

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

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
)

const fakePrefix = "/ecs/ppl/myapi2"

// The product codes PPL knows (its GET /codelist/product, as far as the
// pplmyapi client's Product enum lists them) and which carry cash on delivery.
var (
	fakeProducts    = []string{"BUSS", "BUSD", "PRIV", "PRID", "SMAR", "SMAD", "SMEU", "SMED", "CONN", "COND", "DOPO", "DOPD", "COPL", "IMPO", "RETD", "RECI", "RECE"}
	fakeCODProducts = []string{"BUSD", "PRID", "SMAD", "SMED", "COND", "DOPD"}
)

// fakeParcelShops are the ParcelShop/ParcelBox codes the fake knows (PPL
// checks parcelShopCode against its access points).
var fakeParcelShops = []string{"KM10479401", "KM12345678"}

// fakePointProducts take a parcelShopCode ("Create package label": PRIV,
// PRID, CONN, COND, SMAR, SMAD; SMEU/SMED deliver only to points, so the
// fake takes one there too [U]); the Smart ones need one.
var (
	fakePointProducts    = []string{"PRIV", "PRID", "CONN", "COND", "SMAR", "SMAD", "SMEU", "SMED"}
	fakePointOnlyProduct = []string{"SMAR", "SMAD", "SMEU", "SMED"}
)

type fakeItem struct {
	ref, number string
	guid        string // of its label under /data/{guid}
	label       labels.ParcelLabel
	errCode     string
	errMsg      string
}

type fakeBatch struct {
	id     string
	format string        // Pdf, Zpl
	sets   [][]*fakeItem // one set of parcels per shipments[] element
	polls  int
}

// items are the batch's parcels in order.
func (b *fakeBatch) items() []*fakeItem {
	var out []*fakeItem
	for _, set := range b.sets {
		out = append(out, set...)
	}
	return out
}

type fakeShipment struct {
	number    string
	product   string
	events    []map[string]any
	pickedUp  bool
	cancelled bool
}

type fakePPL struct {
	t    *testing.T
	name string
	srv  *httptest.Server
	spec *vendorspec.Spec

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
	failOn          string // only requests starting so ("GET /shipment/batch/"), or exactly so ("GET /order$"); "" = all
	hang            bool
	requests        []string // "METHOD /path" without the prefix
	bodies          []map[string]any
	labels          map[string]*fakeItem // by data guid
	refusals        []string             // requests the document does not allow
	expectRefusals  bool
	orderState      // collection orders
}

func newFake(t *testing.T, name string) *fakePPL {
	f := &fakePPL{t: t, name: name, clientID: "client-1", clientSecret: "secret-1", tokenTTL: 1800,
		tokens: map[string]time.Time{}, batches: map[string]*fakeBatch{}, shipments: map[string]*fakeShipment{},
		labels: map[string]*fakeItem{}, pollsToComplete: 1, serial: 400000000,
		orderState: orderState{orderBatches: map[string]*fakeOrderBatch{}}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+fakePrefix+"/login/getAccessToken", f.token)
	mux.HandleFunc("POST "+fakePrefix+"/shipment/batch", f.auth(f.createBatch))
	mux.HandleFunc("GET "+fakePrefix+"/shipment/batch/{id}", f.auth(f.getBatch))
	mux.HandleFunc("PUT "+fakePrefix+"/shipment/batch/{id}", f.auth(f.putBatch))
	mux.HandleFunc("GET "+fakePrefix+"/shipment/batch/{id}/label", f.auth(f.label))
	mux.HandleFunc("GET "+fakePrefix+"/data/{guid}", f.auth(f.data))
	mux.HandleFunc("POST "+fakePrefix+"/shipment/{n}/cancel", f.auth(f.cancel))
	mux.HandleFunc("GET "+fakePrefix+"/shipment", f.auth(f.track))
	mux.HandleFunc("POST "+fakePrefix+"/order/batch", f.auth(f.createOrders))
	mux.HandleFunc("GET "+fakePrefix+"/order/batch/{id}", f.auth(f.getOrderBatch))
	mux.HandleFunc("GET "+fakePrefix+"/order", f.auth(f.listOrders))
	mux.HandleFunc("POST "+fakePrefix+"/order/cancel", f.auth(f.cancelOrder))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.t.Errorf("%s fake: unexpected %s %s", f.name, r.Method, r.URL.Path)
		problemJSON(w, http.StatusNotFound, "NotFound", "", nil)
	})
	f.srv = httptest.NewServer(f.record(f.checked(mux)))
	t.Cleanup(f.srv.Close)
	spec, err := vendorspec.Load("testdata/cpl-api.yaml", f.base(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.spec = spec
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.refusals) > 0 && !f.expectRefusals {
			t.Errorf("%s fake: requests PPL's document does not allow:\n%s", f.name, strings.Join(f.refusals, "\n"))
		}
	})
	return f
}

// checked holds every API request (not the token endpoint, which PPL's
// document lacks) to the document, answering 400 problem+json as PPL does
// to one that does not validate, and checks the fake's answer against it.
func (f *fakePPL) checked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/login/getAccessToken") {
			next.ServeHTTP(w, r)
			return
		}
		in, err := f.spec.CheckRequest(r)
		if err != nil {
			f.mu.Lock()
			f.refusals = append(f.refusals, err.Error())
			f.mu.Unlock()
			problemJSON(w, http.StatusBadRequest, "BadRequest", "", map[string][]string{"$": {err.Error()}})
			return
		}
		err = f.spec.Answer(w, in, func(rec http.ResponseWriter) { next.ServeHTTP(rec, r) })
		if err != nil {
			f.t.Errorf("%s fake: %v", f.name, err)
		}
	})
}

// guid is a UUID-shaped id (PPL's batch and label ids are UUIDs).
func (f *fakePPL) guid(kind, n int) string {
	return fmt.Sprintf("%08x-%04x-4000-8000-%012x", len(f.name), kind, n)
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
		if path != "/login/getAccessToken" && f.failCount != 0 && failsOn(r.Method+" "+path, f.failOn) {
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

// failsOn reports whether request ("METHOD /path") is one on names: those
// starting so, or with a trailing "$" that one exactly ("GET /order$" is
// not GET /order/batch/{id}).
func failsOn(request, on string) bool {
	if exact, ok := strings.CutSuffix(on, "$"); ok {
		return request == exact
	}
	return strings.HasPrefix(request, on)
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

type (
	fakeBatchRequest struct {
		LabelSettings *struct {
			Format string `json:"format"`
		} `json:"labelSettings"`
		Shipments []fakeShipmentRequest `json:"shipments"`
	}
	fakeShipmentRequest struct {
		ReferenceID string `json:"referenceId"`
		ProductType string `json:"productType"`
		ShipmentSet *struct {
			NumberOfShipments int `json:"numberOfShipments"`
			ShipmentSetItems  []struct {
				WeighedShipmentInfo *struct {
					Weight float64 `json:"weight"`
				} `json:"weighedShipmentInfo"`
			} `json:"shipmentSetItems"`
		} `json:"shipmentSet"`
		Sender           *fakeAddress `json:"sender"`
		Recipient        fakeAddress  `json:"recipient"`
		SpecificDelivery *struct {
			ParcelShopCode string `json:"parcelShopCode"`
		} `json:"specificDelivery"`
		CashOnDelivery *struct {
			CodCurrency string  `json:"codCurrency"`
			CodPrice    float64 `json:"codPrice"`
		} `json:"cashOnDelivery"`
	}
	fakeAddress struct {
		Name, Street, City, ZipCode, Country string
	}
)

var czZip = regexp.MustCompile(`^\d{5}$`)

// createBatch is POST /shipment/batch: PPL's checks beyond the document's.
func (f *fakePPL) createBatch(w http.ResponseWriter, r *http.Request) {
	var body fakeBatchRequest
	if !f.decodeJSON(w, r, &body) {
		return
	}
	errs := map[string][]string{}
	add := func(k, msg string) { errs[k] = append(errs[k], msg) }
	format := "Pdf"
	if body.LabelSettings != nil && body.LabelSettings.Format != "" {
		format = body.LabelSettings.Format
	}
	for i, sh := range body.Shipments {
		p := fmt.Sprintf("Shipments[%d].", i)
		if !slices.Contains(fakeProducts, sh.ProductType) {
			add(p+"ProductType", fmt.Sprintf("Product type '%s' is not valid.", sh.ProductType))
		}
		sides := map[string]*fakeAddress{"Recipient": &sh.Recipient}
		if sh.Sender != nil {
			sides["Sender"] = sh.Sender
		}
		for side, a := range sides {
			for k, v := range map[string]string{"Name": a.Name, "Street": a.Street, "City": a.City} {
				if v == "" {
					add(p+side+"."+k, fmt.Sprintf("The %s field is required.", k))
				}
			}
			if a.Country == "CZ" && !czZip.MatchString(a.ZipCode) {
				add(p+side+".ZipCode", fmt.Sprintf("Zip code '%s' is not valid for country CZ.", a.ZipCode))
			}
		}
		n := 1
		if set := sh.ShipmentSet; set != nil {
			n = set.NumberOfShipments
			if n < 1 {
				add(p+"ShipmentSet.NumberOfShipments", "The field NumberOfShipments must be between 1 and 50.")
			}
			if len(set.ShipmentSetItems) > n {
				add(p+"ShipmentSet.ShipmentSetItems", "More set items than numberOfShipments.")
			}
			for j, it := range set.ShipmentSetItems {
				if it.WeighedShipmentInfo != nil && it.WeighedShipmentInfo.Weight > 31.5 {
					add(fmt.Sprintf("%sShipmentSet.ShipmentSetItems[%d].WeighedShipmentInfo.Weight", p, j), "The weight must be greater than 0 and at most 31.5 kg.")
				}
			}
		}
		point := ""
		if sh.SpecificDelivery != nil {
			point = sh.SpecificDelivery.ParcelShopCode
		}
		switch {
		case point != "" && !slices.Contains(fakePointProducts, sh.ProductType):
			add(p+"SpecificDelivery.ParcelShopCode", fmt.Sprintf("Parcel shop code is not allowed for product %s.", sh.ProductType))
		case point != "" && !slices.Contains(fakeParcelShops, point):
			add(p+"SpecificDelivery.ParcelShopCode", fmt.Sprintf("Parcel shop '%s' does not exist.", point))
		case point == "" && slices.Contains(fakePointOnlyProduct, sh.ProductType):
			add(p+"SpecificDelivery.ParcelShopCode", fmt.Sprintf("Product %s is delivered only to a parcel shop.", sh.ProductType))
		}
		cod, isCOD := sh.CashOnDelivery, slices.Contains(fakeCODProducts, sh.ProductType)
		switch {
		case cod != nil && !isCOD && sh.ProductType != "":
			add(p+"CashOnDelivery", fmt.Sprintf("Cash on delivery is not allowed for product %s (FILLED_COD_INFORMATIONS_FOR_NONCOD_PRODUCT).", sh.ProductType))
		case cod == nil && isCOD:
			add(p+"CashOnDelivery", fmt.Sprintf("Product %s requires cash on delivery.", sh.ProductType))
		}
		if cod != nil {
			if !slices.Contains([]string{"CZK", "EUR", "PLN", "HUF", "RON"}, cod.CodCurrency) {
				add(p+"CashOnDelivery.CodCurrency", fmt.Sprintf("Currency '%s' is not allowed for cash on delivery.", cod.CodCurrency))
			}
			if cod.CodPrice <= 0 {
				add(p+"CashOnDelivery.CodPrice", "The field CodPrice must be greater than 0.")
			}
			if sh.Recipient.Country != "CZ" && n > 1 {
				add(p+"ShipmentSet", "Cash on delivery service is not allowed for export bundled shipments")
			}
		}
	}
	if len(errs) > 0 {
		problemJSON(w, http.StatusBadRequest, "BadRequest", "", errs)
		return
	}
	f.mu.Lock()
	batch := &fakeBatch{id: f.guid(1, len(f.batches)+1), format: format}
	for _, sh := range body.Shipments {
		n := 1
		if sh.ShipmentSet != nil {
			n = sh.ShipmentSet.NumberOfShipments
		}
		var set []*fakeItem
		for j := range n {
			f.serial++
			no := strconv.Itoa(f.serial) + "0" + strconv.Itoa(j%10) // 11 digits like PPL's numbers
			item := &fakeItem{ref: sh.ReferenceID, number: no, guid: f.guid(2, f.serial)}
			if strings.HasPrefix(sh.ReferenceID, "IMPORTERR") {
				item.errCode, item.errMsg = "ADDRESS_NOT_FOUND", "Recipient address could not be verified."
			}
			weight := ""
			if items := sh.ShipmentSet; items != nil && j < len(items.ShipmentSetItems) && items.ShipmentSetItems[j].WeighedShipmentInfo != nil {
				weight = fmt.Sprintf("%.2f KG", items.ShipmentSetItems[j].WeighedShipmentInfo.Weight)
			}
			rc := sh.Recipient
			item.label = labels.ParcelLabel{Carrier: "PPL", Product: sh.ProductType, TrackingNumber: no,
				Recipient:   labels.Party{Name: rc.Name, City: rc.City, PostalCode: rc.ZipCode, CountryCode: rc.Country},
				ParcelIndex: j + 1, ParcelCount: n, Weight: weight, Reference: sh.ReferenceID}
			set = append(set, item)
			f.labels[item.guid] = item
			f.shipments[no] = &fakeShipment{number: no, product: sh.ProductType}
		}
		batch.sets = append(batch.sets, set)
	}
	f.batches[batch.id] = batch
	f.mu.Unlock()
	w.Header().Set("Location", "/shipment/batch/"+batch.id)
	w.WriteHeader(http.StatusCreated)
}

func (f *fakePPL) decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		f.t.Errorf("%s %s: content type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		problemJSON(w, http.StatusBadRequest, "BadRequest", "unsupported media type", nil)
		return false
	}
	data, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		f.t.Errorf("%s %s: body: %v", r.Method, r.URL.Path, err)
		problemJSON(w, http.StatusBadRequest, "BadRequest", err.Error(), nil)
		return false
	}
	var raw map[string]any
	_ = json.Unmarshal(data, &raw)
	f.mu.Lock()
	f.bodies = append(f.bodies, raw)
	f.mu.Unlock()
	return true
}

func (f *fakePPL) batchOf(w http.ResponseWriter, r *http.Request) *fakeBatch {
	b := f.batches[r.PathValue("id")]
	if b == nil {
		problemJSON(w, http.StatusNotFound, "NotFound", "Batch not found.", nil)
	}
	return b
}

// getBatch is GET /shipment/batch/{id}: InProcess for the first polls,
// then Complete (or Error): one item per shipment, the set's other parcels
// as its relatedItems, each with its label under /data/{guid}.
func (f *fakePPL) getBatch(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.batchOf(w, r)
	if b == nil {
		return
	}
	b.polls++
	done := b.polls > f.pollsToComplete
	parcel := func(it *fakeItem) map[string]any {
		m := map[string]any{"importState": "InProcess"}
		switch {
		case !done:
		case it.errMsg != "":
			m["importState"], m["errorCode"], m["errorMessage"] = "Error", it.errCode, it.errMsg
		default:
			m["importState"], m["shipmentNumber"] = "Complete", it.number
			m["labelUrl"] = f.base() + "/data/" + it.guid
		}
		return m
	}
	items := []map[string]any{}
	for _, set := range b.sets {
		item := parcel(set[0])
		item["referenceId"] = set[0].ref
		related := []map[string]any{}
		for _, it := range set[1:] {
			m := parcel(it)
			m["relationType"] = "ShipmentSet"
			related = append(related, m)
		}
		item["relatedItems"] = related
		items = append(items, item)
	}
	out := map[string]any{"items": items}
	if done {
		out["completeLabel"] = map[string]any{"labelUrls": []string{fmt.Sprintf("%s/shipment/batch/%s/label?limit=200&offset=0", f.base(), b.id)}}
	}
	writeJSON(w, http.StatusOK, out)
}

// putBatch is PUT /shipment/batch/{id}: new labelSettings.
func (f *fakePPL) putBatch(w http.ResponseWriter, r *http.Request) {
	var body fakeBatchRequest
	if !f.decodeJSON(w, r, &body) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b := f.batchOf(w, r); b != nil {
		b.format = body.LabelSettings.Format
		w.WriteHeader(http.StatusNoContent)
	}
}

// render writes the labels of items in format as one document.
func (f *fakePPL) render(w http.ResponseWriter, format string, items []*fakeItem) {
	format = strings.ToLower(format)
	var parts [][]byte
	for _, it := range items {
		data, err := labels.Render(format, it.label)
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
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	items := b.items()
	f.render(w, b.format, items[min(offset, len(items)):min(offset+limit, len(items))])
}

// data is GET /data/{guid}: one parcel's label in its batch's format.
func (f *fakePPL) data(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	it := f.labels[r.PathValue("guid")]
	format := ""
	for _, b := range f.batches {
		if slices.Contains(b.items(), it) {
			format = b.format
		}
	}
	f.mu.Unlock()
	if it == nil {
		problemJSON(w, http.StatusNotFound, "NotFound", "Data not found.", nil)
		return
	}
	f.render(w, format, []*fakeItem{it})
}

// cancel is POST /shipment/{n}/cancel: 200 before pickup, and the
// shipment's tracking shows a Canceled event. A cancelled shipment is
// refused like a picked-up one, 400 problem+json (PPL documents no answer
// of its own for it [U]; the adapter reads the tracking, not the words).
func (f *fakePPL) cancel(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.shipments[r.PathValue("n")]
	switch {
	case sh == nil:
		problemJSON(w, http.StatusNotFound, "NotFound", "Shipment "+r.PathValue("n")+" not found.", nil)
	case sh.pickedUp:
		problemJSON(w, http.StatusBadRequest, "BadRequest", "Shipment "+sh.number+" cannot be cancelled, it has already been picked up.", nil)
	case sh.cancelled:
		problemJSON(w, http.StatusBadRequest, "BadRequest", "Shipment "+sh.number+" cannot be cancelled, it is already cancelled.", nil)
	default:
		sh.cancelled = true
		sh.events = append(sh.events, phaseEvent("Canceled", "Canceled", time.Now().UTC().Format(time.RFC3339)))
		w.WriteHeader(http.StatusOK)
	}
}

// track is GET /shipment?ShipmentNumbers=…&Limit&Offset: the known ones,
// as an array.
func (f *fakePPL) track(w http.ResponseWriter, r *http.Request) {
	numbers := r.URL.Query()["ShipmentNumbers"]
	if len(numbers) == 0 {
		f.t.Errorf("GET /shipment without ShipmentNumbers: %s", r.URL.RawQuery)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []map[string]any{}
	for _, n := range numbers {
		sh := f.shipments[n]
		if sh == nil {
			continue
		}
		events := sh.events
		if events == nil {
			events = []map[string]any{}
		}
		out = append(out, map[string]any{"shipmentNumber": sh.number, "productType": sh.product,
			"trackAndTrace": map[string]any{"events": events}})
	}
	writeJSON(w, http.StatusOK, out)
}

// setTracking gives a shipment its events.
func (f *fakePPL) setTracking(number string, events ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.shipments[number]
	if sh == nil {
		sh = &fakeShipment{number: number, product: "BUSS"}
		f.shipments[number] = sh
	}
	sh.events = events
}

// phaseEvent is an event with a phase and no statusId.
func phaseEvent(code, phase, at string) map[string]any {
	return map[string]any{"code": code, "phase": phase, "eventDate": at, "name": code}
}

func event(statusID int, code, phase, name, at string) map[string]any {
	return map[string]any{"statusId": statusID, "code": code, "phase": phase, "group": "", "eventDate": at, "name": name,
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
