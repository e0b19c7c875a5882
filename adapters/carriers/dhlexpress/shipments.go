package dhlexpress

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// shipmentRequest is the part of supermodelIoLogisticsExpressCreateShipmentRequest
// the adapter writes.
type shipmentRequest struct {
	PlannedShippingDateAndTime string            `json:"plannedShippingDateAndTime"`
	Pickup                     pickup            `json:"pickup"`
	ProductCode                string            `json:"productCode"`
	GetRateEstimates           bool              `json:"getRateEstimates"`
	Accounts                   []account         `json:"accounts"`
	OutputImageProperties      outputImage       `json:"outputImageProperties"`
	CustomerReferences         []reference       `json:"customerReferences,omitempty"`
	CustomerDetails            customerDetails   `json:"customerDetails"`
	Content                    content           `json:"content"`
	OnDemandDelivery           *onDemandDelivery `json:"onDemandDelivery,omitempty"`
}

type pickup struct {
	IsRequested bool `json:"isRequested"`
}

type account struct {
	TypeCode string `json:"typeCode"`
	Number   string `json:"number"`
}

type outputImage struct {
	EncodingFormat                    string        `json:"encodingFormat"`
	ImageOptions                      []imageOption `json:"imageOptions"`
	SplitTransportAndWaybillDocLabels bool          `json:"splitTransportAndWaybillDocLabels"`
	SplitDocumentsByPages             bool          `json:"splitDocumentsByPages"`
}

type imageOption struct {
	TypeCode    string `json:"typeCode"`
	IsRequested *bool  `json:"isRequested,omitempty"`
}

type reference struct {
	Value    string `json:"value"`
	TypeCode string `json:"typeCode"`
}

type customerDetails struct {
	ShipperDetails  party `json:"shipperDetails"`
	ReceiverDetails party `json:"receiverDetails"`
}

type party struct {
	PostalAddress      postalAddress `json:"postalAddress"`
	ContactInformation contact       `json:"contactInformation"`
}

type postalAddress struct {
	PostalCode   string `json:"postalCode"` // required, "" where the address has none
	CityName     string `json:"cityName"`
	CountryCode  string `json:"countryCode"`
	AddressLine1 string `json:"addressLine1"`
}

type contact struct {
	Email       string `json:"email,omitempty"`
	Phone       string `json:"phone"`
	CompanyName string `json:"companyName"`
	FullName    string `json:"fullName"`
}

type content struct {
	Packages            []piece `json:"packages"`
	IsCustomsDeclarable bool    `json:"isCustomsDeclarable"`
	Description         string  `json:"description"`
	Incoterm            string  `json:"incoterm"`
	UnitOfMeasurement   string  `json:"unitOfMeasurement"`
}

type piece struct {
	Weight          float64    `json:"weight"`
	Dimensions      dimensions `json:"dimensions"`
	ReferenceNumber int        `json:"referenceNumber"`
}

type dimensions struct {
	Length float64 `json:"length"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

type onDemandDelivery struct {
	DeliveryOption string `json:"deliveryOption"`
	ServicePointID string `json:"servicePointId"`
}

// shipmentResponse is the part of the 201 answer the adapter reads.
type shipmentResponse struct {
	ShipmentTrackingNumber string `json:"shipmentTrackingNumber"`
	Packages               []struct {
		ReferenceNumber float64 `json:"referenceNumber"`
		TrackingNumber  string  `json:"trackingNumber"`
	} `json:"packages"`
	Documents       []document `json:"documents"`
	ShipmentCharges []struct {
		CurrencyType  string  `json:"currencyType"`
		PriceCurrency string  `json:"priceCurrency"`
		Price         float64 `json:"price"`
	} `json:"shipmentCharges"`
}

// encodingFormat is DHL's name of a shipd label format.
func encodingFormat(format string) (string, bool) {
	switch format {
	case "pdf", "zpl", "epl":
		return format, true
	}
	return "", false
}

// CreateShipment books one waybill with one piece per parcel and returns
// the pieces' tracking numbers and labels in parcel order. As soon as DHL
// answers the waybill, it and the pieces' numbers are recorded through
// req.Booking, before the rest of the answer is read; an attempt given that
// handle resumes the booking instead of making another (ADR 0041).
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if err := checkSettings(s); err != nil {
		return carrier.CreatedShipment{}, err
	}
	if req.Booking.Handle != "" {
		return resume(req)
	}
	format := s.LabelFormat(req.LabelFormat)
	body, err := c.buildShipment(s, req, format)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	res, err := c.call(ctx, s, http.MethodPost, "/shipments", nil, raw)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		return carrier.CreatedShipment{}, rejection(res, "shipment")
	}
	var ans shipmentResponse
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		return carrier.CreatedShipment{}, fmt.Errorf("dhl_express: create shipment: unreadable answer: %v", err)
	}
	if ans.ShipmentTrackingNumber == "" {
		return carrier.CreatedShipment{}, fmt.Errorf("dhl_express: create shipment: the answer names no waybill")
	}
	numbers, numbersErr := pieceNumbers(ans, len(req.Parcels))
	b := booking{Waybill: ans.ShipmentTrackingNumber, Pieces: numbers}
	handle, _ := json.Marshal(b)
	if err := carrierhttp.Accept(ctx, req.Booking, string(handle)); err != nil {
		return carrier.CreatedShipment{}, err
	}
	// DHL holds the waybill now: what follows can only leave the answer
	// short (piece numbers shipd does not keep, no labels), never fail it.
	out := b.created()
	out.Price = price(ans)
	if numbersErr == nil {
		out.Labels, _ = bookingLabels(ans, format, len(req.Parcels))
	}
	return out, nil
}

// booking is the handle of a waybill DHL booked (ADR 0041): the waybill and
// its pieces' numbers in parcel order ("" where the answer named none).
type booking struct {
	Waybill string   `json:"waybill"`
	Pieces  []string `json:"pieces"`
}

func (b booking) created() carrier.CreatedShipment {
	return carrier.CreatedShipment{ProviderShipmentID: b.Waybill, TrackingNumbers: b.Pieces}
}

// resume answers for the waybill an earlier attempt recorded, from its
// handle. It has no labels: DHL prints them only in the booking's answer
// (Labels says so), so the label step of a booking resumed ends without
// one. A handle short of a piece's number is not completed: the MyDHL API
// reads pieces back only through tracking, which knows a waybill once DHL
// has scanned it.
func resume(req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	var b booking
	if err := json.Unmarshal([]byte(req.Booking.Handle), &b); err != nil {
		return carrier.CreatedShipment{}, carrierhttp.Unavailable("dhl_express: the booking's handle %q is unreadable: %v", req.Booking.Handle, err)
	}
	if b.Waybill == "" || len(b.Pieces) != len(req.Parcels) || slices.Contains(b.Pieces, "") {
		return carrier.CreatedShipment{}, carrierhttp.Unavailable("dhl_express: DHL's answer to the booking did not name a piece number for each of its %d parcels (%s), "+
			"and the MyDHL API reads pieces back only by tracking a waybill DHL has scanned", len(req.Parcels), req.Booking.Handle)
	}
	return b.created(), nil
}

// pieceNumbers are the pieces' tracking numbers in parcel order: piece
// referenceNumber n is parcel n (the adapter numbers them so). What fits a
// parcel is kept even when the answer does not make one per parcel (the
// error says what is wrong).
func pieceNumbers(ans shipmentResponse, parcels int) ([]string, error) {
	out := make([]string, parcels)
	var problem error
	for i, p := range ans.Packages {
		at := i // no reference number: answer order
		if p.ReferenceNumber != 0 {
			at = int(p.ReferenceNumber) - 1
		}
		if at < 0 || at >= parcels || out[at] != "" || p.TrackingNumber == "" {
			problem = fmt.Errorf("dhl_express: create shipment %s: piece %d (reference %v, number %q) fits no parcel", ans.ShipmentTrackingNumber, i+1, p.ReferenceNumber, p.TrackingNumber)
			continue
		}
		out[at] = p.TrackingNumber
	}
	if problem == nil && len(ans.Packages) != parcels {
		problem = fmt.Errorf("dhl_express: create shipment %s: %d pieces answered for %d parcels", ans.ShipmentTrackingNumber, len(ans.Packages), parcels)
	}
	return out, problem
}

// price is DHL's charge in the billing currency, nil when it names none.
func price(ans shipmentResponse) *carrier.Money {
	for _, ch := range ans.ShipmentCharges {
		if ch.CurrencyType != "BILLC" || !carrier.IsCurrencyCode(ch.PriceCurrency) {
			continue
		}
		if m, err := carrier.MoneyFromFloat(ch.Price, ch.PriceCurrency); err == nil {
			return &m
		}
		if m, err := carrier.MoneyFromFloat(roundTo(ch.Price, carrier.CurrencyDigits(ch.PriceCurrency)), ch.PriceCurrency); err == nil {
			return &m
		}
	}
	return nil
}

// buildShipment checks req against what DHL is known to refuse and writes
// the request; every refusal is reported at once.
func (c *Carrier) buildShipment(s carrier.Settings, req carrier.ShipmentRequest, format string) (shipmentRequest, error) {
	var problems []*carrier.Rejection
	code := strings.TrimSpace(req.ProductType)
	if code == "" {
		code = orDefault(strings.TrimSpace(s.String(settingProduct)), DefaultProduct)
	}
	prod, known := productOf(code)
	origin, destination := strings.ToUpper(req.Origin.CountryCode), strings.ToUpper(req.Destination.CountryCode)
	switch {
	case !known:
		problems = append(problems, carrier.Reject("product_type", "DHL Express adapter has no product %q (it has %s)", code, strings.Join(productCodes(), ", ")))
	case prod.domestic && origin != destination:
		problems = append(problems, carrier.Reject("product_type", "DHL Express product %s (%s) ships inside one country, not from %s to %s", code, prod.Name, origin, destination))
	}
	enc, ok := encodingFormat(format)
	if !ok {
		problems = append(problems, carrier.Reject("label_format", "DHL Express prints labels as %s, not %q", strings.Join(labelFormats, ", "), format))
	}
	if req.COD != nil {
		problems = append(problems, carrier.Reject("cash_on_delivery_amount", "DHL Express (MyDHL API) takes no cash on delivery through shipd"))
	}
	switch n := len(req.Parcels); {
	case n == 0:
		problems = append(problems, carrier.Reject("parcels", "DHL Express needs at least one parcel"))
	case n > MaxParcels:
		problems = append(problems, carrier.Reject("parcels", "%d parcels exceed DHL Express's %d pieces per shipment", n, MaxParcels))
	}
	point := s.PickupPoint(req.PickupPoint)
	if len([]rune(point)) > maxPointID {
		problems = append(problems, carrier.Reject(carrier.PickupPointField, "a DHL Express Service Point id has at most %d characters, not %q", maxPointID, point))
	}
	shipper, p := partyOf(req.Sender, req.Origin, "origin_address", "sender_contact")
	problems = append(problems, p...)
	receiver, p := partyOf(req.Recipient, req.Destination, "destination_address", "recipient_contact")
	problems = append(problems, p...)
	declarable := false
	if known && carrier.IsCountryCode(origin) && carrier.IsCountryCode(destination) {
		var refused *carrier.Rejection
		if declarable, refused = customsDeclarable(prod, origin, destination); refused != nil {
			problems = append(problems, refused)
		}
	}
	if err := carrier.RejectionOf(problems); err != nil {
		return shipmentRequest{}, err
	}

	no := false
	out := shipmentRequest{
		PlannedShippingDateAndTime: c.plannedShipping(req.ShippingDate),
		Pickup:                     pickup{IsRequested: false},
		ProductCode:                code,
		GetRateEstimates:           true,
		Accounts:                   []account{{TypeCode: "shipper", Number: strings.TrimSpace(s.String(settingAccount))}},
		OutputImageProperties: outputImage{
			EncodingFormat: enc,
			// One label per piece, apart from the waybill document, which
			// is not asked for (AssumedNoWaybillDoc).
			ImageOptions:                      []imageOption{{TypeCode: "label"}, {TypeCode: "waybillDoc", IsRequested: &no}},
			SplitTransportAndWaybillDocLabels: true,
			SplitDocumentsByPages:             true,
		},
		CustomerDetails: customerDetails{ShipperDetails: shipper, ReceiverDetails: receiver},
		Content: content{
			IsCustomsDeclarable: declarable,
			Description:         description(s),
			Incoterm:            "DAP",
			UnitOfMeasurement:   "metric",
		},
	}
	if ref := truncate(req.Reference, 35); ref != "" {
		out.CustomerReferences = []reference{{Value: ref, TypeCode: "CU"}}
	}
	if point != "" {
		out.OnDemandDelivery = &onDemandDelivery{DeliveryOption: "servicepoint", ServicePointID: point}
	}
	for i, parcel := range req.Parcels {
		l, w, h := parcel.DimensionsCM()
		out.Content.Packages = append(out.Content.Packages, piece{
			Weight:          math.Max(roundTo(parcel.WeightKG(), 3), 0.001),
			Dimensions:      dimensions{Length: wholeCM(l), Width: wholeCM(w), Height: wholeCM(h)},
			ReferenceNumber: i + 1,
		})
	}
	return out, nil
}

// partyOf writes a contact and its address as DHL's shipper or receiver,
// refusing what DHL requires and shipd's request may lack or overflow.
func partyOf(ct carrier.Contact, a carrier.Address, addrField, contactField string) (party, []*carrier.Rejection) {
	var problems []*carrier.Rejection
	person := strings.TrimSpace(strings.TrimSpace(ct.FirstName) + " " + strings.TrimSpace(ct.LastName))
	company := strings.TrimSpace(ct.CompanyName)
	// DHL requires both names: a private person is their own company.
	if company == "" {
		company = person
	}
	if person == "" {
		person = company
	}
	out := party{
		PostalAddress: postalAddress{
			PostalCode:   strings.TrimSpace(a.PostalCode),
			CityName:     strings.TrimSpace(a.CityName),
			CountryCode:  strings.ToUpper(strings.TrimSpace(a.CountryCode)),
			AddressLine1: streetLine(a),
		},
		ContactInformation: contact{
			Email:       truncate(ct.Email, 70),
			Phone:       truncate(ct.Phone, 70),
			CompanyName: truncate(company, 100),
			FullName:    truncate(person, 255),
		},
	}
	if out.ContactInformation.FullName == "" {
		problems = append(problems, carrier.Reject(contactField+".last_name", "DHL Express needs a name or a company name"))
	}
	if out.ContactInformation.Phone == "" {
		problems = append(problems, carrier.Reject(contactField+".phone_number", "DHL Express needs a phone number"))
	}
	for _, f := range []struct {
		field, value string
		max          int
	}{
		{"street_name", out.PostalAddress.AddressLine1, 45},
		{"city_name", out.PostalAddress.CityName, 45},
		{"postal_code", out.PostalAddress.PostalCode, 12},
	} {
		switch n := len([]rune(f.value)); {
		case n == 0 && f.field != "postal_code":
			problems = append(problems, carrier.Reject(addrField+"."+f.field, "DHL Express needs it"))
		case n > f.max:
			problems = append(problems, carrier.Reject(addrField+"."+f.field, "DHL Express takes at most %d characters here (with the house number on the street line), not %d", f.max, n))
		}
	}
	if !carrier.IsCountryCode(out.PostalAddress.CountryCode) {
		problems = append(problems, carrier.Reject(addrField+".country_code", "%q is no ISO 3166-1 alpha-2 country code", a.CountryCode))
	}
	return out, problems
}

// streetLine is the street, house number and apartment on one line.
func streetLine(a carrier.Address) string {
	line := strings.TrimSpace(a.StreetName)
	house := strings.TrimSpace(a.HouseNumber)
	if ap := strings.TrimSpace(a.ApartmentNumber); ap != "" {
		house += "/" + ap
	}
	if house != "" {
		line += " " + house
	}
	return strings.TrimSpace(line)
}

// plannedShipping is the tender time DHL is told: the shipping date at
// AssumedShippingHourUTC, or an hour from now when that is past or too
// close (DHL refuses times in the past).
func (c *Carrier) plannedShipping(date time.Time) string {
	now := c.now().UTC()
	t := time.Date(date.Year(), date.Month(), date.Day(), AssumedShippingHourUTC, 0, 0, 0, time.UTC)
	if date.IsZero() || t.Before(now.Add(30*time.Minute)) {
		t = now.Add(time.Hour).Truncate(time.Second)
	}
	return t.Format("2006-01-02T15:04:05") + " GMT+00:00"
}

// wholeCM rounds a dimension up to whole centimetres, at least 1 (DHL's
// minimum).
func wholeCM(v float64) float64 { return math.Max(1, math.Ceil(v-1e-9)) }

func roundTo(v float64, digits int) float64 {
	f := math.Pow10(digits)
	return math.Round(v*f) / f
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n]))
	}
	return s
}

// CancelShipment cannot cancel: the MyDHL API cancels pickups, not
// shipments, and the adapter books no pickup.
func (c *Carrier) CancelShipment(_ context.Context, _ carrier.Settings, ref carrier.ShipmentRef) error {
	return carrier.Reject("", "DHL Express cannot cancel waybill %s: the MyDHL API cancels pickups only, and none was booked. "+
		"An unused DHL Express waybill (never picked up nor scanned) is not charged and expires; do not hand the parcels to DHL", waybillOf(ref))
}

func waybillOf(ref carrier.ShipmentRef) string {
	if ref.ProviderShipmentID != "" {
		return ref.ProviderShipmentID
	}
	return strings.Join(ref.TrackingNumbers, ", ")
}
