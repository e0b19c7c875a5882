package allegro

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/adapters/labels"
)

// The fake's shipping day: pickup proposals, the pickup's create command,
// its status and read-back, and the shipment protocol, every request and
// answer held to Allegro's file as the booking's are (fake.api).

// References of shipments the fake treats apart.
const (
	readyLate  = "ready-late"  // the courier can collect it in the afternoon only
	noProtocol = "no-protocol" // its carrier makes no protocol: Allegro answers 204
)

// The windows the fake proposes on a day.
var (
	morning   = pickupTime{MinTime: "09:00", MaxTime: "12:00"}
	afternoon = pickupTime{MinTime: "12:00", MaxTime: "16:00"}
)

// fakePickupCommand is a pickup's create command the fake took.
type fakePickupCommand struct {
	input    pickupInput
	polls    int // IN_PROGRESS answers left
	status   string
	errors   []apiError
	pickupID string
}

// fakePickup is a pickup the fake ordered.
type fakePickup struct {
	id, carrierNo string
	input         pickupInput
}

// proposedTimes are the pickup times proposed for sh ready on ready (today
// when empty): the first two working days from then (couriers do not come
// at weekends), morning and afternoon, the afternoon only for a shipment
// ready late; none for a parcel locker method's shipment, which the
// merchant hands in at a locker.
func proposedTimes(sh *fakeShipment, ready string) []pickupTime {
	if sh.input.DeliveryMethodID == lockerMethod {
		return []pickupTime{}
	}
	day, err := time.Parse(time.DateOnly, ready)
	if err != nil {
		day = time.Now().UTC()
	}
	out := []pickupTime{} // an empty list, not null [V: the array is not nullable]
	for days := 0; days < 2; day = day.AddDate(0, 0, 1) {
		if day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
			continue
		}
		days++
		date := day.Format(time.DateOnly)
		for _, w := range []pickupTime{morning, afternoon} {
			if w == morning && sh.input.ReferenceNumber == readyLate {
				continue
			}
			w.Date = date
			out = append(out, w)
		}
	}
	return out
}

// addShipment stores a booked shipment directly (a test needing many).
func (f *fake) addShipment(in shipmentInput) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.makeShipment(in)
}

// unknownShipments are Allegro's errors for the ids it does not hold, each
// naming its index under prefix (mu held).
func (f *fake) unknownShipments(ids []string, prefix string) []apiError {
	var errs []apiError
	for i, id := range ids {
		if f.shipments[id] == nil {
			errs = append(errs, apiError{Code: "NOT_FOUND", Path: ptr(fmt.Sprintf("%sshipmentIds[%d]", prefix, i)),
				Message: "Shipment " + id + " not found", UserMessage: "Nie znaleziono przesyłki"})
		}
	}
	return errs
}

func (f *fake) pickupProposals(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, body []byte) {
	var pr proposalsRequest
	if err := json.Unmarshal(body, &pr); err != nil {
		f.report("pickup proposals: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.proposalBodies = append(f.proposalBodies, pr)
	if errs := f.unknownShipments(pr.ShipmentIDs, ""); len(errs) > 0 {
		f.answer(w, r, req, http.StatusBadRequest, errorList{Errors: errs})
		return
	}
	proposals := make([]map[string]any, len(pr.ShipmentIDs))
	for i, id := range pr.ShipmentIDs {
		proposals[i] = map[string]any{"shipmentId": id, "pickupTimes": proposedTimes(f.shipments[id], pr.ReadyDate)}
	}
	f.answer(w, r, req, http.StatusOK, []map[string]any{{"proposals": proposals, "address": pr.Address}})
}

func (f *fake) pickupCommand(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, body []byte) {
	var cmd pickupCommand
	if err := json.Unmarshal(body, &cmd); err != nil {
		f.report("pickup command: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.pickupCmds[cmd.CommandID]; dup {
		// AssumedDuplicateCommandRefused, as for shipments.
		f.answer(w, r, req, http.StatusBadRequest, errorList{Errors: []apiError{{Code: "COMMAND_ALREADY_EXISTS",
			Message: "Command " + cmd.CommandID + " already exists"}}})
		return
	}
	errs := f.unknownShipments(cmd.Input.ShipmentIDs, "input.")
	if cmd.Input.PickupTime == nil {
		errs = append(errs, apiError{Code: "VALIDATION_ERROR", Path: ptr("input.pickupTime"), Message: "Required if pickupDateProposalId not provided"})
	}
	if len(errs) > 0 {
		f.answer(w, r, req, http.StatusBadRequest, errorList{Errors: errs})
		return
	}
	f.pickupCmds[cmd.CommandID] = &fakePickupCommand{input: cmd.Input, polls: f.pollsPerCmd, status: commandInProgress}
	w.Header().Set("Retry-After", f.retryAfter)
	f.answer(w, r, req, http.StatusOK, cmd)
}

// pickupRefusal is what the command fails with: a shipment a pickup
// collects already, a date without proposals, a window not proposed.
func (f *fake) pickupRefusal(in pickupInput) []apiError {
	t := *in.PickupTime
	for i, id := range in.ShipmentIDs {
		sh := f.shipments[id]
		if sh.pickupID != "" {
			return []apiError{{Code: "PICKUP_ALREADY_ORDERED", Path: ptr(fmt.Sprintf("input.shipmentIds[%d]", i)),
				Message: "Pickup for shipment " + id + " was already ordered"}}
		}
		var onDate []pickupTime
		for _, p := range proposedTimes(sh, t.Date) {
			if p.Date == t.Date {
				onDate = append(onDate, p)
			}
		}
		switch {
		case len(onDate) == 0:
			return []apiError{{Code: "PICKUP_DATE_UNAVAILABLE", Path: ptr("input.pickupTime.date"), Message: "No pickup on " + t.Date,
				UserMessage: "Odbiór w tym dniu jest niemożliwy"}}
		case !slices.Contains(onDate, t):
			return []apiError{{Code: "PICKUP_TIME_UNAVAILABLE", Path: ptr("input.pickupTime.minTime"),
				Message: fmt.Sprintf("No pickup slot %s-%s on %s", t.MinTime, t.MaxTime, t.Date)}}
		}
	}
	return nil
}

func (f *fake) pickupStatus(w http.ResponseWriter, r *http.Request, req *vendorspec.Request) {
	id := req.PathParams["commandId"]
	f.mu.Lock()
	defer f.mu.Unlock()
	cmd := f.pickupCmds[id]
	if cmd == nil {
		f.answer(w, r, req, http.StatusNotFound, nil)
		return
	}
	if cmd.status == commandInProgress {
		switch {
		case cmd.polls > 0:
			cmd.polls--
		case f.pickupRefusal(cmd.input) != nil:
			cmd.status, cmd.errors = commandError, f.pickupRefusal(cmd.input)
		default:
			f.serial++
			p := &fakePickup{id: fmt.Sprintf("5b3a1c2e-0d4f-4e6a-9b7c-%012d", f.serial), carrierNo: fmt.Sprintf("AD%07d", f.serial), input: cmd.input}
			f.pickups[p.id] = p
			for _, sid := range cmd.input.ShipmentIDs {
				f.shipments[sid].pickupID = p.id
			}
			cmd.status, cmd.pickupID = commandSuccess, p.id
		}
	}
	st := commandStatus{CommandID: id, Status: cmd.status, Errors: cmd.errors, PickupID: cmd.pickupID}
	if cmd.status == commandSuccess && !f.lateCarrierNo {
		st.CarrierPickupID = f.pickups[cmd.pickupID].carrierNo
	}
	if cmd.status == commandInProgress {
		w.Header().Set("Retry-After", f.retryAfter)
	}
	f.answer(w, r, req, http.StatusOK, st)
}

func (f *fake) pickupDetails(w http.ResponseWriter, r *http.Request, req *vendorspec.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pickups[req.PathParams["pickupId"]]
	if p == nil {
		f.answer(w, r, req, http.StatusNotFound, errorList{Errors: []apiError{{Code: "NOT_FOUND", Message: "Pickup not found"}}})
		return
	}
	var waybills []string
	for _, id := range p.input.ShipmentIDs {
		waybills = append(waybills, f.shipments[id].waybills...)
	}
	f.answer(w, r, req, http.StatusOK, map[string]any{"id": p.id, "carrierPickupId": p.carrierNo, "carrier": "ALLEGRO",
		"pickupCarrier": "DPD", "address": p.input.Address, "shipmentIds": p.input.ShipmentIDs, "waybills": waybills})
}

// protocol answers one PDF listing every parcel of the shipments, as a
// handover document, or 204 when one of them goes with a carrier that makes
// no protocol.
func (f *fake) protocol(w http.ResponseWriter, r *http.Request, req *vendorspec.Request, body []byte) {
	var in struct {
		ShipmentIDs []string `json:"shipmentIds"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		f.report("protocol: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.protocolCalls = append(f.protocolCalls, in.ShipmentIDs)
	if errs := f.unknownShipments(in.ShipmentIDs, ""); len(errs) > 0 {
		f.answer(w, r, req, http.StatusNotFound, errorList{Errors: errs})
		return
	}
	doc := labels.HandoverDocument{Carrier: "Allegro", ChannelName: "Wysyłam z Allegro", ManifestID: fmt.Sprintf("PROT-%d", len(f.protocolCalls)),
		Date: time.Now()}
	for _, id := range in.ShipmentIDs {
		sh := f.shipments[id]
		if sh.input.ReferenceNumber == noProtocol {
			f.answerRaw(w, r, req, http.StatusNoContent, "", nil)
			return
		}
		doc.Sender = labels.Party{Name: sh.input.Sender.Name, Company: sh.input.Sender.Company, City: sh.input.Sender.City}
		hs := labels.HandoverShipment{Reference: sh.input.ReferenceNumber,
			Recipient: labels.Party{Name: sh.input.Receiver.Name, PostalCode: sh.input.Receiver.PostalCode, City: sh.input.Receiver.City, CountryCode: sh.input.Receiver.CountryCode}}
		for i, wb := range sh.waybills {
			hs.Parcels = append(hs.Parcels, labels.HandoverParcel{TrackingNumber: wb, WeightKG: sh.input.Packages[i].Weight.Value})
		}
		doc.Shipments = append(doc.Shipments, hs)
	}
	pdf, err := labels.RenderHandover(doc)
	if err != nil {
		f.t.Fatalf("rendering a protocol: %v", err)
	}
	f.answerRaw(w, r, req, http.StatusOK, "application/octet-stream", pdf)
}
