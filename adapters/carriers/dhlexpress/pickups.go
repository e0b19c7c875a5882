package dhlexpress

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

var _ carrier.Dispatcher = (*Carrier)(nil)

// settingPickupZone names the IANA time zone of the channel's pickups.
const settingPickupZone = "pickupTimeZone"

// dispatchInfo is what GET /v1/providers publishes of DHL Express's
// pickups and manifests.
var dispatchInfo = carrier.DispatchInfo{
	Pickups:             true,
	PickupCancel:        true,
	PickupAvailability:  carrier.AvailabilityCarrier,
	PickupShipments:     carrier.PickupNamesShipments,
	Manifest:            carrier.ManifestByShipd,
	CancelAfterManifest: carrier.CancelAfterManifestRefused,
	Note: "A DHL Express pickup names its waybills with every piece's weight and size (a bare count does not fit DHL's order), " +
		"up to 10 days ahead, ready from a time until the premises close; DHL answers its confirmation number. " +
		"The windows are DHL's earliest and latest pickup times for the date, read from its product capabilities. " +
		"DHL makes no manifest (shipd's handover document), and a DHL Express waybill cannot be cancelled through the API at all.",
}

// Limits of DHL's pickup request [V supermodelIoLogisticsExpressPickupRequest].
const (
	maxPickupShipments   = 999
	maxInstructions      = 4
	maxInstructionLength = 80
	// maxPickupDaysAhead: the ready date must be neither past nor more
	// than 10 days ahead [V plannedPickupDateAndTime].
	maxPickupDaysAhead = 10
)

// pickupRequest is supermodelIoLogisticsExpressPickupRequest, the part the
// adapter writes.
type (
	pickupRequest struct {
		PlannedPickupDateAndTime string           `json:"plannedPickupDateAndTime"`
		CloseTime                string           `json:"closeTime,omitempty"`
		LocationType             string           `json:"locationType,omitempty"`
		Accounts                 []account        `json:"accounts"`
		SpecialInstructions      []instruction    `json:"specialInstructions,omitempty"`
		CustomerDetails          pickupCustomer   `json:"customerDetails"`
		ShipmentDetails          []pickupShipment `json:"shipmentDetails"`
	}
	instruction struct {
		Value string `json:"value"`
	}
	pickupCustomer struct {
		ShipperDetails party `json:"shipperDetails"`
	}
	pickupShipment struct {
		ProductCode            string          `json:"productCode"`
		IsCustomsDeclarable    bool            `json:"isCustomsDeclarable"`
		UnitOfMeasurement      string          `json:"unitOfMeasurement"`
		ShipmentTrackingNumber string          `json:"shipmentTrackingNumber,omitempty"`
		Packages               []pickupPackage `json:"packages"`
	}
	pickupPackage struct {
		Weight     float64    `json:"weight"`
		Dimensions dimensions `json:"dimensions"`
	}
	// pickupResponse is supermodelIoLogisticsExpressPickupResponse.
	pickupResponse struct {
		DispatchConfirmationNumbers []string `json:"dispatchConfirmationNumbers"`
		ReadyByTime                 string   `json:"readyByTime"`
		NextPickupDate              string   `json:"nextPickupDate"`
		Warnings                    []string `json:"warnings"`
	}
)

// pickupHandle is what a pickup keeps besides its number (CourierPickup's
// Handle, JSON): every number DHL answered (a pickup may get several), who
// ordered it (a cancel must name its requestor), and what DHL confirmed.
type pickupHandle struct {
	Numbers   []string `json:"numbers"`
	Requestor string   `json:"requestor"`
	Date      string   `json:"date,omitempty"`
	ReadyBy   string   `json:"readyBy,omitempty"`
}

func (h pickupHandle) pickup() carrier.CourierPickup {
	raw, _ := json.Marshal(h)
	return carrier.CourierPickup{ConfirmationNumber: h.Numbers[0], Date: h.Date, ReadyFrom: h.ReadyBy, Handle: string(raw)}
}

// OrderCourierPickup books a pickup (POST /pickups): ready on req.Date from
// req.ReadyFrom (the shipper's local time with its GMT offset) until
// req.ReadyUntil (closeTime), at req.Address as the shipper, each shipment
// with its waybill, product and every piece's weight and size. DHL answers
// its dispatch confirmation number(s), recorded through req.Booking as the
// pickup's handle as soon as DHL answers; an attempt given that handle
// answers it again and books nothing (DHL takes no key of ours and has no
// operation that reads a pickup back).
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	if err := checkSettings(s); err != nil {
		return carrier.CourierPickup{}, err
	}
	if req.Booking.Handle != "" {
		var h pickupHandle
		if err := json.Unmarshal([]byte(req.Booking.Handle), &h); err != nil || len(h.Numbers) == 0 {
			return carrier.CourierPickup{}, carrierhttp.Unavailable("dhl_express: the pickup's handle %q is unreadable: %v", req.Booking.Handle, err)
		}
		return h.pickup(), nil
	}
	body, err := c.pickupRequestOf(s, req)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	res, err := c.call(ctx, s, http.MethodPost, "/pickups", nil, raw)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		return carrier.CourierPickup{}, pickupRejection(res, "pickup")
	}
	var ans pickupResponse
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		return carrier.CourierPickup{}, fmt.Errorf("dhl_express: pickup: unreadable answer: %v", err)
	}
	var numbers []string
	for _, n := range ans.DispatchConfirmationNumbers {
		if n = strings.TrimSpace(n); n != "" {
			numbers = append(numbers, n)
		}
	}
	if len(numbers) == 0 {
		// DHL's answer may hold no number (minItems 0) [V]: no pickup to
		// keep or cancel, whatever its warnings say.
		return carrier.CourierPickup{}, carrier.Reject("", "DHL Express confirmed no pickup: %s", orDefault(strings.Join(ans.Warnings, "; "), "its answer holds no dispatch confirmation number"))
	}
	h := pickupHandle{Numbers: numbers, Requestor: requestor(req.Contact), Date: dateOf(ans.NextPickupDate), ReadyBy: clockOf(ans.ReadyByTime)}
	p := h.pickup()
	if err := carrierhttp.Accept(ctx, req.Booking, p.Handle); err != nil {
		return carrier.CourierPickup{}, err
	}
	return p, nil
}

// requestor is who ordered the pickup, the name a cancel gives DHL.
func requestor(ct carrier.Contact) string {
	if n := strings.TrimSpace(strings.TrimSpace(ct.FirstName) + " " + strings.TrimSpace(ct.LastName)); n != "" {
		return n
	}
	return orDefault(strings.TrimSpace(ct.CompanyName), AssumedRequestor)
}

// dateOf is a date DHL wrote as YYYY-MM-DD, else "".
func dateOf(s string) string {
	if _, err := time.Parse(time.DateOnly, strings.TrimSpace(s)); err != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// clockOf is a time of day DHL wrote as HH:MM or HH:MM:SS, as HH:MM; else "".
func clockOf(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 5 && clock(s[:5]) && (len(s) == 5 || len(s) == 8) {
		return s[:5]
	}
	return ""
}

// clock reports whether s is a time of day 15:04.
func clock(s string) bool {
	_, err := time.Parse("15:04", s)
	return err == nil && len(s) == 5
}

// pickupZone is the time zone of a pickup at a: the channel's
// pickupTimeZone, else its country's (countryZones).
func pickupZone(s carrier.Settings, a carrier.Address) (*time.Location, *carrier.Rejection) {
	if name := strings.TrimSpace(s.String(settingPickupZone)); name != "" {
		loc, err := time.LoadLocation(name)
		if err != nil {
			return nil, carrier.Reject(settingPickupZone, "%q is no IANA time zone", name)
		}
		return loc, nil
	}
	country := strings.ToUpper(strings.TrimSpace(a.CountryCode))
	name, ok := countryZones[country]
	if !ok {
		return nil, carrier.Reject(carrier.PickupFieldAddress, "DHL Express takes the pickup's local time, and %q has no single time zone: set the channel's %s", a.CountryCode, settingPickupZone)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, carrier.Reject(carrier.PickupFieldAddress, "the time zone %s of %s cannot be loaded: %v", name, country, err)
	}
	return loc, nil
}

// pickupRequestOf writes req as DHL's pickup request, refusing first what
// DHL documents it refuses.
func (c *Carrier) pickupRequestOf(s carrier.Settings, req carrier.CourierPickupRequest) (pickupRequest, error) {
	var problems []*carrier.Rejection
	loc, bad := pickupZone(s, req.Address)
	if bad != nil {
		problems = append(problems, bad)
	}
	day, err := time.Parse(time.DateOnly, req.Date)
	if err != nil {
		problems = append(problems, carrier.Reject(carrier.PickupFieldDate, "must be a date 2006-01-02, not %q", req.Date))
	}
	if !clock(req.ReadyFrom) {
		problems = append(problems, carrier.Reject(carrier.PickupFieldReadyFrom, "DHL Express needs the time the parcels are ready, 15:04, not %q", req.ReadyFrom))
	}
	switch {
	case req.ReadyUntil == "":
	case !clock(req.ReadyUntil):
		problems = append(problems, carrier.Reject(carrier.PickupFieldReadyUntil, "must be a time 15:04, not %q", req.ReadyUntil))
	case clock(req.ReadyFrom) && req.ReadyUntil <= req.ReadyFrom:
		problems = append(problems, carrier.Reject(carrier.PickupFieldReadyUntil, "the premises close at %s, not after the parcels are ready at %s", req.ReadyUntil, req.ReadyFrom))
	}
	var planned string
	if loc != nil && err == nil && clock(req.ReadyFrom) {
		today := c.now().In(loc)
		first := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
		switch {
		case day.Before(first):
			problems = append(problems, carrier.Reject(carrier.PickupFieldDate, "%s is past where the pickup is (%s there)", req.Date, first.Format(time.DateOnly)))
		case day.After(first.AddDate(0, 0, maxPickupDaysAhead)):
			problems = append(problems, carrier.Reject(carrier.PickupFieldDate, "DHL Express books pickups at most %d days ahead, not on %s", maxPickupDaysAhead, req.Date))
		}
		ready, _ := time.ParseInLocation("2006-01-02 15:04", req.Date+" "+req.ReadyFrom, loc)
		planned = ready.Format("2006-01-02T15:04:05 GMT-07:00")
	}
	shipper, p := partyOf(req.Contact, req.Address, "address", "contact")
	for _, r := range p {
		head, _, _ := strings.Cut(r.Field, ".")
		problems = append(problems, carrier.Reject(head, "%s (%s)", r.Message, r.Field))
	}
	instructions, tooLong := instructionsOf(req.Note)
	if tooLong {
		problems = append(problems, carrier.Reject("note", "DHL Express takes %d instructions of %d characters at most", maxInstructions, maxInstructionLength))
	}
	shipments, p := c.pickupShipments(s, req)
	problems = append(problems, p...)
	if err := carrier.RejectionOf(problems); err != nil {
		return pickupRequest{}, err
	}
	locationType := "residence"
	if strings.TrimSpace(req.Contact.CompanyName) != "" {
		locationType = "business"
	}
	return pickupRequest{
		PlannedPickupDateAndTime: planned,
		CloseTime:                req.ReadyUntil,
		LocationType:             locationType,
		Accounts:                 []account{{TypeCode: "shipper", Number: strings.TrimSpace(s.String(settingAccount))}},
		SpecialInstructions:      instructions,
		CustomerDetails:          pickupCustomer{ShipperDetails: shipper},
		ShipmentDetails:          shipments,
	}, nil
}

// instructionsOf cuts the note into DHL's special instructions, whole
// words to a piece where they fit (4 pieces of 80 characters); tooLong
// when it does not fit.
func instructionsOf(note string) (out []instruction, tooLong bool) {
	piece := ""
	flush := func() {
		if piece != "" {
			out = append(out, instruction{Value: piece})
			piece = ""
		}
	}
	for _, w := range strings.Fields(note) {
		for r := []rune(w); len(r) > maxInstructionLength; r = []rune(w) {
			flush()
			out = append(out, instruction{Value: string(r[:maxInstructionLength])})
			w = string(r[maxInstructionLength:])
		}
		switch {
		case piece == "":
			piece = w
		case len([]rune(piece))+1+len([]rune(w)) <= maxInstructionLength:
			piece += " " + w
		default:
			flush()
			piece = w
		}
	}
	flush()
	if len(out) > maxInstructions {
		return nil, true
	}
	return out, false
}

// pickupShipments are the request's shipments as DHL's shipmentDetails:
// each its waybill, product, customs flag (as it was booked) and every
// piece's weight and size. DHL's order has no place for a bare count.
func (c *Carrier) pickupShipments(s carrier.Settings, req carrier.CourierPickupRequest) ([]pickupShipment, []*carrier.Rejection) {
	var problems []*carrier.Rejection
	switch n := len(req.Shipments); {
	case n == 0:
		return nil, []*carrier.Rejection{carrier.Reject(carrier.PickupFieldShipments, "a DHL Express pickup names its shipments, each with its pieces' weights and sizes: a count alone does not fit DHL's order")}
	case n > maxPickupShipments:
		problems = append(problems, carrier.Reject(carrier.PickupFieldShipments, "DHL Express takes %d shipments a pickup, not %d", maxPickupShipments, n))
	}
	origin := strings.ToUpper(strings.TrimSpace(req.Address.CountryCode))
	var out []pickupShipment
	for _, sh := range req.Shipments {
		code := strings.TrimSpace(sh.ProductType)
		if code == "" {
			code = orDefault(strings.TrimSpace(s.String(settingProduct)), DefaultProduct)
		}
		prod, known := productOf(code)
		if !known {
			problems = append(problems, carrier.Reject(carrier.PickupFieldShipments, "shipment %s has product %q, which DHL Express does not carry", sh.ShipmentID, code))
		}
		if len(sh.Parcels) == 0 || len(sh.Parcels) > MaxParcels {
			problems = append(problems, carrier.Reject(carrier.PickupFieldShipments, "shipment %s has %d parcels: DHL Express needs 1 to %d", sh.ShipmentID, len(sh.Parcels), MaxParcels))
		}
		destination := strings.ToUpper(strings.TrimSpace(sh.Destination.CountryCode))
		ps := pickupShipment{
			ProductCode:            code,
			IsCustomsDeclarable:    crossesCustomsBorder(origin, destination) && !prod.documents,
			UnitOfMeasurement:      "metric",
			ShipmentTrackingNumber: strings.TrimSpace(sh.ProviderShipmentID),
		}
		for _, parcel := range sh.Parcels {
			ps.Packages = append(ps.Packages, pickupPackage{Weight: math.Max(roundTo(parcel.WeightKG(), 3), 0.001), Dimensions: dimensionsOf(parcel)})
		}
		out = append(out, ps)
	}
	return out, problems
}

// dimensionsOf is a piece's size in whole centimetres, at least 1 each.
func dimensionsOf(p carrier.Parcel) dimensions {
	l, w, h := p.DimensionsCM()
	return dimensions{Length: wholeCM(l), Width: wholeCM(w), Height: wholeCM(h)}
}

// pickupRejection turns DHL's refusal of a pickup into rejections on the
// request's fields, by the JSON pointer each message names.
func pickupRejection(res *carrierhttp.Response, what string) error {
	var p problem
	if json.Unmarshal(res.Body, &p) != nil || len(p.messages()) == 0 {
		return carrier.Reject("", "DHL Express refused the %s (HTTP %d %s)", what, res.Status, http.StatusText(res.Status))
	}
	var out []*carrier.Rejection
	for _, m := range p.messages() {
		out = append(out, &carrier.Rejection{Field: pickupFieldOf(m), Message: "DHL Express: " + strings.TrimSpace(m)})
	}
	return carrier.RejectionOf(out)
}

// pickupFieldOf maps the JSON pointer a message names to the pickup
// request's field; a message naming none blames the account when it
// speaks of one, else nothing.
func pickupFieldOf(msg string) string {
	ptr := pointer.FindString(msg)
	segs := strings.Split(strings.ToLower(strings.TrimPrefix(ptr, "#/")), "/")
	switch {
	case ptr == "" && strings.Contains(strings.ToLower(msg), "account"):
		return settingAccount
	case ptr == "":
		return ""
	case segs[0] == "plannedpickupdateandtime":
		return carrier.PickupFieldDate
	case segs[0] == "closetime":
		return carrier.PickupFieldReadyUntil
	case segs[0] == "accounts":
		return settingAccount
	case segs[0] == "specialinstructions" || segs[0] == "remark":
		return "note"
	case segs[0] == "shipmentdetails":
		return carrier.PickupFieldShipments
	case segs[0] == "customerdetails" && strings.Contains(ptr, "contactInformation"):
		return carrier.PickupFieldContact
	case segs[0] == "customerdetails" || segs[0] == "location" || segs[0] == "locationtype":
		return carrier.PickupFieldAddress
	}
	return ""
}

// CancelCourierPickup cancels every dispatch confirmation number of the
// pickup (DELETE /pickups/{n}), naming the person who ordered it as
// requestor and AssumedCancelReason as reason, both required [V]. DHL
// cancels a pickup it consolidated with others as a whole [V]. A pickup DHL
// says is cancelled already counts as cancelled (AssumedCancelledWords); one
// completed, or one DHL does not find, is a refusal.
func (c *Carrier) CancelCourierPickup(ctx context.Context, s carrier.Settings, p carrier.CourierPickup) error {
	if err := checkSettings(s); err != nil {
		return err
	}
	h := pickupHandle{Numbers: []string{p.ConfirmationNumber}, Requestor: AssumedRequestor}
	if p.Handle != "" {
		if err := json.Unmarshal([]byte(p.Handle), &h); err != nil || len(h.Numbers) == 0 {
			return fmt.Errorf("dhl_express: the pickup's handle %q is unreadable: %v", p.Handle, err)
		}
	}
	var refused []*carrier.Rejection
	for _, n := range h.Numbers {
		if strings.TrimSpace(n) == "" {
			return carrier.Reject("", "the pickup has no DHL Express dispatch confirmation number")
		}
		q := url.Values{"requestorName": {orDefault(h.Requestor, AssumedRequestor)}, "reason": {AssumedCancelReason}}
		res, err := c.call(ctx, s, http.MethodDelete, "/pickups/"+url.PathEscape(n), q, nil)
		if err != nil {
			return err
		}
		switch {
		case res.Status == http.StatusOK || res.Status == http.StatusNoContent:
		case res.Status == http.StatusBadRequest && cancelledAlready(res):
		default:
			r, _ := carrier.RefusalsOf(pickupRejection(res, "cancellation of pickup "+n))
			refused = append(refused, r...)
		}
	}
	return carrier.RejectionOf(refused)
}

// cancelledAlready reports whether DHL's 400 to a cancel says the pickup
// is cancelled already ("Pickup already cancelled or completed" is the
// status's description [V]; which of the two, only its words say [U]).
func cancelledAlready(res *carrierhttp.Response) bool {
	text := strings.ToLower(problemMessage(res))
	for _, w := range AssumedCancelledWords {
		if strings.Contains(text, w) {
			return !strings.Contains(text, "completed")
		}
	}
	return false
}

// CreateManifest: DHL Express makes no manifest (the MyDHL API has no
// operation for one): the dispatch module draws shipd's handover document.
func (c *Carrier) CreateManifest(context.Context, carrier.Settings, carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	return carrier.CarrierManifest{}, fmt.Errorf("dhl_express: manifest: %w (the MyDHL API makes none; shipd's handover document stands)", carrier.ErrNotOffered)
}
