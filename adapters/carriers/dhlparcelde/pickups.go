package dhlparcelde

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

var _ carrier.Dispatcher = (*Carrier)(nil)

// pickupBase is the Pickup API v3 on the shipping API's hosts [V
// parcel-de-pickup-v3.yaml servers].
const pickupBase = "/parcel/de/transportation/pickup/v3"

// Pickup settings (optional; the package doc's "Pickups and manifests").
const (
	settingPickupBilling  = "pickupBillingNumber"
	settingPickupLocation = "pickupLocationId"
)

// dispatchInfo is what GET /v1/providers publishes of DHL Parcel DE's
// pickups and manifests.
var dispatchInfo = carrier.DispatchInfo{
	Pickups:             true,
	PickupCancel:        true,
	PickupAvailability:  carrier.AvailabilityDefaults,
	PickupShipments:     carrier.PickupShipmentsOrCount,
	Manifest:            carrier.ManifestByCarrier,
	CancelAfterManifest: carrier.CancelAfterManifestRefused,
	Note: "DHL's Pickup API takes a date, not a window, and confirms the date (the window goes as the address's business hours); " +
		"the GKP user needs DHL's Pickup right. Without pickupBillingNumber DHL collects only at the account's agreed pickup locations (free); " +
		"with it at any address (charged). The manifest closes the shipments out at DHL (irreversible: they cannot be cancelled afterwards) " +
		"and answers DHL's daily manifest PDF, which lists every shipment of the DHL account closed out that day.",
}

// The Pickup API's PickupOrder and its parts [V parcel-de-pickup-v3.yaml].
type (
	pickupOrder struct {
		CustomerDetails *pickupCustomer `json:"customerDetails,omitempty"`
		PickupLocation  pickupLocation  `json:"pickupLocation"`
		BusinessHours   []timeFrame     `json:"businessHours,omitempty"`
		ContactPerson   []contactPerson `json:"contactPerson,omitempty"`
		PickupDetails   pickupDetails   `json:"pickupDetails"`
		ShipmentDetails pickupItems     `json:"shipmentDetails"`
	}
	pickupCustomer struct {
		BillingNumber string `json:"billingNumber"`
	}
	// pickupLocation is the oneOf of PickupLocationIdType (type "Id",
	// asId) and PickupAddressType (type "Address", pickupAddress).
	pickupLocation struct {
		Type          string         `json:"type"`
		AsID          string         `json:"asId,omitempty"`
		PickupAddress *pickupAddress `json:"pickupAddress,omitempty"`
	}
	pickupAddress struct {
		Name1         string `json:"name1"`
		Name2         string `json:"name2,omitempty"`
		AddressStreet string `json:"addressStreet"`
		AddressHouse  string `json:"addressHouse"`
		PostalCode    string `json:"postalCode"`
		City          string `json:"city"`
		Country       string `json:"country,omitempty"`
	}
	timeFrame struct {
		TimeFrom  string `json:"timeFrom"`
		TimeUntil string `json:"timeUntil"`
	}
	contactPerson struct {
		Name              string             `json:"name,omitempty"`
		Phone             string             `json:"phone,omitempty"`
		Email             string             `json:"email,omitempty"`
		EmailNotification *emailNotification `json:"emailNotification,omitempty"`
	}
	emailNotification struct {
		SendPickupConfirmationEmail bool `json:"sendPickupConfirmationEmail"`
		SendPickupTimeWindowEmail   bool `json:"sendPickupTimeWindowEmail"`
	}
	pickupDetails struct {
		PickupDate  pickupDate    `json:"pickupDate"`
		TotalWeight *pickupWeight `json:"totalWeight,omitempty"`
		Comment     string        `json:"comment,omitempty"`
	}
	// pickupDate is the oneOf of FixedDate (type "Date", value) and
	// PickupASAP (type "ASAP"); shipd always names a date.
	pickupDate struct {
		Type  string `json:"type"`
		Value string `json:"value,omitempty"`
	}
	pickupWeight struct {
		UOM   string  `json:"uom"`
		Value float64 `json:"value"`
	}
	pickupItems struct {
		Shipments []pickupItem `json:"shipments"`
	}
	// pickupItem is one item collected: DHL's Shipment, one per parcel.
	pickupItem struct {
		TransportationType string `json:"transportationType"`
		ShipmentNo         string `json:"shipmentNo,omitempty"`
		Size               string `json:"size,omitempty"`
		CustomerReference  string `json:"customerReference,omitempty"`
	}
)

// The Pickup API's answers [V].
type (
	orderResponse struct {
		Confirmation struct {
			Type  string `json:"type"`
			Value struct {
				OrderID    string `json:"orderID"`
				PickupDate string `json:"pickupDate"`
			} `json:"value"`
		} `json:"confirmation"`
	}
	// pickupError is one of a 422's Errors; instance names the field
	// ("customerDetails.billingNumber").
	pickupError struct {
		ErrorCode int    `json:"errorCode"`
		Title     string `json:"title"`
		Instance  string `json:"instance,omitempty"`
		Detail    string `json:"detail,omitempty"`
	}
	// pickupOrderStatus is a GET /orders answer's order.
	pickupOrderStatus struct {
		OrderDetails struct {
			OrderID    string `json:"orderID"`
			OrderState string `json:"orderState"`
		} `json:"orderDetails"`
		PickupDetails struct {
			PickupDate pickupDate `json:"pickupDate"`
		} `json:"pickupDetails"`
		ShipmentDetails struct {
			Shipments []struct {
				Shipment      pickupItem `json:"shipment"`
				ShipmentState *struct {
					State            string `json:"state"`
					ActualPickupDate string `json:"actualPickupDate"`
				} `json:"shipmentState"`
			} `json:"shipments"`
		} `json:"shipmentDetails"`
		Feedback string `json:"feedback"`
	}
	cancelResult struct {
		ConfirmedCancellations []cancellation `json:"confirmedCancellations"`
		FailedCancellations    []cancellation `json:"failedCancellations"`
	}
	cancellation struct {
		OrderID    string `json:"orderID"`
		OrderState string `json:"orderState"`
		Message    string `json:"message"`
	}
)

// Order states of getOrders' orderState [V: its description]: the two
// that end an order before its pickup.
const (
	stateCancelled = "STORNIERT"
	stateRefused   = "ABGELEHNT"
)

// Limits of the Pickup API's fields [V].
const (
	maxPickupComment   = 100
	maxPickupReference = 20
)

var asID = regexp.MustCompile(`^AS[0-9]{10}$`)

// OrderCourierPickup orders a pickup (POST /orders of the Pickup API): on
// req.Date, at req.Address (or the channel's agreed location
// pickupLocationId), one item per parcel, each naming its DHL shipment
// number when the request names shipments, and the pickup's mark as
// customerReference. DHL answers the order's id and the date it comes, no
// window. The id is recorded through req.Booking as soon as DHL answers;
// an attempt given it reads the order back (GET /orders?orderID=) and
// orders nothing. A first attempt asks first whether DHL holds an order of
// the date carrying the pickup's mark (an earlier attempt whose answer was
// lost), and answers that one instead of ordering again.
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	if err := checkPickupSettings(s); err != nil {
		return carrier.CourierPickup{}, err
	}
	if req.Booking.Handle != "" {
		found, ok, err := c.readOrder(ctx, s, url.Values{"orderID": {req.Booking.Handle}}, func(o pickupOrderStatus) bool {
			return o.OrderDetails.OrderID == req.Booking.Handle
		})
		switch {
		case err != nil:
			return carrier.CourierPickup{}, err
		case !ok:
			return carrier.CourierPickup{}, carrier.Reject("", "DHL does not know the pickup order %s an earlier attempt placed", req.Booking.Handle)
		}
		return confirmed(found)
	}
	order, err := pickupOrderOf(s, req)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	if mark := pickupMark(req.Booking.Key); mark != "" {
		earlier, ok, err := c.readOrder(ctx, s, lookupQuery(order), func(o pickupOrderStatus) bool {
			state := o.OrderDetails.OrderState
			return state != stateCancelled && state != stateRefused && carriesMark(o, mark)
		})
		if err != nil {
			return carrier.CourierPickup{}, err
		}
		if ok {
			if err := carrierhttp.Accept(ctx, req.Booking, earlier.OrderDetails.OrderID); err != nil {
				return carrier.CourierPickup{}, err
			}
			return confirmed(earlier)
		}
	}
	body, err := json.Marshal(order)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	u := c.apiHost(s) + pickupBase + "/orders"
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodPost, u, body) })
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	if res.Status != http.StatusOK {
		return carrier.CourierPickup{}, pickupRefusal(res, "pickup order", len(req.Shipments) > 0)
	}
	var ans orderResponse
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		return carrier.CourierPickup{}, fmt.Errorf("dhl_parcel_de: pickup order: unreadable answer: %v", err)
	}
	id := ans.Confirmation.Value.OrderID
	if ans.Confirmation.Type != "ORDERPICKUP" || id == "" {
		return carrier.CourierPickup{}, fmt.Errorf("dhl_parcel_de: pickup order: the answer (%s) confirms no order", carrierhttp.Snippet(res.Body))
	}
	if err := carrierhttp.Accept(ctx, req.Booking, id); err != nil {
		return carrier.CourierPickup{}, err
	}
	return carrier.CourierPickup{ConfirmationNumber: id, Date: calendarDate(ans.Confirmation.Value.PickupDate)}, nil
}

// confirmed is an order DHL holds as the pickup it confirmed: its id and
// date (the fixed date ordered, else the date DHL collected on); a refused
// or cancelled order is a refusal.
func confirmed(o pickupOrderStatus) (carrier.CourierPickup, error) {
	id := o.OrderDetails.OrderID
	switch o.OrderDetails.OrderState {
	case stateRefused:
		reason := strings.TrimSpace(o.Feedback)
		if reason == "" {
			reason = "no reason given"
		}
		return carrier.CourierPickup{}, carrier.Reject("", "DHL refused pickup order %s: %s", id, reason)
	case stateCancelled:
		return carrier.CourierPickup{}, carrier.Reject("", "DHL's pickup order %s is cancelled", id)
	}
	out := carrier.CourierPickup{ConfirmationNumber: id}
	if o.PickupDetails.PickupDate.Type == "Date" {
		out.Date = calendarDate(o.PickupDetails.PickupDate.Value)
	}
	for _, sh := range o.ShipmentDetails.Shipments {
		if out.Date == "" && sh.ShipmentState != nil {
			out.Date = calendarDate(sh.ShipmentState.ActualPickupDate)
		}
	}
	return out, nil
}

// calendarDate is a date DHL wrote as YYYY-MM-DD, else "".
func calendarDate(s string) string {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return ""
	}
	return s
}

// pickupMark is what every item of a pickup's order carries as
// customerReference: a digest of the pickup's shipd id, the same on every
// attempt, so an order whose answer was lost is found again (DHL takes no
// key of ours for the order itself).
func pickupMark(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return ("shipd-" + hex.EncodeToString(sum[:]))[:maxPickupReference]
}

func carriesMark(o pickupOrderStatus, mark string) bool {
	if mark == "" {
		return false
	}
	for _, sh := range o.ShipmentDetails.Shipments {
		if sh.Shipment.CustomerReference == mark {
			return true
		}
	}
	return false
}

// lookupQuery finds the orders of the order's date at its address.
func lookupQuery(o pickupOrder) url.Values {
	q := url.Values{"pickupDate": {o.PickupDetails.PickupDate.Value}}
	if a := o.PickupLocation.PickupAddress; a != nil {
		q.Set("pickupPostalCode", a.PostalCode)
	}
	return q
}

// readOrder asks GET /orders with q and answers the first order match
// accepts.
func (c *Carrier) readOrder(ctx context.Context, s carrier.Settings, q url.Values, match func(pickupOrderStatus) bool) (pickupOrderStatus, bool, error) {
	u := c.apiHost(s) + pickupBase + "/orders?" + q.Encode()
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodGet, u, nil) })
	if err != nil {
		return pickupOrderStatus{}, false, err
	}
	if res.Status != http.StatusOK {
		return pickupOrderStatus{}, false, pickupRefusal(res, "pickup order look-up", false)
	}
	var orders []pickupOrderStatus
	if err := json.Unmarshal(res.Body, &orders); err != nil {
		return pickupOrderStatus{}, false, fmt.Errorf("dhl_parcel_de: pickup orders: unreadable answer: %v", err)
	}
	for _, o := range orders {
		if match(o) {
			return o, true, nil
		}
	}
	return pickupOrderStatus{}, false, nil
}

// CancelCourierPickup cancels the order (DELETE /orders?orderID=). DHL
// answers per order, a refusal inside a 200 too; an order DHL says is
// cancelled already counts as cancelled.
func (c *Carrier) CancelCourierPickup(ctx context.Context, s carrier.Settings, p carrier.CourierPickup) error {
	if err := checkCredentials(s); err != nil {
		return err
	}
	if len(p.ConfirmationNumber) != 32 {
		return carrier.Reject("", "%q is no DHL pickup order id (32 characters)", p.ConfirmationNumber)
	}
	u := c.apiHost(s) + pickupBase + "/orders?" + url.Values{"orderID": {p.ConfirmationNumber}}.Encode()
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodDelete, u, nil) })
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK {
		return pickupRefusal(res, "pickup cancellation", false)
	}
	var ans cancelResult
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		return fmt.Errorf("dhl_parcel_de: pickup cancellation: unreadable answer: %v", err)
	}
	for _, ok := range ans.ConfirmedCancellations {
		if ok.OrderID == p.ConfirmationNumber {
			return nil
		}
	}
	for _, no := range ans.FailedCancellations {
		if no.OrderID != p.ConfirmationNumber {
			continue
		}
		if no.OrderState == stateCancelled {
			return nil
		}
		return carrier.Reject("", "DHL did not cancel pickup order %s (state %q): %s", no.OrderID, no.OrderState, no.Message)
	}
	return fmt.Errorf("dhl_parcel_de: pickup cancellation: the answer does not name order %s", p.ConfirmationNumber)
}

// CourierPickupWindows: DHL's Pickup API has no windows (its locations
// operation lists agreed places, not times), so the dispatch module's
// channel defaults stand.
func (c *Carrier) CourierPickupWindows(context.Context, carrier.Settings, carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	return nil, fmt.Errorf("dhl_parcel_de: pickup windows: %w (DHL's Pickup API takes a date, not a window)", carrier.ErrNotOffered)
}

// checkPickupSettings is checkCredentials and the pickup settings' forms.
func checkPickupSettings(s carrier.Settings) error {
	var problems []*carrier.Rejection
	if err := checkCredentials(s); err != nil {
		r, _ := carrier.RefusalsOf(err)
		problems = append(problems, r...)
	}
	if b := strings.TrimSpace(s.String(settingPickupBilling)); b != "" && !validBillingNumber(b) {
		problems = append(problems, carrier.Reject(settingPickupBilling, "must be 14 characters: 10-digit EKP, 2-digit procedure, 2-character participation (got %q)", b))
	}
	if id := strings.TrimSpace(s.String(settingPickupLocation)); id != "" && !asID.MatchString(id) {
		problems = append(problems, carrier.Reject(settingPickupLocation, "must be AS and 10 digits, DHL's id of an agreed pickup location (got %q)", id))
	}
	return carrier.RejectionOf(problems)
}

// pickupOrderOf writes req as DHL's PickupOrder, refusing first what DHL's
// document refuses.
func pickupOrderOf(s carrier.Settings, req carrier.CourierPickupRequest) (pickupOrder, error) {
	var problems []*carrier.Rejection
	if _, err := time.Parse(time.DateOnly, req.Date); err != nil {
		problems = append(problems, carrier.Reject(carrier.PickupFieldDate, "must be a date 2006-01-02, not %q", req.Date))
	}
	out := pickupOrder{
		PickupDetails: pickupDetails{PickupDate: pickupDate{Type: "Date", Value: req.Date}, Comment: truncate(req.Note, maxPickupComment)},
	}
	if b := strings.TrimSpace(s.String(settingPickupBilling)); b != "" {
		out.CustomerDetails = &pickupCustomer{BillingNumber: b}
	}
	if id := strings.TrimSpace(s.String(settingPickupLocation)); id != "" {
		out.PickupLocation = pickupLocation{Type: "Id", AsID: id}
	} else {
		addr, p := pickupAddressOf(req.Contact, req.Address)
		problems = append(problems, p...)
		out.PickupLocation = pickupLocation{Type: "Address", PickupAddress: &addr}
	}
	// DHL takes opening hours, not a window: the window is when the
	// parcels can be collected, the nearest thing the order has.
	if req.ReadyFrom != "" || req.ReadyUntil != "" {
		if !clock(req.ReadyFrom) {
			problems = append(problems, carrier.Reject(carrier.PickupFieldReadyFrom, "must be a time 15:04, not %q", req.ReadyFrom))
		}
		if !clock(req.ReadyUntil) {
			problems = append(problems, carrier.Reject(carrier.PickupFieldReadyUntil, "must be a time 15:04, not %q", req.ReadyUntil))
		}
		out.BusinessHours = []timeFrame{{TimeFrom: req.ReadyFrom, TimeUntil: req.ReadyUntil}}
	}
	if cp := contactPersonOf(req.Contact); cp != (contactPerson{}) {
		out.ContactPerson = []contactPerson{cp}
	}
	if req.TotalWeightKG > 0 {
		out.PickupDetails.TotalWeight = &pickupWeight{UOM: "kg", Value: math.Round(req.TotalWeightKG*1000) / 1000}
	}
	mark := pickupMark(req.Booking.Key)
	for _, sh := range req.Shipments {
		nums := numbers(carrier.ShipmentRef{ProviderShipmentID: sh.ProviderShipmentID, TrackingNumbers: sh.TrackingNumbers})
		if len(nums) == 0 {
			problems = append(problems, carrier.Reject(carrier.PickupFieldShipments, "shipment %s has no DHL shipment number", sh.ShipmentID))
		}
		for i, n := range nums {
			var parcel carrier.Parcel
			if i < len(sh.Parcels) {
				parcel = sh.Parcels[i]
			}
			out.ShipmentDetails.Shipments = append(out.ShipmentDetails.Shipments, pickupItem{
				TransportationType: transportationType(parcel), ShipmentNo: n, Size: sizeOf(parcel), CustomerReference: mark})
		}
	}
	if len(req.Shipments) == 0 {
		if req.ParcelCount <= 0 {
			problems = append(problems, carrier.Reject(carrier.PickupFieldParcels, "DHL collects at least one parcel, got %d", req.ParcelCount))
		}
		for range req.ParcelCount {
			out.ShipmentDetails.Shipments = append(out.ShipmentDetails.Shipments, pickupItem{
				TransportationType: "PAKET", Size: AssumedUnknownSize, CustomerReference: mark})
		}
	}
	return out, carrier.RejectionOf(problems)
}

// pickupAddressOf is the pickup address: the company (else the person) as
// name1, the person as name2, the country alpha-2 (not the shipping API's
// alpha-3).
func pickupAddressOf(ct carrier.Contact, a carrier.Address) (pickupAddress, []*carrier.Rejection) {
	var problems []*carrier.Rejection
	person := strings.TrimSpace(ct.FirstName + " " + ct.LastName)
	out := pickupAddress{
		Name1:         truncate(person, 50),
		AddressStreet: truncate(a.StreetName, 70),
		AddressHouse:  truncate(house(a), 10),
		PostalCode:    strings.TrimSpace(a.PostalCode),
		City:          truncate(a.CityName, 35),
		Country:       strings.ToUpper(strings.TrimSpace(a.CountryCode)),
	}
	if company := truncate(ct.CompanyName, 50); company != "" {
		out.Name1, out.Name2 = company, truncate(person, 50)
	}
	if out.Name1 == "" {
		problems = append(problems, carrier.Reject(carrier.PickupFieldContact, "DHL's pickup address needs a name or a company name"))
	}
	for _, f := range []struct{ what, value string }{
		{"a street", out.AddressStreet}, {"a house number", out.AddressHouse}, {"a postal code", out.PostalCode}, {"a city", out.City},
	} {
		if f.value == "" {
			problems = append(problems, carrier.Reject(carrier.PickupFieldAddress, "DHL's pickup needs %s", f.what))
		}
	}
	if len([]rune(out.PostalCode)) > 7 {
		problems = append(problems, carrier.Reject(carrier.PickupFieldAddress, "DHL's pickup takes a postal code of at most 7 characters, not %q", out.PostalCode))
	}
	if !carrier.IsCountryCode(out.Country) {
		problems = append(problems, carrier.Reject(carrier.PickupFieldAddress, "%q is no ISO 3166-1 alpha-2 country code", a.CountryCode))
	}
	return out, problems
}

// contactPersonOf is the person DHL calls and mails: with an e-mail
// address, DHL's confirmation and its time-window notice go to it [V: the
// emailNotification flags] (the API confirms no window itself).
func contactPersonOf(ct carrier.Contact) contactPerson {
	name := strings.TrimSpace(ct.FirstName + " " + ct.LastName)
	if name == "" {
		name = ct.CompanyName
	}
	out := contactPerson{Name: truncate(name, 50), Phone: truncate(ct.Phone, 50), Email: truncate(ct.Email, 250)}
	if out.Email != "" {
		out.EmailNotification = &emailNotification{SendPickupConfirmationEmail: true, SendPickupTimeWindowEmail: true}
	}
	return out
}

// clock reports whether s is a time of day 15:04.
func clock(s string) bool {
	_, err := time.Parse("15:04", s)
	return err == nil && len(s) == 5
}

// transportationType is DHL's kind of item: a pallet is PALETTEN, anything
// else a PAKET.
func transportationType(p carrier.Parcel) string {
	if strings.EqualFold(p.Type, "pallet") {
		return "PALETTEN"
	}
	return "PAKET"
}

// sizeOf is the item's size class S, M or L, which DHL requires when the
// order has no billing number [V] and does not define [U]: by the sum of
// the parcel's sides (AssumedSizeSums), M when they are unknown.
func sizeOf(p carrier.Parcel) string {
	l, w, h := p.DimensionsCM()
	switch sum := l + w + h; {
	case l <= 0 || w <= 0 || h <= 0:
		return AssumedUnknownSize
	case sum <= AssumedSizeSums[0]:
		return "S"
	case sum <= AssumedSizeSums[1]:
		return "M"
	}
	return "L"
}

// pickupRefusal sorts a refusing answer of the Pickup API: 422 lists DHL's
// errors, each naming the field it blames; 403 is the GKP user without
// DHL's Pickup right; 400 and the rest carry no body DHL documents.
// shipments says whether the order named shipments (which its items'
// refusals then blame).
func pickupRefusal(res *carrierhttp.Response, what string, shipments bool) error {
	switch res.Status {
	case http.StatusUnprocessableEntity:
		var errs []pickupError
		if json.Unmarshal(res.Body, &errs) == nil && len(errs) > 0 {
			out := make([]*carrier.Rejection, len(errs))
			for i, e := range errs {
				msg := strings.TrimSpace(e.Title)
				if d := strings.TrimSpace(e.Detail); d != "" {
					msg += ": " + d
				}
				if e.Instance != "" {
					msg += " (DHL " + e.Instance + ")"
				}
				out[i] = carrier.Reject(pickupField(e.Instance, shipments), "DHL refused the %s: %s", what, msg)
			}
			return carrier.RejectionOf(out)
		}
	case http.StatusForbidden:
		return carrier.Reject("username", "DHL refused the %s: the GKP user lacks DHL's Pickup right (HTTP 403)", what)
	}
	msg := fmt.Sprintf("DHL refused the %s (HTTP %d %s)", what, res.Status, http.StatusText(res.Status))
	if body := strings.TrimSpace(carrierhttp.Snippet(res.Body)); body != "" {
		msg += ": " + body
	}
	return carrier.Reject("", "%s", msg)
}

// pickupField maps the property a 422 error names to the pickup request's
// field (or the setting it came from); "" when it names none shipd has.
func pickupField(instance string, shipments bool) string {
	p := strings.TrimSpace(instance)
	switch {
	case p == "":
		return ""
	case strings.HasPrefix(p, "customerDetails"):
		return settingPickupBilling
	case strings.HasPrefix(p, "pickupLocation.asId"):
		return settingPickupLocation
	case strings.HasPrefix(p, "pickupLocation"):
		return carrier.PickupFieldAddress
	case strings.HasPrefix(p, "businessHours") && strings.Contains(p, "timeUntil"):
		return carrier.PickupFieldReadyUntil
	case strings.HasPrefix(p, "businessHours"):
		return carrier.PickupFieldReadyFrom
	case strings.HasPrefix(p, "contactPerson"):
		return carrier.PickupFieldContact
	case strings.HasPrefix(p, "pickupDetails.pickupDate"):
		return carrier.PickupFieldDate
	case strings.HasPrefix(p, "pickupDetails.totalWeight"):
		return carrier.PickupFieldWeight
	case strings.HasPrefix(p, "pickupDetails.comment"):
		return "note"
	case strings.HasPrefix(p, "shipmentDetails") && shipments:
		return carrier.PickupFieldShipments
	case strings.HasPrefix(p, "shipmentDetails"):
		return carrier.PickupFieldParcels
	}
	return ""
}
