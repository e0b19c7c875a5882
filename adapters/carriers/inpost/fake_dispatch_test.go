package inpost

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"

	"shipd/adapters/labels"
)

// The fake's shipping day: dispatch orders (created new, then sent, then
// accepted, or rejected when a shipment was declared to be handed in
// elsewhere [C]), their list, read and delete, and the printouts, held to
// testdata/shipx.yaml as every call is (fakeShipX.serve).

// fakeOrder is a dispatch order the fake took.
type fakeOrder struct {
	id        int
	status    string
	stepsToGo int
	shipments []int
	form      map[string]any
	errors    any
}

var (
	reOrgOrders = regexp.MustCompile(`^/v1/organizations/([^/]+)/dispatch_orders$`)
	rePrintouts = regexp.MustCompile(`^/v1/organizations/([^/]+)/dispatch_orders/printouts$`)
	reOrder     = regexp.MustCompile(`^/v1/dispatch_orders/([^/]+)$`)
)

// routeDispatch answers a dispatch order call and says whether it was one.
func (f *fakeShipX) routeDispatch(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && reOrgOrders.MatchString(p):
		f.createOrder(w, r, reOrgOrders.FindStringSubmatch(p)[1])
	case r.Method == http.MethodGet && reOrgOrders.MatchString(p):
		f.listOrders(w, r, reOrgOrders.FindStringSubmatch(p)[1])
	case r.Method == http.MethodGet && rePrintouts.MatchString(p):
		f.printouts(w, r, rePrintouts.FindStringSubmatch(p)[1])
	case r.Method == http.MethodGet && reOrder.MatchString(p):
		f.getOrder(w, reOrder.FindStringSubmatch(p)[1])
	case r.Method == http.MethodDelete && reOrder.MatchString(p):
		f.deleteOrder(w, reOrder.FindStringSubmatch(p)[1])
	default:
		return false
	}
	return true
}

func validationFailed(w http.ResponseWriter, details map[string]any) {
	shipXError(w, http.StatusBadRequest, "validation_failed", "There are some validation errors. Check details object for more info.", details)
}

// standing says whether an order still collects its shipments.
func standing(o *fakeOrder) bool { return o.status != "rejected" && o.status != "canceled" }

func (f *fakeShipX) createOrder(w http.ResponseWriter, r *http.Request, org string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.checkOrg(w, org) {
		return
	}
	var form map[string]any
	if err := json.NewDecoder(r.Body).Decode(&form); err != nil {
		f.t.Errorf("fake: dispatch order body is not JSON: %v", err)
	}
	f.orderForms = append(f.orderForms, form)
	details := map[string]any{}
	raw, _ := form["shipments"].([]any)
	var ids []int
	for _, v := range raw {
		n, _ := v.(float64)
		sh := f.shipments[strconv.Itoa(int(n))]
		switch {
		case sh == nil:
			details["shipments"] = []any{"does_not_exist"}
		case sh.status != "confirmed":
			details["shipments"] = []any{"invalid_status"}
		case sh.orderID != 0 && standing(f.orders[strconv.Itoa(sh.orderID)]):
			details["shipments"] = []any{"already_dispatched"}
		}
		ids = append(ids, int(n))
	}
	if len(ids) == 0 {
		details["shipments"] = []any{"required"}
	}
	addr, _ := form["address"].(map[string]any)
	if _, point := form["dispatch_point_id"]; addr == nil && !point {
		details["address"] = []any{"required"}
	} else if pc, _ := addr["post_code"].(string); addr != nil && !rePostCode.MatchString(pc) {
		details["address"] = map[string]any{"post_code": []any{"invalid"}}
	}
	if ph, ok := form["phone"].(string); ok && !rePhone.MatchString(ph) {
		details["phone"] = []any{"invalid"}
	}
	if len(details) > 0 {
		validationFailed(w, details)
		return
	}
	f.nextID++
	o := &fakeOrder{id: f.nextID, status: "new", stepsToGo: f.orderSteps, shipments: ids, form: form}
	f.orders[strconv.Itoa(o.id)] = o
	for _, id := range ids {
		f.shipments[strconv.Itoa(id)].orderID = o.id
	}
	writeJSON(w, http.StatusCreated, f.orderView(o))
}

// advanceOrder moves an order one step on: new → sent → accepted, or
// rejected when a shipment was booked to be handed in at a point or locker
// (its sending_method not dispatch_order) [C].
func (f *fakeShipX) advanceOrder(o *fakeOrder) {
	if o.status != "new" && o.status != "sent" || o.stepsToGo < 0 {
		return
	}
	if o.stepsToGo--; o.stepsToGo > 0 {
		o.status = "sent"
		return
	}
	for _, id := range o.shipments {
		attrs, _ := f.shipments[strconv.Itoa(id)].body["custom_attributes"].(map[string]any)
		if m, _ := attrs["sending_method"].(string); m != "" && m != "dispatch_order" {
			o.status, o.errors = "rejected", map[string]any{"shipments": []any{fmt.Sprintf("shipment %d is to be sent by %s", id, m)}}
			f.release(o)
			return
		}
	}
	o.status = "accepted"
}

// release frees the shipments of an order that no longer stands.
func (f *fakeShipX) release(o *fakeOrder) {
	for _, id := range o.shipments {
		if sh := f.shipments[strconv.Itoa(id)]; sh.orderID == o.id {
			sh.orderID = 0
		}
	}
}

func (f *fakeShipX) orderView(o *fakeOrder) map[string]any {
	var shipments []any
	for _, id := range o.shipments {
		sh := f.shipments[strconv.Itoa(id)]
		var tn any
		if len(sh.tns) > 0 {
			tn = sh.tns[0]
		}
		shipments = append(shipments, map[string]any{"href": fmt.Sprintf("%s/v1/shipments/%d", f.srv.URL, id), "id": id, "tracking_number": tn})
	}
	addr, _ := o.form["address"].(map[string]any)
	view := map[string]any{"href": fmt.Sprintf("%s/v1/dispatch_orders/%d", f.srv.URL, o.id), "id": o.id, "status": o.status,
		"address": addr, "shipments": shipments, "comments": []any{}, "created_at": "2026-11-23T08:00:00.000+01:00",
		"updated_at": "2026-11-23T08:00:01.000+01:00"}
	if c, _ := o.form["comment"].(string); c != "" {
		view["comments"] = []any{map[string]any{"id": o.id * 10, "comment": c, "created_at": "2026-11-23T08:00:00.000+01:00"}}
	}
	if o.errors != nil {
		view["errors"] = o.errors
	}
	return view
}

func (f *fakeShipX) getOrder(w http.ResponseWriter, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.orders[id]
	if o == nil {
		shipXError(w, http.StatusNotFound, "resource_not_found", "Resource not found", nil)
		return
	}
	f.advanceOrder(o)
	writeJSON(w, http.StatusOK, f.orderView(o))
}

func (f *fakeShipX) listOrders(w http.ResponseWriter, r *http.Request, org string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.checkOrg(w, org) {
		return
	}
	want, _ := strconv.Atoi(r.URL.Query().Get("shipment_id"))
	items := []any{}
	for id := 101; id <= f.nextID; id++ {
		if o := f.orders[strconv.Itoa(id)]; o != nil && (want == 0 || slices.Contains(o.shipments, want)) {
			items = append(items, f.orderView(o))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"href": f.srv.URL + r.URL.Path, "count": len(items), "per_page": 30, "page": 1, "items": items})
}

// deleteOrder cancels an order InPost has not accepted yet [U: the
// conditions are not documented].
func (f *fakeShipX) deleteOrder(w http.ResponseWriter, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.orders[id]
	if o == nil {
		shipXError(w, http.StatusNotFound, "resource_not_found", "Resource not found", nil)
		return
	}
	switch o.status {
	case "new", "sent":
		o.status = "canceled"
		f.release(o)
		w.WriteHeader(http.StatusNoContent)
	default:
		shipXError(w, http.StatusBadRequest, "invalid_action",
			fmt.Sprintf("Action (delete) can not be taken on dispatch order with status (%s).", o.status),
			map[string]any{"action": "delete", "dispatch_order_status": o.status})
	}
}

// printouts answers the manifest of the shipments: one PDF per service, a
// ZIP of them when services mix, refusing more than 100 shipments, ones it
// does not hold or has not confirmed, and shipments with and without a
// dispatch order together.
func (f *fakeShipX) printouts(w http.ResponseWriter, r *http.Request, org string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.checkOrg(w, org) {
		return
	}
	q := r.URL.Query()
	ids := q["shipment_ids[]"]
	f.printoutIDs = append(f.printoutIDs, ids)
	if q.Get("format") != "Pdf" {
		f.t.Errorf("fake: printouts format %q", q.Get("format"))
	}
	fail := func(key, msg string) { shipXError(w, http.StatusBadRequest, key, msg, nil) }
	switch {
	case f.failPrintout.Take():
		fail("printout_generation_failed", "An error occurred while communicating with the logistics system")
		return
	case len(ids) == 0 || len(ids) > maxPrintoutShipments:
		fail("invalid_range", "Invalid shipment identifier range has been provided")
		return
	}
	var services []string
	byService := map[string][]*fakeShipment{}
	withOrder := 0
	for _, id := range ids {
		sh := f.shipments[id]
		switch {
		case sh == nil:
			fail("does_not_exist", "The shipment "+id+" is not available for the given organization")
			return
		case sh.status != "confirmed":
			fail("invalid_status", "Shipment "+id+" is in an incorrect status ("+sh.status+")")
			return
		}
		if sh.orderID != 0 {
			withOrder++
		}
		if _, ok := byService[sh.service]; !ok {
			services = append(services, sh.service)
		}
		byService[sh.service] = append(byService[sh.service], sh)
	}
	if withOrder != 0 && withOrder != len(ids) {
		fail("cannot_mix_shipments_with_and_without_dispatch_order", "Shipments with and without a dispatch order cannot be printed together")
		return
	}
	pdfs := map[string][]byte{}
	for _, service := range services {
		doc := labels.HandoverDocument{Carrier: "InPost", ChannelName: service, ManifestID: fmt.Sprintf("M-%d", len(f.printoutIDs)),
			Date: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC), Sender: labels.Party{Company: "Sklep Sp. z o.o."}}
		for _, sh := range byService[service] {
			hs := labels.HandoverShipment{Reference: fmt.Sprint(sh.body["reference"]), Recipient: labels.Party{Name: "Receiver", City: "Kraków", CountryCode: "PL"}}
			for _, tn := range sh.tns {
				hs.Parcels = append(hs.Parcels, labels.HandoverParcel{TrackingNumber: tn, WeightKG: 1})
			}
			doc.Shipments = append(doc.Shipments, hs)
		}
		pdf, err := labels.RenderHandover(doc)
		if err != nil {
			f.t.Errorf("fake: rendering a printout: %v", err)
		}
		pdfs[service] = pdf
	}
	if len(services) == 1 {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(pdfs[services[0]])
		return
	}
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for _, service := range services {
		fw, _ := zw.Create(service + ".pdf")
		_, _ = fw.Write(pdfs[service])
	}
	if err := zw.Close(); err != nil {
		f.t.Errorf("fake: zipping printouts: %v", err)
	}
	w.Header().Set("Content-Type", "application/zip")
	_, _ = w.Write(zipped.Bytes())
}
