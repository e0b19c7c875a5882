package dhlparcelde

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
)

// The fake's pickup side: DHL's Pickup API v3 (orders, their read-back and
// cancellation), held to DHL's file, and the shipping API's manifests.

// Values the fake DHL holds for pickups.
const (
	// fakeToday is the fake DHL's date: a Monday.
	fakeToday = "2026-11-23"
	// testPickupBilling is the billing number the fake's account may be
	// charged pickups at any address to (procedure 08).
	testPickupBilling = "33333333330801"
	// agreedLocation is the account's agreed pickup location, at
	// agreedAddress.
	agreedLocation = "AS3254120698"
)

var agreedAddress = pickupAddress{Name1: "My Online Shop GmbH", AddressStreet: "Sträßchensweg", AddressHouse: "10",
	PostalCode: "53113", City: "Bonn", Country: "DE"}

// fakeOrder is a pickup order the fake DHL keeps.
type fakeOrder struct {
	id, state, date string
	order           pickupOrder
	ordered         string // orderDate of its items, CET
}

type fakePickups struct {
	orders   map[string]*fakeOrder // by orderID
	serial   int
	placed   int      // POST /orders that made an order: what DHL's records show
	closedOn []string // shipment numbers closed out, in order (all on fakeToday)
	// manifestParts is how many documents GET /manifests answers the day's
	// manifest in (DHL's manifest is an array of documents).
	manifestParts int
	// refuse makes DHL refuse an order with these errors (422).
	refuse []pickupError
}

func (f *fake) loadPickupSpec() {
	spec, err := vendorspec.Load("testdata/parcel-de-pickup-v3.yaml", f.srv.URL+pickupBase, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	spec.Auth = func(_ context.Context, a *openapi3filter.AuthenticationInput) error {
		tok, ok := strings.CutPrefix(a.RequestValidationInput.Request.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		defer f.mu.Unlock()
		if a.SecuritySchemeName == "BearerAuth" && ok && f.tokens[tok] {
			return nil
		}
		return errors.New("no " + a.SecuritySchemeName)
	}
	f.pickupSpec = spec
	f.pickup = fakePickups{orders: map[string]*fakeOrder{}, manifestParts: 1}
}

// placedOrders counts the pickup orders DHL made.
func (f *fake) placedOrders() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pickup.placed
}

// pickups is the Pickup API: auth, the request held to DHL's file, the
// operation, the answer held to the file too.
func (f *fake) pickups(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	valid := ok && f.tokens[tok] && !f.refuseTokens
	f.mu.Unlock()
	if !valid {
		w.WriteHeader(http.StatusUnauthorized) // DHL's file documents no body
		return
	}
	checked, err := f.pickupSpec.CheckRequest(r)
	if err != nil {
		if strings.Contains(err.Error(), "is no operation of the document") {
			f.t.Errorf("%v", err)
			w.WriteHeader(http.StatusNotFound)
			return
		}
		f.report("%v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	err = f.pickupSpec.Answer(w, checked, func(rec http.ResponseWriter) {
		switch checked.Operation {
		case "orderPickup":
			f.orderPickup(rec, r)
		case "getOrders":
			f.getOrders(rec, r)
		case "deleteOrders":
			f.deleteOrders(rec, r)
		default:
			f.report("the adapter called %s, which it has no need of", checked.Operation)
			rec.WriteHeader(http.StatusBadRequest)
		}
	})
	if err != nil {
		f.t.Errorf("the fake's answer: %v", err)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// orderPickup is POST /orders, with the rules DHL's developer portal
// states beyond the schema: an order without a billing number is a pickup
// at an agreed location and names each item's size; a billing number must
// be the account's; a date must not be past; a shipment number must be one
// of the account's. DHL confirms the date ordered (whether it moves a date
// it does not serve or refuses it is not documented).
func (f *fake) orderPickup(w http.ResponseWriter, r *http.Request) {
	var o pickupOrder
	if err := json.NewDecoder(r.Body).Decode(&o); err != nil {
		f.t.Errorf("pickup order body: %v", err)
	}
	var errs []pickupError
	refuse := func(code int, title, instance, detail string) {
		errs = append(errs, pickupError{ErrorCode: code, Title: title, Instance: instance, Detail: detail})
	}
	f.mu.Lock()
	errs = append(errs, f.pickup.refuse...)
	f.mu.Unlock()
	date, err := time.Parse(time.DateOnly, o.PickupDetails.PickupDate.Value)
	switch {
	case err == nil && date.Weekday() == time.Sunday:
		refuse(462, "No pickup on Sundays", "pickupDetails.pickupDate", o.PickupDetails.PickupDate.Value)
	case o.PickupDetails.PickupDate.Type != "Date" || err != nil:
		f.report("pickup date %+v", o.PickupDetails.PickupDate)
	case o.PickupDetails.PickupDate.Value < fakeToday:
		refuse(422, "Pickup date in the past", "pickupDetails.pickupDate", o.PickupDetails.PickupDate.Value)
	}
	if o.CustomerDetails != nil && o.CustomerDetails.BillingNumber != testPickupBilling {
		refuse(456, "Unknown billingnumber", "customerDetails.billingNumber", o.CustomerDetails.BillingNumber)
	}
	switch loc := o.PickupLocation; {
	case loc.Type == "Id" && loc.AsID != agreedLocation:
		refuse(460, "Unknown pickup location", "pickupLocation.asId", loc.AsID)
	case loc.Type == "Address" && o.CustomerDetails == nil && !agreed(*loc.PickupAddress):
		refuse(461, "No agreed pickup location at this address", "pickupLocation.pickupAddress", "Einzelabholung needs customerDetails.billingNumber")
	}
	for i, it := range o.ShipmentDetails.Shipments {
		if o.CustomerDetails == nil && it.Size == "" {
			refuse(470, "Size missing", fmt.Sprintf("shipmentDetails.shipments[%d].size", i), "mandatory without billing number")
		}
		if it.ShipmentNo != "" {
			f.mu.Lock()
			sh, ok := f.shipments[it.ShipmentNo]
			f.mu.Unlock()
			if !ok || sh.deleted {
				refuse(471, "Unknown shipment number", fmt.Sprintf("shipmentDetails.shipments[%d].shipmentNo", i), it.ShipmentNo)
			}
		}
	}
	if len(errs) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, errs)
		return
	}
	f.mu.Lock()
	f.pickup.serial++
	f.pickup.placed++
	id := fmt.Sprintf("%032x", 0xd41a0000+f.pickup.serial)
	ord := &fakeOrder{id: id, state: "ANGENOMMEN", date: date.Format(time.DateOnly), order: o, ordered: fakeToday + "T10:15:00"}
	f.pickup.orders[id] = ord
	f.mu.Unlock()
	pickupType := "BDA"
	if o.CustomerDetails != nil {
		pickupType = "EZA"
	}
	var confirmed []map[string]any
	for _, it := range o.ShipmentDetails.Shipments {
		c := map[string]any{"transportationType": it.TransportationType, "orderDate": ord.ordered}
		if it.ShipmentNo != "" {
			c["shipmentNo"] = it.ShipmentNo
		}
		confirmed = append(confirmed, c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"confirmation": map[string]any{"type": "ORDERPICKUP", "value": map[string]any{
		"orderID": id, "pickupDate": ord.date, "freeOfCharge": o.CustomerDetails == nil, "pickupType": pickupType,
		"confirmedShipments": confirmed}}})
}

func agreed(a pickupAddress) bool {
	return a.PostalCode == agreedAddress.PostalCode && a.AddressStreet == agreedAddress.AddressStreet && a.AddressHouse == agreedAddress.AddressHouse
}

// getOrders is GET /orders by orderID, or by pickupDate (required without
// an id, DHL's file says) and the address filters.
func (f *fake) getOrders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("orderID") == "" && q.Get("pickupDate") == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []map[string]any{}
	ids := make([]string, 0, len(f.pickup.orders))
	for id := range f.pickup.orders {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		o := f.pickup.orders[id]
		addr := o.order.PickupLocation.PickupAddress
		if o.order.PickupLocation.Type == "Id" {
			addr = &agreedAddress
		}
		switch {
		case q.Get("orderID") != "" && q.Get("orderID") != id,
			q.Get("pickupDate") != "" && q.Get("pickupDate") != o.order.PickupDetails.PickupDate.Value,
			q.Get("pickupPostalCode") != "" && q.Get("pickupPostalCode") != addr.PostalCode:
			continue
		}
		billing := testBilling // an agreed location's orders are the account's
		if o.order.CustomerDetails != nil {
			billing = o.order.CustomerDetails.BillingNumber
		}
		loc := map[string]any{"pickupAddress": addr}
		if o.order.PickupLocation.Type == "Id" {
			loc["id"] = o.order.PickupLocation.AsID
		}
		var items []map[string]any
		for _, it := range o.order.ShipmentDetails.Shipments {
			item := map[string]any{"shipment": it, "orderDate": o.ordered}
			if o.state == "ABGEHOLT" {
				item["shipmentState"] = map[string]any{"state": "ABGEHOLT", "actualPickupDate": o.date}
			}
			items = append(items, item)
		}
		status := map[string]any{
			"orderDetails":    map[string]any{"orderID": id, "orderState": o.state},
			"customerDetails": map[string]any{"billingNumber": billing},
			"pickupLocation":  loc,
			"pickupDetails":   o.order.PickupDetails,
			"shipmentDetails": map[string]any{"shipments": items},
		}
		if o.order.ContactPerson != nil {
			status["contactPerson"] = o.order.ContactPerson
		}
		if o.order.BusinessHours != nil {
			status["businessHours"] = o.order.BusinessHours
		}
		out = append(out, status)
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteOrders is DELETE /orders?orderID=…: an accepted order is
// cancelled, any other is a failed cancellation saying its state.
func (f *fake) deleteOrders(w http.ResponseWriter, r *http.Request) {
	confirmed, failed := []cancellation{}, []cancellation{}
	f.mu.Lock()
	for _, id := range r.URL.Query()["orderID"] {
		o, ok := f.pickup.orders[id]
		switch {
		case !ok:
			failed = append(failed, cancellation{OrderID: id, Message: "Auftrag nicht gefunden."})
		case o.state == "ANGENOMMEN":
			o.state = stateCancelled
			confirmed = append(confirmed, cancellation{OrderID: id, OrderState: o.state, Message: "Der Auftrag wurde storniert."})
		default:
			failed = append(failed, cancellation{OrderID: id, OrderState: o.state, Message: "Der Auftrag kann nicht mehr storniert werden."})
		}
	}
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, cancelResult{ConfirmedCancellations: confirmed, FailedCancellations: failed})
}

// closeOut is POST /manifests: each shipment is closed out; one closed
// already is DHL's warning [V: a warning; U: its status, here 200]; one DHL
// does not hold is refused.
func (f *fake) closeOut(w http.ResponseWriter, body []byte) {
	var req manifestRequest
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("manifest body: %v", err)
	}
	if req.Profile != DefaultProfile {
		f.t.Errorf("close-out with profile %q", req.Profile)
	}
	var items []map[string]any
	f.mu.Lock()
	for _, no := range req.ShipmentNumbers {
		sh, ok := f.shipments[no]
		st := okStatus()
		switch {
		case !ok || sh.deleted:
			st = requestStatus{Title: "Unknown shipment number.", StatusCode: 400, Status: 400, Detail: "The shipment number is unknown."}
		case f.manifested[no]:
			st = requestStatus{Title: "Warning", StatusCode: 200, Status: 200, Detail: "The shipment was already closed."}
		default:
			f.manifested[no] = true
			f.pickup.closedOn = append(f.pickup.closedOn, no)
		}
		items = append(items, map[string]any{"shipmentNo": no, "sstatus": st})
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusMultiStatus)
	json.NewEncoder(w).Encode(map[string]any{"status": requestStatus{Title: "Multistatus", StatusCode: 207, Status: 207}, "items": items})
}

// manifest is GET /manifests?date=: the day's document listing every
// shipment closed out on it, in manifestParts PDFs, a sheet each; a date
// after today or a month back is refused (400).
func (f *fake) manifest(w http.ResponseWriter, r *http.Request) {
	date := r.URL.Query().Get("date")
	if date == "" {
		date = fakeToday
	}
	if date > fakeToday || date < "2026-10-23" {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(labelDataResponse{Status: requestStatus{Title: "Bad Request", StatusCode: 400, Status: 400, Detail: "The date is too old or in the future."}})
		return
	}
	f.mu.Lock()
	var closed []string
	if date == fakeToday {
		closed = slices.Clone(f.pickup.closedOn)
	}
	parts := f.pickup.manifestParts
	f.mu.Unlock()
	ans := map[string]any{"status": okStatus(), "manifestDate": date}
	if len(closed) > 0 {
		var docs, items []map[string]any
		for i, chunk := range chunks(closed, parts) {
			sheet := fmt.Sprint(101 + i)
			d := labels.HandoverDocument{Carrier: "DHL Paket", ManifestID: "Tagesabschluss " + date + " Blatt " + sheet,
				Date: time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC), Sender: labels.Party{Name: "EKP 3333333333", City: "Bonn", CountryCode: "DE"}}
			for _, no := range chunk {
				d.Shipments = append(d.Shipments, labels.HandoverShipment{Reference: no,
					Recipient: labels.Party{Name: "Consignee", City: "Bonn", CountryCode: "DE"},
					Parcels:   []labels.HandoverParcel{{TrackingNumber: no, WeightKG: 1}}})
				items = append(items, map[string]any{"shipmentNo": no, "sheetNo": sheet, "sstatus": okStatus()})
			}
			pdf, err := labels.RenderHandover(d)
			if err != nil {
				f.t.Fatalf("render the day's manifest: %v", err)
			}
			docs = append(docs, map[string]any{"b64": base64.StdEncoding.EncodeToString(pdf), "fileFormat": "PDF", "printFormat": "A4"})
		}
		ans["manifest"], ans["items"] = docs, items
		ans["sheetNo"] = []map[string]any{{"billingNumber": testBilling, "sheetNo": "101"}}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ans)
}

// chunks splits s into n nearly equal runs, in order (fewer when s is short).
func chunks(s []string, n int) [][]string {
	var out [][]string
	size := (len(s) + n - 1) / n
	for c := range slices.Chunk(s, max(size, 1)) {
		out = append(out, c)
	}
	return out
}
