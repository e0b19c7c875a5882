package dhlexpress

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The fake's pickup side: POST /pickups, DELETE /pickups/{n} and the
// pickup capabilities of GET /products, as DHL's file defines them (the
// requests and answers are held to it by serve).

// fakePickup is a pickup the fake DHL booked.
type fakePickup struct {
	req       pickupRequest
	state     string // "booked", "cancelled", "completed"
	requestor string // of the cancel
	reason    string
}

type fakePickups struct {
	booked map[string]*fakePickup // by dispatch confirmation number
	serial int
	orders int // POST /pickups that booked: what DHL's records show
	// numbers is how many dispatch confirmation numbers a booking gets
	// (DHL answers a list); 0 is 1.
	numbers int
	// confirm makes DHL answer a ready-by time and next pickup date.
	confirm bool
	// noNumber makes DHL answer 201 without a number, with a warning.
	noNumber bool
	// noTimes makes the pickup capabilities name no times.
	noTimes bool
}

// pickupOrders counts the pickups DHL booked.
func (f *fake) pickupOrders() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pickups.orders
}

// bookPickup is POST /pickups, with DHL's rules beyond the schema: the
// account must be the shipper's, the ready time neither past nor more than
// 10 days ahead [V], the close time after it, every waybill named one
// DHL booked with as many pieces.
func (f *fake) bookPickup(w http.ResponseWriter, r *http.Request) {
	var req pickupRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("pickup body: %v", err)
	}
	refuse := func(detail string) {
		writeProblem(w, http.StatusBadRequest, problem{Instance: "/expressapi/pickups", Title: "Bad request", Message: "Bad request", Detail: detail})
	}
	if req.Accounts[0].Number != testAccount {
		refuse("8003: Account not allowed for this service. Please contact your DHL Express representative.")
		return
	}
	ready, err := time.Parse("2006-01-02T15:04:05 GMT-07:00", req.PlannedPickupDateAndTime)
	if err != nil {
		f.report("plannedPickupDateAndTime %q: %v", req.PlannedPickupDateAndTime, err)
		refuse("Invalid #/plannedPickupDateAndTime")
		return
	}
	if ready.Before(fixedNow) || ready.After(fixedNow.AddDate(0, 0, 10)) {
		refuse("5003: The pickup date #/plannedPickupDateAndTime is in the past or more than 10 days ahead")
		return
	}
	if req.CloseTime != "" && req.CloseTime <= ready.Format("15:04") {
		refuse("5004: #/closeTime must be after the ready time")
		return
	}
	for i, sh := range req.ShipmentDetails {
		f.mu.Lock()
		known, ok := f.shipments[sh.ShipmentTrackingNumber]
		f.mu.Unlock()
		switch {
		case sh.ShipmentTrackingNumber == "":
		case !ok:
			refuse(fmt.Sprintf("5010: Unknown shipment #/shipmentDetails/%d/shipmentTrackingNumber", i))
			return
		case len(known.pieces) != len(sh.Packages):
			f.report("waybill %s has %d pieces, the pickup names %d", known.waybill, len(known.pieces), len(sh.Packages))
		}
	}
	f.mu.Lock()
	noNumber, n, confirm := f.pickups.noNumber, max(f.pickups.numbers, 1), f.pickups.confirm
	ans := map[string]any{"dispatchConfirmationNumbers": []string{}}
	if noNumber {
		ans["warnings"] = []string{"Pickup could not be scheduled: no courier available"}
	} else {
		f.pickups.orders++
		var numbers []string
		for range n {
			f.pickups.serial++
			no := fmt.Sprintf("PRG%s%06d", ready.Format("060102"), f.pickups.serial)
			numbers = append(numbers, no)
			f.pickups.booked[no] = &fakePickup{req: req, state: "booked"}
		}
		ans["dispatchConfirmationNumbers"] = numbers
		if confirm {
			ans["readyByTime"], ans["nextPickupDate"] = "11:00", ready.AddDate(0, 0, 1).Format(time.DateOnly)
		}
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(ans)
}

// cancelPickup is DELETE /pickups/{n}?requestorName=&reason=: 404 for a
// number DHL does not know, 400 for one cancelled or completed, shaped
// after DHL's examples.
func (f *fake) cancelPickup(w http.ResponseWriter, r *http.Request, number string) {
	f.mu.Lock()
	p, ok := f.pickups.booked[number]
	state := ""
	if ok {
		state = p.state
		if state == "booked" {
			p.state, p.requestor, p.reason = "cancelled", r.URL.Query().Get("requestorName"), r.URL.Query().Get("reason")
		}
	}
	f.mu.Unlock()
	switch state {
	case "":
		writeProblem(w, http.StatusNotFound, problem{Instance: "/expressapi/pickups/" + number + "?" + r.URL.RawQuery,
			Title: "Pickup not found", Detail: "Cancellation of booking was not successful. Requested Pickup was not found"})
	case "cancelled":
		writeProblem(w, http.StatusBadRequest, problem{Instance: "/expressapi/pickups/" + number, Title: "Bad request", Message: "Bad request",
			Detail: "Pickup already cancelled"})
	case "completed":
		writeProblem(w, http.StatusBadRequest, problem{Instance: "/expressapi/pickups/" + number, Title: "Bad request", Message: "Bad request",
			Detail: "Pickup already completed"})
	default:
		w.WriteHeader(http.StatusOK) // "Pickup cancelled", no body [V]
	}
}

// products is GET /products: two products with their pickup capabilities
// (the domestic N or Express Worldwide P, and U), DHL's example values;
// no product on a Sunday (nextBusinessDay is false); the account must be
// the shipper's.
func (f *fake) products(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("accountNumber") != testAccount {
		writeProblem(w, http.StatusBadRequest, problem{Instance: "/expressapi/products", Title: "Bad request", Message: "Bad request",
			Detail: "The account number is not found or invalid. Please check the account number and retry."})
		return
	}
	day, err := time.Parse(time.DateOnly, q.Get("plannedShippingDate"))
	if err != nil {
		f.report("plannedShippingDate %q", q.Get("plannedShippingDate"))
	}
	if q.Get("nextBusinessDay") != "false" {
		f.report("nextBusinessDay %q: the adapter asks for the date itself", q.Get("nextBusinessDay"))
	}
	f.mu.Lock()
	noTimes := f.pickups.noTimes
	f.mu.Unlock()
	products := []any{}
	if day.Weekday() != time.Sunday {
		first := "P"
		if q.Get("originCountryCode") == q.Get("destinationCountryCode") {
			first = "N"
		}
		latest := "18:00:00"
		if day.Weekday() == time.Saturday {
			latest = "12:00:00"
		}
		for i, code := range []string{first, "U"} {
			pc := map[string]any{"nextBusinessDay": false, "localCutoffDateAndTime": day.Format(time.DateOnly) + "T17:00:00",
				"pickupEarliest": fmt.Sprintf("%02d:30:00", 8+i), "pickupLatest": latest, "pickupCutoffSameDayOutboundProcessing": "16:00:00",
				"originServiceAreaCode": "PRG", "originFacilityAreaCode": "PR3", "pickupAdditionalDays": 0, "pickupDayOfWeek": int(day.Weekday())}
			if noTimes {
				delete(pc, "pickupEarliest")
				delete(pc, "pickupLatest")
			}
			products = append(products, map[string]any{"productName": "EXPRESS " + code, "productCode": code, "localProductCode": code,
				"networkTypeCode": "TD", "isCustomerAgreement": false, "pickupCapabilities": pc})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"products": products})
}
