package ppl

// PPL's collection orders in the fake: POST /order/batch (201, the batch in
// Location), GET /order/batch/{id} (InProcess, then Complete or Error),
// GET /order (the imported orders, by OrderReferences or OrderNumbers) and
// POST /order/cancel (by orderReference). The document is held by
// vendorspec (checked) except sendTimeFrom/sendTimeTo, whose format
// date-span vendorspec ignores: the fake reads them itself as a .NET
// TimeSpan time of day (hh:mm[:ss[.fffffff]]) and refuses anything else as a
// request the document does not allow, 400 keyed "$.orders[i].sendTimeFrom"
// as ASP.NET answers a value it cannot convert. What a user can cause it
// answers like PPL's model validation, 400 problem+json keyed
// "Orders[i].Field" [U: PPL documents no such rules]: a send date before
// today (Prague), a window that ends before it starts, more than 50 parcels
// (the "Max: 50" of shipmentCount's description), a collection order
// without a sender, a sender without name, street or city, a CZ postal code
// that is not five digits. A batch is imported once polled past
// pollsToComplete, with every batch before it (PPL imports in order): an
// order whose referenceId PPL already holds fails its import (importState
// Error, the fake's own code DUPLICATE_REFERENCE: PPL says references are
// unique, not how it answers a second one), as does the next order after
// failNextImport. Only imported orders are listed, each with its
// orderNumber.

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"
)

type orderState struct {
	orderBatches   map[string]*fakeOrderBatch
	orderSequence  []*fakeOrderBatch // in the order they came
	orderSerial    int
	orderAsObject  bool      // GET /order answers one OrderModel, as PPL's document types it
	failNextImport [2]string // code, message of the next order's failed import
	cancelNotes    []string
}

type fakeOrderBatch struct {
	id       string
	orders   []*fakeOrder
	polls    int
	imported bool
}

type fakeOrder struct {
	req             fakeOrderRequest
	number, state   string // state: "" until imported, then Created, PickedUp, Canceled
	errCode, errMsg string
}

type (
	fakeOrderRequest struct {
		OrderType     string            `json:"orderType"`
		ReferenceID   string            `json:"referenceId"`
		ShipmentCount int               `json:"shipmentCount"`
		SendDate      string            `json:"sendDate"`
		SendTimeFrom  *string           `json:"sendTimeFrom"`
		SendTimeTo    *string           `json:"sendTimeTo"`
		ProductType   *string           `json:"productType"`
		Email         *string           `json:"email"`
		Note          *string           `json:"note"`
		Sender        *fakeOrderAddress `json:"sender"`
	}
	fakeOrderAddress struct {
		Name    string `json:"name"`
		Name2   string `json:"name2"`
		Street  string `json:"street"`
		City    string `json:"city"`
		ZipCode string `json:"zipCode"`
		Country string `json:"country"`
		Contact string `json:"contact"`
		Phone   string `json:"phone"`
		Email   string `json:"email"`
	}
)

// timeSpanOfDay is a .NET TimeSpan in its invariant form, within a day.
var timeSpanOfDay = regexp.MustCompile(`^([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,7})?)?$`)

func prague() *time.Location {
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		return time.UTC
	}
	return loc
}

// createOrders is POST /order/batch.
func (f *fakePPL) createOrders(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Orders []fakeOrderRequest `json:"orders"`
	}
	if !f.decodeJSON(w, r, &body) {
		return
	}
	for i, o := range body.Orders {
		for _, span := range []struct {
			name string
			v    *string
		}{{"sendTimeFrom", o.SendTimeFrom}, {"sendTimeTo", o.SendTimeTo}} {
			if span.v != nil && !timeSpanOfDay.MatchString(*span.v) {
				path := fmt.Sprintf("$.orders[%d].%s", i, span.name)
				f.mu.Lock()
				f.refusals = append(f.refusals, fmt.Sprintf("POST /order/batch: %s %q is no date-span (a TimeSpan time of day)", path, *span.v))
				f.mu.Unlock()
				problemJSON(w, http.StatusBadRequest, "One or more validation errors occurred.", "", map[string][]string{
					path: {"The JSON value could not be converted to System.Nullable`1[System.TimeSpan]. Path: " + path + "."}})
				return
			}
		}
	}
	errs := map[string][]string{}
	add := func(k, msg string) { errs[k] = append(errs[k], msg) }
	today := time.Now().In(prague()).Format(time.DateOnly)
	for i, o := range body.Orders {
		p := fmt.Sprintf("Orders[%d].", i)
		if at, err := time.Parse(time.RFC3339, o.SendDate); err == nil && at.In(prague()).Format(time.DateOnly) < today {
			add(p+"SendDate", "The send date must not be in the past.")
		}
		if o.SendTimeFrom != nil && o.SendTimeTo != nil && spanMinutes(*o.SendTimeTo) <= spanMinutes(*o.SendTimeFrom) {
			add(p+"SendTimeTo", "The send time to must be later than the send time from.")
		}
		if o.ShipmentCount > 50 {
			add(p+"ShipmentCount", "The shipment count must be at most 50.")
		}
		a := o.Sender
		if a == nil {
			if o.OrderType == "CollectionOrder" {
				add(p+"Sender", "The Sender field is required.")
			}
			continue
		}
		for k, v := range map[string]string{"Name": a.Name, "Street": a.Street, "City": a.City} {
			if v == "" {
				add(p+"Sender."+k, fmt.Sprintf("The %s field is required.", k))
			}
		}
		if a.Country == "CZ" && !czZip.MatchString(a.ZipCode) {
			add(p+"Sender.ZipCode", fmt.Sprintf("Zip code '%s' is not valid for country CZ.", a.ZipCode))
		}
	}
	if len(errs) > 0 {
		problemJSON(w, http.StatusBadRequest, "BadRequest", "", errs)
		return
	}
	f.mu.Lock()
	b := &fakeOrderBatch{id: f.guid(3, len(f.orderBatches)+1)}
	for _, o := range body.Orders {
		fo := &fakeOrder{req: o}
		if f.failNextImport[0] != "" {
			fo.errCode, fo.errMsg = f.failNextImport[0], f.failNextImport[1]
			f.failNextImport = [2]string{}
		}
		b.orders = append(b.orders, fo)
	}
	f.orderBatches[b.id] = b
	f.orderSequence = append(f.orderSequence, b)
	f.mu.Unlock()
	w.Header().Set("Location", "/order/batch/"+b.id)
	w.WriteHeader(http.StatusCreated)
}

// spanMinutes is a TimeSpan time of day in minutes.
func spanMinutes(s string) int {
	h, m := 0, 0
	_, _ = fmt.Sscanf(s, "%d:%d", &h, &m)
	return h*60 + m
}

// importOrders imports every batch up to and including last (all when nil),
// in the order they came; f.mu is held.
func (f *fakePPL) importOrders(last *fakeOrderBatch) {
	for _, b := range f.orderSequence {
		if !b.imported {
			b.imported = true
			for _, o := range b.orders {
				switch {
				case o.errCode != "":
				case f.heldOrder(o.req.ReferenceID) != nil:
					o.errCode, o.errMsg = "DUPLICATE_REFERENCE", fmt.Sprintf("An order with reference '%s' already exists.", o.req.ReferenceID)
				default:
					f.orderSerial++
					o.number, o.state = strconv.Itoa(700000000+f.orderSerial), "Created"
				}
			}
		}
		if b == last {
			return
		}
	}
}

// processOrders is PPL importing every batch it was given, polled or not.
func (f *fakePPL) processOrders() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.importOrders(nil)
}

// heldOrder is the imported order under ref, or nil; f.mu is held.
func (f *fakePPL) heldOrder(ref string) *fakeOrder {
	for _, b := range f.orderSequence {
		for _, o := range b.orders {
			if o.state != "" && o.req.ReferenceID == ref {
				return o
			}
		}
	}
	return nil
}

// importedOrders are the orders PPL holds; f.mu is held.
func (f *fakePPL) importedOrders() []*fakeOrder {
	var out []*fakeOrder
	for _, b := range f.orderSequence {
		for _, o := range b.orders {
			if o.state != "" {
				out = append(out, o)
			}
		}
	}
	return out
}

// getOrderBatch is GET /order/batch/{id}: InProcess for the first polls.
func (f *fakePPL) getOrderBatch(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.orderBatches[r.PathValue("id")]
	if b == nil {
		problemJSON(w, http.StatusNotFound, "NotFound", "Batch not found.", nil)
		return
	}
	b.polls++
	if b.polls > f.pollsToComplete {
		f.importOrders(b)
	}
	items := []map[string]any{}
	for _, o := range b.orders {
		it := map[string]any{"referenceId": o.req.ReferenceID, "importState": "InProcess"}
		switch {
		case !b.imported:
		case o.errCode != "":
			it["importState"], it["errorCode"], it["errorMessage"] = "Error", o.errCode, o.errMsg
		default:
			it["importState"] = "Complete"
		}
		items = append(items, it)
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// listOrders is GET /order: the imported orders under the OrderReferences
// and OrderNumbers asked for (all without either), a page of them.
func (f *fakePPL) listOrders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	refs, numbers := q["OrderReferences"], q["OrderNumbers"]
	limit, _ := strconv.Atoi(q.Get("Limit"))
	offset, _ := strconv.Atoi(q.Get("Offset"))
	f.mu.Lock()
	defer f.mu.Unlock()
	var found []map[string]any
	for _, o := range f.importedOrders() {
		if (len(refs) > 0 && !slices.Contains(refs, o.req.ReferenceID)) || (len(numbers) > 0 && !slices.Contains(numbers, o.number)) {
			continue
		}
		m := map[string]any{"orderNumber": o.number, "orderState": o.state, "referenceId": o.req.ReferenceID,
			"shipmentCount": o.req.ShipmentCount, "realShipmentCount": 0, "sendDate": o.req.SendDate,
			"productType": o.req.ProductType, "email": o.req.Email, "note": o.req.Note, "shipmentNumbers": []string{}}
		if o.req.Sender != nil {
			m["sender"] = o.req.Sender
		}
		found = append(found, m)
	}
	total := len(found)
	page := found[min(offset, total):min(offset+limit, total)]
	w.Header().Set("X-Paging-Total-Items-Count", strconv.Itoa(total))
	w.Header().Set("X-Paging-Offset", strconv.Itoa(offset))
	w.Header().Set("X-Paging-Limit", strconv.Itoa(limit))
	switch {
	case !f.orderAsObject:
		if page == nil {
			page = []map[string]any{}
		}
		writeJSON(w, http.StatusOK, page)
	case len(page) == 0:
		writeJSON(w, http.StatusOK, map[string]any{})
	default:
		writeJSON(w, http.StatusOK, page[0])
	}
}

// cancelOrder is POST /order/cancel?orderReference=: 200 while the order
// is Created; a picked-up, cancelled or unknown order is refused, 400
// problem+json (PPL documents no answer of its own for them [U]).
func (f *fakePPL) cancelOrder(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Note *string `json:"note"`
	}
	if r.ContentLength != 0 && !f.decodeJSON(w, r, &body) {
		return
	}
	ref := r.URL.Query().Get("orderReference")
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.heldOrder(ref)
	switch {
	case ref == "":
		problemJSON(w, http.StatusBadRequest, "BadRequest", "An order reference or a customer reference is required.", nil)
	case o == nil:
		problemJSON(w, http.StatusBadRequest, "BadRequest", "Order with reference '"+ref+"' was not found.", nil)
	case o.state == "PickedUp":
		problemJSON(w, http.StatusBadRequest, "BadRequest", "Order "+o.number+" cannot be cancelled, it has already been picked up.", nil)
	case o.state == "Canceled":
		problemJSON(w, http.StatusBadRequest, "BadRequest", "Order "+o.number+" is already cancelled.", nil)
	default:
		o.state = "Canceled"
		if body.Note != nil {
			f.cancelNotes = append(f.cancelNotes, *body.Note)
		}
		w.WriteHeader(http.StatusOK)
	}
}

// orderUnder is a copy of the imported order under ref, and whether there
// is one.
func (f *fakePPL) orderUnder(ref string) (fakeOrder, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if o := f.heldOrder(ref); o != nil {
		return *o, true
	}
	return fakeOrder{}, false
}

// orderCount is how many orders PPL holds.
func (f *fakePPL) orderCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.importedOrders())
}

// pickUpOrder is PPL's courier collecting the order under ref.
func (f *fakePPL) pickUpOrder(ref string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heldOrder(ref).state = "PickedUp"
}
