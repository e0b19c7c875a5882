package dhlparcelde

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// MaxWeightGrams is the heaviest parcel DHL takes (Weight.value maximum) [V].
const MaxWeightGrams = 31500

// orderRequest is ShipmentOrderRequest.
type orderRequest struct {
	Profile   string          `json:"profile"`
	Shipments []shipmentOrder `json:"shipments"`
}

type shipmentOrder struct {
	Product       string    `json:"product"`
	BillingNumber string    `json:"billingNumber"`
	RefNo         string    `json:"refNo,omitempty"`
	ShipDate      string    `json:"shipDate,omitempty"`
	Shipper       address   `json:"shipper"`
	Consignee     address   `json:"consignee"`
	Details       details   `json:"details"`
	Services      *services `json:"services,omitempty"`
}

// address is Shipper and ContactAddress (Consignee) alike; only the
// consignee carries a phone.
type address struct {
	Name1         string `json:"name1"`
	Name2         string `json:"name2,omitempty"`
	AddressStreet string `json:"addressStreet"`
	AddressHouse  string `json:"addressHouse,omitempty"`
	PostalCode    string `json:"postalCode,omitempty"`
	City          string `json:"city"`
	Country       string `json:"country"`
	ContactName   string `json:"contactName,omitempty"`
	Phone         string `json:"phone,omitempty"`
	Email         string `json:"email,omitempty"`
}

type details struct {
	Dim    *dimensions `json:"dim,omitempty"`
	Weight weight      `json:"weight"`
}

type dimensions struct {
	UOM    string `json:"uom"`
	Height int    `json:"height"`
	Length int    `json:"length"`
	Width  int    `json:"width"`
}

type weight struct {
	UOM   string  `json:"uom"`
	Value float64 `json:"value"`
}

type services struct {
	CashOnDelivery *cashOnDelivery `json:"cashOnDelivery,omitempty"`
}

type cashOnDelivery struct {
	Amount        value  `json:"amount"`
	TransferNote1 string `json:"transferNote1"`
}

type value struct {
	Currency string  `json:"currency"`
	Value    float64 `json:"value"`
}

// docFormat is DHL's name of a shipd label format.
func docFormat(format string) (string, bool) {
	switch format {
	case "pdf":
		return "PDF", true
	case "zpl":
		return "ZPL2", true
	}
	return "", false
}

// CreateShipment books one DHL shipment per parcel in one POST /orders. As
// soon as DHL answers that it created them all, their shipment numbers are
// recorded through req.Booking (the handle, comma-separated in parcel order)
// before the labels are read; an attempt given that handle resumes the
// booking instead of making another (ADR 0041).
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if err := checkCredentials(s); err != nil {
		return carrier.CreatedShipment{}, err
	}
	if req.Booking.Handle != "" {
		return resume(req)
	}
	format := s.LabelFormat(req.LabelFormat)
	order, err := buildOrder(s, req, format)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	body, err := json.Marshal(order)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	doc, _ := docFormat(format)
	q := url.Values{"docFormat": {doc}, "includeDocs": {"include"}}
	u := c.apiHost(s) + shippingBase + "/orders?" + q.Encode()
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodPost, u, body) })
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if res.Status != http.StatusOK && res.Status != http.StatusMultiStatus {
		return carrier.CreatedShipment{}, answerError(res.Status, res.Body, "shipment")
	}
	ld, err := decodeLabelData(res.Body, "create shipment")
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if len(ld.Items) != len(order.Shipments) {
		return carrier.CreatedShipment{}, c.deleteCreated(ctx, s, ld.Items,
			fmt.Errorf("dhl_parcel_de: create shipment: %d items answered for %d parcels", len(ld.Items), len(order.Shipments)))
	}
	if problems := itemRejections(ld.Items); len(problems) > 0 {
		return carrier.CreatedShipment{}, c.deleteCreated(ctx, s, ld.Items, carrier.RejectionOf(problems))
	}
	// Item i is parcel i (AssumedItemsInRequestOrder).
	nums := make([]string, len(ld.Items))
	for i, it := range ld.Items {
		if it.ShipmentNo == "" {
			return carrier.CreatedShipment{}, c.deleteCreated(ctx, s, ld.Items,
				fmt.Errorf("dhl_parcel_de: create shipment: parcel %d has no shipment number", i+1))
		}
		nums[i] = it.ShipmentNo
	}
	if err := carrierhttp.Accept(ctx, req.Booking, strings.Join(nums, handleSeparator)); err != nil {
		return carrier.CreatedShipment{}, err
	}
	out := carrier.CreatedShipment{ProviderShipmentID: nums[0], TrackingNumbers: nums}
	for _, it := range ld.Items {
		l, ok, err := labelOf(it, format)
		if err != nil || !ok {
			// A label is missing or unreadable: DHL holds the shipments, so
			// the booking stands and shipd fetches the labels with Labels.
			out.Labels = nil
			break
		}
		out.Labels = append(out.Labels, l)
	}
	return out, nil
}

// handleSeparator joins the shipment numbers of a booking's handle.
const handleSeparator = ","

// resume answers for the booking an earlier attempt recorded: its handle
// holds every parcel's shipment number, all DHL's answer named (the labels
// are fetched again with Labels). Nothing is booked.
func resume(req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	nums := strings.Split(req.Booking.Handle, handleSeparator)
	if len(nums) != len(req.Parcels) || slices.Contains(nums, "") {
		return carrier.CreatedShipment{}, carrierhttp.Unavailable("dhl_parcel_de: the booking's handle %q does not name one DHL shipment per parcel (%d), and DHL has no way to look shipments up by anything else", req.Booking.Handle, len(req.Parcels))
	}
	return carrier.CreatedShipment{ProviderShipmentID: nums[0], TrackingNumbers: nums}, nil
}

// deleteCreated cancels, best effort, the items of a failed booking that
// DHL did create, so a rejected booking leaves nothing behind, and returns
// why the booking failed. What DHL still holds after a failed cancel is
// logged and joined to it (carrier.WithLeftover), for the shipment's record:
// DHL may charge for it.
func (c *Carrier) deleteCreated(ctx context.Context, s carrier.Settings, items []responseItem, why error) error {
	var numbers []string
	for _, it := range items {
		if it.Sstatus.ok() && it.ShipmentNo != "" {
			numbers = append(numbers, it.ShipmentNo)
		}
	}
	if len(numbers) == 0 {
		return why
	}
	left, err := c.cancel(ctx, s, numbers)
	if err == nil {
		return why
	}
	slog.WarnContext(ctx, "dhl_parcel_de: a failed booking's shipments could not be cancelled; DHL still holds them",
		"shipment_numbers", left, "booking_err", why, "err", err)
	return carrier.WithLeftover(why, left, err)
}

// buildOrder checks req against DHL's rules and writes the order.
func buildOrder(s carrier.Settings, req carrier.ShipmentRequest, format string) (orderRequest, error) {
	var problems []*carrier.Rejection
	code := req.ProductType
	if code == "" {
		code = orDefault(s.String("productType"), DefaultProduct)
	}
	prod, known := product(code)
	if !known {
		problems = append(problems, carrier.Reject("product_type", "DHL Parcel DE has no product %q (it has %s)", code, strings.Join(productCodes(), ", ")))
	}
	if _, ok := docFormat(format); !ok {
		problems = append(problems, carrier.Reject("label_format", "DHL Parcel DE prints labels as pdf or zpl, not %q", format))
	}
	if req.COD != nil {
		if known && !prod.SupportsCOD {
			problems = append(problems, carrier.Reject("product_type", "DHL product %s does not carry cash on delivery; use V01PAK", code))
		}
		if req.COD.Currency != "EUR" {
			problems = append(problems, carrier.Reject("cash_on_delivery.currency", "DHL Parcel DE collects cash on delivery in EUR only, not %s", req.COD.Currency))
		}
	}
	shipper, p := party(req.Sender, req.Origin, "origin_address", "sender_contact")
	// DHL's Shipper has no phone (ContactAddress has): the document refuses
	// one, so the sender's number stays out.
	shipper.Phone = ""
	problems = append(problems, p...)
	consignee, p := party(req.Recipient, req.Destination, "destination_address", "recipient_contact")
	problems = append(problems, p...)
	switch n := len(req.Parcels); {
	case n == 0:
		problems = append(problems, carrier.Reject("parcels", "DHL Parcel DE needs at least one parcel"))
	case n > MaxParcels:
		problems = append(problems, carrier.Reject("parcels", "%d parcels exceed DHL Parcel DE's %d shipments per request", n, MaxParcels))
	}
	order := orderRequest{Profile: profile(s)}
	for i, parcel := range req.Parcels {
		grams := math.Round(parcel.WeightKG() * 1000)
		if grams > MaxWeightGrams {
			problems = append(problems, carrier.Reject("parcels."+strconv.Itoa(i)+".weight_amount", "%.3f kg exceeds DHL Parcel DE's 31.5 kg per parcel", parcel.WeightKG()))
		}
		sh := shipmentOrder{
			Product:       code,
			BillingNumber: s.String("billingNumber"),
			RefNo:         refNo(req.Reference),
			Shipper:       shipper,
			Consignee:     consignee,
			Details:       details{Weight: weight{UOM: "g", Value: grams}, Dim: dims(parcel)},
		}
		if !req.ShippingDate.IsZero() {
			sh.ShipDate = req.ShippingDate.Format("2006-01-02")
		}
		if req.COD != nil && i == 0 {
			note := truncate(req.Reference, 35)
			if note == "" {
				note = "shipd"
			}
			sh.Services = &services{CashOnDelivery: &cashOnDelivery{
				Amount:        value{Currency: req.COD.Currency, Value: req.COD.Float()},
				TransferNote1: note,
			}}
		}
		order.Shipments = append(order.Shipments, sh)
	}
	return order, carrier.RejectionOf(problems)
}

// party writes a contact and its address as DHL's name lines and address.
func party(ct carrier.Contact, a carrier.Address, addrField, contactField string) (address, []*carrier.Rejection) {
	var problems []*carrier.Rejection
	country, ok := countryAlpha3(a.CountryCode)
	if !ok {
		problems = append(problems, carrier.Reject(addrField+".country_code", "DHL Parcel DE adapter does not ship to or from country %q", a.CountryCode))
	}
	person := strings.TrimSpace(ct.FirstName + " " + ct.LastName)
	out := address{
		Name1:         truncate(person, 50),
		AddressStreet: truncate(a.StreetName, 50),
		AddressHouse:  truncate(house(a), 10),
		PostalCode:    truncate(strings.TrimSpace(a.PostalCode), 10),
		City:          truncate(a.CityName, 40),
		Country:       country,
		Phone:         truncate(strings.TrimSpace(ct.Phone), 20),
		Email:         truncate(strings.TrimSpace(ct.Email), 80),
	}
	if strings.TrimSpace(ct.CompanyName) != "" {
		out.Name1 = truncate(ct.CompanyName, 50)
		out.Name2 = truncate(person, 50)
	}
	if len([]rune(person)) >= 3 {
		out.ContactName = truncate(person, 80)
	}
	if len(out.Email) < 3 {
		out.Email = ""
	}
	if out.Name1 == "" {
		problems = append(problems, carrier.Reject(contactField+".last_name", "DHL Parcel DE needs a name or a company name"))
	}
	if out.AddressStreet == "" {
		problems = append(problems, carrier.Reject(addrField+".street_name", "DHL Parcel DE needs a street"))
	}
	if out.City == "" {
		problems = append(problems, carrier.Reject(addrField+".city_name", "DHL Parcel DE needs a city"))
	}
	return out, problems
}

func house(a carrier.Address) string {
	h := strings.TrimSpace(a.HouseNumber)
	if ap := strings.TrimSpace(a.ApartmentNumber); ap != "" {
		h += "/" + ap
	}
	return h
}

// dims are the parcel's dimensions in whole millimetres, none when unknown.
func dims(p carrier.Parcel) *dimensions {
	l, w, h := p.DimensionsCM()
	d := &dimensions{UOM: "mm", Length: int(math.Round(l * 10)), Width: int(math.Round(w * 10)), Height: int(math.Round(h * 10))}
	if d.Length <= 0 || d.Width <= 0 || d.Height <= 0 {
		return nil
	}
	return d
}

// refNo is the reference as DHL takes it (8 to 35 characters), else none.
func refNo(ref string) string {
	ref = truncate(strings.TrimSpace(ref), 35)
	if len([]rune(ref)) < 8 {
		return ""
	}
	return ref
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n]))
	}
	return s
}

// numbers are the DHL shipment numbers of a booking, in parcel order.
func numbers(ref carrier.ShipmentRef) []string {
	if len(ref.TrackingNumbers) > 0 {
		return ref.TrackingNumbers
	}
	if ref.ProviderShipmentID != "" {
		return []string{ref.ProviderShipmentID}
	}
	return nil
}

// CancelShipment deletes every parcel's DHL shipment in one DELETE /orders.
// A shipment DHL says it no longer knows was deleted before (an earlier
// cancel that worked): when every parcel's is, the cancel answers
// carrier.ErrAlreadyCancelled; when some are and the others are deleted now,
// it worked.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	if err := checkCredentials(s); err != nil {
		return err
	}
	nums := numbers(ref)
	if len(nums) == 0 {
		return carrier.Reject("", "the shipment has no DHL shipment numbers to cancel")
	}
	ld, err := c.deleteOrders(ctx, s, nums)
	if err != nil {
		return err
	}
	refused := itemRejections(ld.Items)
	if len(refused) == 0 {
		return nil
	}
	deletedBefore := 0
	for _, it := range ld.Items {
		switch {
		case it.Sstatus.ok():
		case deletedAlready(it):
			deletedBefore++
		default:
			return carrier.RejectionOf(refused)
		}
	}
	if deletedBefore == len(nums) {
		return carrier.ErrAlreadyCancelled
	}
	return nil
}

// deletedAlready reports whether a refused item of a DELETE /orders answer
// is DHL saying the shipment is gone. DHL documents its per-item 400 for a
// shipment that does not exist or was already deleted [V], but not how it
// refuses a manifested one, so only a status whose words say the number is
// unknown or deleted counts (AssumedDeletedWords); any other refusal stays
// one.
func deletedAlready(it responseItem) bool {
	if it.Sstatus.code() != http.StatusBadRequest {
		return false
	}
	text := strings.ToLower(it.Sstatus.Title + " " + it.Sstatus.Detail)
	for _, m := range it.ValidationMessages {
		text += " " + strings.ToLower(m.ValidationMessage)
	}
	for _, w := range AssumedDeletedWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// cancel deletes DHL shipments nums in one DELETE /orders. When it fails,
// left is what DHL still holds: the numbers its answer does not say it
// deleted, every one of them when no usable answer came.
func (c *Carrier) cancel(ctx context.Context, s carrier.Settings, nums []string) (left []string, err error) {
	ld, err := c.deleteOrders(ctx, s, nums)
	if err != nil {
		return nums, err
	}
	if err := carrier.RejectionOf(itemRejections(ld.Items)); err != nil {
		return notDeleted(nums, ld.Items), err
	}
	return nil, nil
}

// notDeleted is nums less those an item of DHL's answer says were deleted;
// all of nums when the answer refused some without saying which.
func notDeleted(nums []string, items []responseItem) []string {
	deleted := map[string]bool{}
	for _, it := range items {
		if it.Sstatus.ok() && it.ShipmentNo != "" {
			deleted[it.ShipmentNo] = true
		}
	}
	var left []string
	for _, n := range nums {
		if !deleted[n] {
			left = append(left, n)
		}
	}
	if len(left) == 0 {
		return nums
	}
	return left
}

// deleteOrders is DELETE /orders of nums: DHL's answer, one item per
// shipment (200 or 207, or 400 for a single refused one).
func (c *Carrier) deleteOrders(ctx context.Context, s carrier.Settings, nums []string) (labelDataResponse, error) {
	q := url.Values{"profile": {profile(s)}, "shipment": nums}
	u := c.apiHost(s) + shippingBase + "/orders?" + q.Encode()
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodDelete, u, nil) })
	if err != nil {
		return labelDataResponse{}, err
	}
	if res.Status == http.StatusBadRequest {
		if ld, err := decodeLabelData(res.Body, "cancel shipment"); err == nil && len(ld.Items) > 0 {
			return ld, nil
		}
	}
	if res.Status != http.StatusOK && res.Status != http.StatusMultiStatus {
		return labelDataResponse{}, answerError(res.Status, res.Body, "cancellation")
	}
	return decodeLabelData(res.Body, "cancel shipment")
}
