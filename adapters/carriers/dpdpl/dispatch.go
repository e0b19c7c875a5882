package dpdpl

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

var _ carrier.Dispatcher = (*Carrier)(nil)

// dispatchInfo is what GET /v1/providers publishes of DPD Poland's pickups
// and manifests (the package doc's "Pickups and manifests").
var dispatchInfo = carrier.DispatchInfo{
	Pickups:             true,
	PickupCancel:        true,
	PickupAvailability:  carrier.AvailabilityCarrier,
	PickupShipments:     carrier.PickupCountsOnly,
	Manifest:            carrier.ManifestByCarrier,
	CancelAfterManifest: carrier.CancelAfterManifestRefused,
	Note: "DPD Poland's courier order carries a parcel count and total weight (shipments named add the heaviest parcel and the largest sizes), " +
		"for a window DPD offers at the pickup's postal code, ordered at the latest the window's start minus DPD's offset. " +
		"The manifest is DPD's protocol (PDF), one per domestic or international session. " +
		"DPD Poland's API cancels no shipment, on a manifest or not.",
}

// packagesPickupCallV4 and its types [C axis]: one operation orders
// (INSERT), changes (UPDATE, unused) and cancels (CANCEL) a courier visit.
// Elements are in the schema's order; every one is optional in the schema,
// DPD's validation says what an order needs.
type (
	pickupCallRequest struct {
		XMLName xml.Name         `xml:"dpd:packagesPickupCallV4"`
		Params  pickupCallParams `xml:"dpdPickupParamsV3"`
		Auth    authData         `xml:"authDataV1"`
	}
	pickupCallParams struct {
		CheckSum       *int64         `xml:"checkSum,omitempty"`
		OperationType  string         `xml:"operationType"`
		OrderNumber    string         `xml:"orderNumber,omitempty"`
		OrderType      string         `xml:"orderType,omitempty"`
		Details        *pickupDetails `xml:"pickupCallSimplifiedDetails,omitempty"`
		PickupDate     string         `xml:"pickupDate,omitempty"`
		PickupTimeFrom string         `xml:"pickupTimeFrom,omitempty"`
		PickupTimeTo   string         `xml:"pickupTimeTo,omitempty"`
		WaybillsReady  *bool          `xml:"waybillsReady,omitempty"`
	}
	pickupDetails struct {
		Packages pickupPackages `xml:"packagesParams"`
		Customer pickupCustomer `xml:"pickupCustomer"`
		Payer    pickupPayer    `xml:"pickupPayer"`
		Sender   pickupSender   `xml:"pickupSender"`
	}
	// pickupPackages: what the courier collects. Sizes in cm and weights
	// in kg as in booking [U].
	pickupPackages struct {
		Dox             bool   `xml:"dox"`
		Pallet          bool   `xml:"pallet"`
		ParcelMaxDepth  string `xml:"parcelMaxDepth,omitempty"`
		ParcelMaxHeight string `xml:"parcelMaxHeight,omitempty"`
		ParcelMaxWeight string `xml:"parcelMaxWeight,omitempty"`
		ParcelMaxWidth  string `xml:"parcelMaxWidth,omitempty"`
		ParcelsCount    int    `xml:"parcelsCount"`
		ParcelsWeight   string `xml:"parcelsWeight"`
		StandardParcel  bool   `xml:"standardParcel"`
	}
	// pickupCustomer is who orders; pickupSender where and whom the courier
	// visits (no country, no e-mail: the type has none).
	pickupCustomer struct {
		FullName string `xml:"customerFullName"`
		Name     string `xml:"customerName"`
		Phone    string `xml:"customerPhone"`
	}
	pickupPayer struct {
		Name   string `xml:"payerName"`
		Number int64  `xml:"payerNumber"`
	}
	pickupSender struct {
		Address    string `xml:"senderAddress"`
		City       string `xml:"senderCity"`
		FullName   string `xml:"senderFullName"`
		Name       string `xml:"senderName"`
		Phone      string `xml:"senderPhone"`
		PostalCode string `xml:"senderPostalCode"`
	}
)

func (*pickupCallRequest) operationName() string { return "packagesPickupCallV4" }

// The answer: packagesPickupCallResponseV3 [C axis]; success is
// statusInfo.status OK [Vp dpd-ps].
type (
	pickupCallResponse struct {
		Return struct {
			CheckSum    *int64           `xml:"checkSum"`
			OrderNumber string           `xml:"orderNumber"`
			StatusInfo  pickupCallStatus `xml:"statusInfo"`
		} `xml:"return"`
	}
	pickupCallStatus struct {
		Status  string `xml:"status"`
		Details []struct {
			Code        string `xml:"code"`
			Description string `xml:"description"`
			Fields      string `xml:"fields"`
		} `xml:"errorDetails"`
	}
)

// pickupHandle is what an ordered pickup keeps (CourierPickup.Handle, and
// the order's handle through Booking.Accept): its number and the checksum
// DPD wants with it to cancel.
type pickupHandle struct {
	OrderNumber string `json:"order_number"`
	CheckSum    int64  `json:"check_sum"`
}

func (h pickupHandle) pickup() carrier.CourierPickup {
	raw, _ := json.Marshal(h)
	return carrier.CourierPickup{ConfirmationNumber: h.OrderNumber, Handle: string(raw)}
}

// OrderCourierPickup orders DPD's courier for req (INSERT): the date and
// window asked, the address and contact as the sender block, the parcel
// count and total weight, and from the shipments named the heaviest parcel
// and the largest sizes. DPD confirms an order number and checksum, no
// window of its own. Ordering is synchronous and made once: as soon as DPD
// answers the order made, its number and checksum are recorded through
// req.Booking, and an attempt given that handle answers them again without
// ordering (DPD has no operation that reads an order back).
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	auth, err := authOf(s)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	if req.Booking.Handle != "" {
		h, err := readPickupHandle(req.Booking.Handle)
		if err != nil {
			return carrier.CourierPickup{}, carrierhttp.Unavailable("dpd_pl: the pickup order's handle %q is unreadable: %v", req.Booking.Handle, err)
		}
		return h.pickup(), nil
	}
	params, err := pickupOrderOf(req, auth.MasterFid)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	var out pickupCallResponse
	if err := c.call(ctx, c.base(s), packageNS, &pickupCallRequest{Params: params, Auth: auth}, &out); err != nil {
		return carrier.CourierPickup{}, faultError(err, "courier order")
	}
	r := out.Return
	if r.StatusInfo.Status != statusOK {
		return carrier.CourierPickup{}, pickupRejection("DPD Poland refused the courier order", r.StatusInfo)
	}
	if r.OrderNumber == "" || r.CheckSum == nil {
		return carrier.CourierPickup{}, fmt.Errorf("dpd_pl: packagesPickupCallV4 answered OK without an order number and checksum (%q, %v)", r.OrderNumber, r.CheckSum)
	}
	h := pickupHandle{OrderNumber: r.OrderNumber, CheckSum: *r.CheckSum}
	p := h.pickup()
	if err := carrierhttp.Accept(ctx, req.Booking, p.Handle); err != nil {
		return carrier.CourierPickup{}, err
	}
	return p, nil
}

// CancelCourierPickup cancels the order (CANCEL with its number and
// checksum, nothing else, as DPD Polska's own module does [Vp]). Until when
// DPD lets go of an order is not documented [U]: its refusal is a
// *carrier.Rejection with DPD's reason.
func (c *Carrier) CancelCourierPickup(ctx context.Context, s carrier.Settings, p carrier.CourierPickup) error {
	auth, err := authOf(s)
	if err != nil {
		return err
	}
	h, err := readPickupHandle(p.Handle)
	if err != nil || (p.ConfirmationNumber != "" && h.OrderNumber != p.ConfirmationNumber) {
		return carrier.Reject("", "the DPD courier order %s has no checksum shipd kept, which DPD needs to cancel it: ask DPD Polska's customer service", p.ConfirmationNumber)
	}
	var out pickupCallResponse
	err = c.call(ctx, c.base(s), packageNS, &pickupCallRequest{
		Params: pickupCallParams{OperationType: "CANCEL", OrderNumber: h.OrderNumber, CheckSum: &h.CheckSum},
		Auth:   auth,
	}, &out)
	if err != nil {
		return faultError(err, "courier order's cancellation")
	}
	if st := out.Return.StatusInfo; st.Status != statusOK {
		return pickupRejection("DPD Poland did not cancel the courier order "+h.OrderNumber, st)
	}
	return nil
}

func readPickupHandle(raw string) (pickupHandle, error) {
	var h pickupHandle
	if err := json.Unmarshal([]byte(raw), &h); err != nil {
		return h, err
	}
	if h.OrderNumber == "" {
		return h, fmt.Errorf("no order number")
	}
	return h, nil
}

// pickupOrderOf is req as DPD's INSERT, refusing first what DPD cannot take:
// no date or window, a window that ends before it starts, no parcels or
// weight, an address or contact without what the sender block needs.
func pickupOrderOf(req carrier.CourierPickupRequest, fid int64) (pickupCallParams, error) {
	var problems []*carrier.Rejection
	if _, err := time.Parse(time.DateOnly, req.Date); err != nil {
		problems = append(problems, carrier.Reject(carrier.PickupFieldDate, "must be a date 2006-01-02, not %q", req.Date))
	}
	from, errFrom := clock(req.ReadyFrom)
	until, errUntil := clock(req.ReadyUntil)
	switch {
	case errFrom != nil:
		problems = append(problems, carrier.Reject(carrier.PickupFieldReadyFrom, "DPD Poland's courier comes in a window: its start must be a time 15:04, not %q", req.ReadyFrom))
	case errUntil != nil:
		problems = append(problems, carrier.Reject(carrier.PickupFieldReadyUntil, "DPD Poland's courier comes in a window: its end must be a time 15:04, not %q", req.ReadyUntil))
	case until <= from:
		problems = append(problems, carrier.Reject(carrier.PickupFieldReadyUntil, "the window ends (%s) before it starts (%s)", req.ReadyUntil, req.ReadyFrom))
	}
	if req.ParcelCount <= 0 {
		problems = append(problems, carrier.Reject(carrier.PickupFieldParcels, "DPD Poland collects at least one parcel, got %d", req.ParcelCount))
	}
	if req.TotalWeightKG <= 0 {
		problems = append(problems, carrier.Reject(carrier.PickupFieldWeight, "DPD Poland needs the parcels' total weight, got %g kg", req.TotalWeightKG))
	}
	a, ct := req.Address, req.Contact
	if strings.TrimSpace(a.StreetName) == "" || strings.TrimSpace(a.CityName) == "" || postalDigits(a.PostalCode) == "" {
		problems = append(problems, carrier.Reject(carrier.PickupFieldAddress, "DPD Poland's courier needs the street, city and postal code of the pickup"))
	}
	person := strings.TrimSpace(ct.FirstName + " " + ct.LastName)
	if strings.TrimSpace(ct.Phone) == "" || (person == "" && strings.TrimSpace(ct.CompanyName) == "") {
		problems = append(problems, carrier.Reject(carrier.PickupFieldContact, "DPD Poland's courier order needs a contact's name or company and phone"))
	}
	if err := carrier.RejectionOf(problems); err != nil {
		return pickupCallParams{}, err
	}
	// The company is the "full name" of DPD's sender and customer blocks,
	// the person the name [Vp dpd-ps: company, name, phone]; one stands in
	// for the other when only one is given.
	fullName, name := strings.TrimSpace(ct.CompanyName), person
	if fullName == "" {
		fullName = person
	}
	if name == "" {
		name = fullName
	}
	street := addressOf(ct, a).Address
	orderType := "DOMESTIC" // [Vp dpd-ps]: by the sender's country
	if c := strings.ToUpper(strings.TrimSpace(a.CountryCode)); c != "" && c != "PL" {
		orderType = "INTERNATIONAL"
	}
	ready := true // labels printed before the courier comes [Vp dpd-ps; meaning U]
	return pickupCallParams{
		OperationType:  "INSERT",
		OrderType:      orderType,
		PickupDate:     req.Date,
		PickupTimeFrom: req.ReadyFrom,
		PickupTimeTo:   req.ReadyUntil,
		WaybillsReady:  &ready,
		Details: &pickupDetails{
			Packages: packagesOf(req),
			Customer: pickupCustomer{FullName: fullName, Name: name, Phone: ct.Phone},
			Payer:    pickupPayer{Name: fullName, Number: fid},
			Sender: pickupSender{Address: street, City: a.CityName, FullName: fullName, Name: name, Phone: ct.Phone,
				PostalCode: postalDigits(a.PostalCode)},
		},
	}, nil
}

// packagesOf is what the courier collects: standard parcels, their count
// and total weight, and, from the shipments named, the heaviest parcel and
// the largest length, width and height (sent as width, height and depth,
// the order DPD Polska's module maps a parcel's sizeX, sizeY, sizeZ [Vp]).
// A count alone sends no maxima [U: whether DPD needs them].
func packagesOf(req carrier.CourierPickupRequest) pickupPackages {
	p := pickupPackages{StandardParcel: true, ParcelsCount: req.ParcelCount, ParcelsWeight: kg(req.TotalWeightKG)}
	var heaviest, maxL, maxW, maxH float64
	for _, sh := range req.Shipments {
		for _, parcel := range sh.Parcels {
			heaviest = math.Max(heaviest, parcel.WeightKG())
			l, w, h := parcel.DimensionsCM()
			maxL, maxW, maxH = math.Max(maxL, l), math.Max(maxW, w), math.Max(maxH, h)
		}
	}
	if heaviest > 0 {
		p.ParcelMaxWeight = kg(heaviest)
	}
	p.ParcelMaxWidth, p.ParcelMaxHeight, p.ParcelMaxDepth = cm(maxL), cm(maxW), cm(maxH)
	return p
}

// kg is a weight in kilograms to two decimals, as xsd:double.
func kg(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// clock reads a time of day "15:04" as minutes after midnight.
func clock(s string) (int, error) {
	t, err := time.Parse("15:04", strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	return t.Hour()*60 + t.Minute(), nil
}

// pickupFields map the elements DPD's errorDetails.fields name (the last
// part of a path, case aside [U: the form DPD writes them in]) to the
// fields of shipd's pickup request, and the payer to the setting it comes
// from.
var pickupFields = map[string]string{
	"pickupdate": carrier.PickupFieldDate, "pickuptimefrom": carrier.PickupFieldReadyFrom, "pickuptimeto": carrier.PickupFieldReadyUntil,
	"senderaddress": carrier.PickupFieldAddress, "sendercity": carrier.PickupFieldAddress, "senderpostalcode": carrier.PickupFieldAddress,
	"senderfullname": carrier.PickupFieldContact, "sendername": carrier.PickupFieldContact, "senderphone": carrier.PickupFieldContact,
	"customerfullname": carrier.PickupFieldContact, "customername": carrier.PickupFieldContact, "customerphone": carrier.PickupFieldContact,
	"parcelscount": carrier.PickupFieldParcels, "standardparcel": carrier.PickupFieldParcels,
	"parcelsweight": carrier.PickupFieldWeight, "parcelmaxweight": carrier.PickupFieldWeight,
	"payernumber": "masterFid",
}

// pickupField is shipd's field for DPD's fields ("" when none maps).
func pickupField(fields string) string {
	first, _, _ := strings.Cut(fields, ",")
	first = strings.ToLower(strings.TrimSpace(first))
	if i := strings.LastIndexAny(first, "./"); i >= 0 {
		first = first[i+1:]
	}
	return pickupFields[first]
}

// pickupRejection is DPD's refusal of an order or a cancel: one rejection
// per errorDetails entry, else the status alone.
func pickupRejection(what string, st pickupCallStatus) error {
	var out []*carrier.Rejection
	for _, d := range st.Details {
		msg := strings.TrimSpace(d.Description)
		if msg == "" {
			msg = d.Code
		}
		if d.Code != "" && d.Code != msg {
			msg += " (" + d.Code + ")"
		}
		out = append(out, carrier.Reject(pickupField(d.Fields), "%s: %s", what, msg))
	}
	if len(out) == 0 {
		status := st.Status
		if status == "" {
			status = "no status"
		}
		return carrier.Reject("", "%s: %s", what, status)
	}
	return carrier.RejectionOf(out)
}
