package gls

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// ShipIT request shapes (shipit-farm.yaml, ShipmentRequestData).
type (
	shipmentRequest struct {
		Shipment        shipment        `json:"Shipment"`
		PrintingOptions printingOptions `json:"PrintingOptions"`
		ReturnOptions   *returnOptions  `json:"ReturnOptions,omitempty"`
	}
	shipment struct {
		ShipmentReference []string       `json:"ShipmentReference,omitempty"`
		ShippingDate      string         `json:"ShippingDate,omitempty"`
		Product           string         `json:"Product"`
		Consignee         consignee      `json:"Consignee"`
		Shipper           shipper        `json:"Shipper"`
		ShipmentUnit      []shipmentUnit `json:"ShipmentUnit"`
	}
	consignee struct {
		Category string  `json:"Category,omitempty"`
		Address  address `json:"Address"`
	}
	shipper struct {
		ContactID string   `json:"ContactID"`
		Address   *address `json:"Address,omitempty"`
	}
	address struct {
		Name1             string `json:"Name1"`
		Name2             string `json:"Name2,omitempty"`
		CountryCode       string `json:"CountryCode"`
		City              string `json:"City"`
		Street            string `json:"Street"`
		StreetNumber      string `json:"StreetNumber,omitempty"`
		ContactPerson     string `json:"ContactPerson,omitempty"`
		MobilePhoneNumber string `json:"MobilePhoneNumber,omitempty"`
		Email             string `json:"Email,omitempty"`
		Zipcode           string `json:"Zipcode,omitempty"`
	}
	shipmentUnit struct {
		ShipmentUnitReference []string      `json:"ShipmentUnitReference,omitempty"`
		Weight                float64       `json:"Weight"`
		Service               []unitService `json:"Service,omitempty"`
	}
	unitService struct {
		Cash *cashService `json:"Cash,omitempty"`
	}
	cashService struct {
		ServiceName string  `json:"ServiceName"`
		Reason      string  `json:"Reason"`
		Amount      float64 `json:"Amount"`
		Currency    string  `json:"Currency"`
	}
	printingOptions struct {
		ReturnLabels returnLabels `json:"ReturnLabels"`
	}
	returnLabels struct {
		TemplateSet string `json:"TemplateSet"`
		LabelFormat string `json:"LabelFormat"`
	}
	returnOptions struct {
		ReturnPrintData   bool `json:"ReturnPrintData"`
		ReturnRoutingInfo bool `json:"ReturnRoutingInfo"`
	}
)

// ShipIT answer shapes (CreateParcelsResponse, ReprintParcelResponse).
// PrintData is read apart from ParcelData: labels that cannot be read do
// not hide the parcels GLS booked.
type (
	createdResponse struct {
		CreatedShipment struct {
			ParcelData []struct {
				TrackID      string `json:"TrackID"`
				ParcelNumber string `json:"ParcelNumber"`
			} `json:"ParcelData"`
			PrintData json.RawMessage `json:"PrintData"`
		} `json:"CreatedShipment"`
	}
	cancelResponse struct {
		TrackID string `json:"TrackID"`
		Result  string `json:"Result"`
	}
)

// booking is the handle of a booking GLS accepted (ADR 0041): every
// parcel's TrackID and ParcelNumber, in parcel order, as its answer named
// them.
type booking struct {
	TrackIDs      []string `json:"track_ids"`
	ParcelNumbers []string `json:"parcel_numbers"`
}

// created is the booking as shipd keeps it: the TrackIDs comma-separated as
// the provider shipment id, the ParcelNumbers as tracking numbers.
func (b booking) created() carrier.CreatedShipment {
	return carrier.CreatedShipment{ProviderShipmentID: strings.Join(b.TrackIDs, ","), TrackingNumbers: b.ParcelNumbers}
}

// whole reports whether b names both numbers of each of n parcels.
func (b booking) whole(n int) bool {
	return len(b.TrackIDs) == n && len(b.ParcelNumbers) == n && !slices.Contains(b.TrackIDs, "") && !slices.Contains(b.ParcelNumbers, "")
}

// CreateShipment books req as one GLS shipment with one ShipmentUnit per
// parcel; the tracking numbers are the ParcelNumbers, the provider shipment
// id the TrackIDs (see the package doc). As soon as GLS answers the parcels
// it booked, their numbers are recorded through req.Booking before anything
// else is read; an attempt given that handle resumes the booking instead of
// making another (ADR 0041).
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if req.Booking.Handle != "" {
		return resume(req)
	}
	e := c.env(s)
	format := s.LabelFormat(req.LabelFormat)
	body, err := buildShipment(s, req, format)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	raw, _ := json.Marshal(body)
	res, err := c.call(ctx, e, http.MethodPost, e.base+"/rs/shipments", MediaType, raw)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if res.Status != http.StatusOK && res.Status != http.StatusCreated {
		return carrier.CreatedShipment{}, shipitError("the shipment", res)
	}
	var out createdResponse
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return carrier.CreatedShipment{}, fmt.Errorf("gls: reading the booking: %w", err)
	}
	parcels := out.CreatedShipment.ParcelData
	if len(parcels) == 0 {
		return carrier.CreatedShipment{}, fmt.Errorf("gls: booked %d parcels, GLS answered none", len(req.Parcels))
	}
	var b booking
	for _, p := range parcels {
		b.TrackIDs = append(b.TrackIDs, p.TrackID)
		b.ParcelNumbers = append(b.ParcelNumbers, p.ParcelNumber)
	}
	handle, _ := json.Marshal(b)
	if err := carrierhttp.Accept(ctx, req.Booking, string(handle)); err != nil {
		return carrier.CreatedShipment{}, err
	}
	// GLS holds the parcels now: what follows can only leave the answer
	// short (numbers shipd does not keep, labels it fetches with Labels),
	// never fail the booking.
	created := b.created()
	if !b.whole(len(req.Parcels)) {
		return created, nil
	}
	var docs []document
	if len(out.CreatedShipment.PrintData) > 0 && json.Unmarshal(out.CreatedShipment.PrintData, &docs) == nil {
		created.Labels, _ = documentLabels(docs, format)
	}
	return created, nil
}

// resume answers for the booking an earlier attempt recorded, from its
// handle (the labels are printed again with Labels). A handle that lacks a
// parcel's numbers is not completed: GLS's schema requires both of every
// ParcelData, so an answer without them is outside its documentation, and
// ShipIT has no operation that lists a shipment's parcels.
func resume(req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	var b booking
	if err := json.Unmarshal([]byte(req.Booking.Handle), &b); err != nil {
		return carrier.CreatedShipment{}, carrierhttp.Unavailable("gls: the booking's handle %q is unreadable: %v", req.Booking.Handle, err)
	}
	if !b.whole(len(req.Parcels)) {
		return carrier.CreatedShipment{}, carrierhttp.Unavailable("gls: GLS's answer to the booking did not name a TrackID and ParcelNumber for each of its %d parcels (%s), "+
			"and ShipIT has no operation that lists a shipment's parcels to read them back", len(req.Parcels), req.Booking.Handle)
	}
	return b.created(), nil
}

func buildShipment(s carrier.Settings, req carrier.ShipmentRequest, format string) (shipmentRequest, error) {
	if n := len(req.Parcels); n == 0 || n > MaxParcels {
		return shipmentRequest{}, carrier.Reject("parcels", "GLS takes 1 to %d parcels per shipment, got %d", MaxParcels, n)
	}
	product := req.ProductType
	if product == "" {
		product = s.String("productType")
	}
	if product == "" {
		product = ProductParcel
	}
	if product != ProductParcel && product != ProductExpress {
		return shipmentRequest{}, &carrier.Rejection{Field: "product_type", Message: fmt.Sprintf("GLS product %q is not one of PARCEL, EXPRESS", product)}
	}
	glsFormat, template, ok := glsLabelFormat(format)
	if !ok {
		return shipmentRequest{}, &carrier.Rejection{Field: "label_format", Message: fmt.Sprintf("GLS prints pdf and zpl labels, not %q", format)}
	}
	sh := shipment{
		Product:   product,
		Consignee: consignee{Category: "PRIVATE", Address: glsAddress(req.Recipient, req.Destination)},
		Shipper:   shipper{ContactID: s.String("contactId")},
	}
	if req.Recipient.CompanyName != "" {
		sh.Consignee.Category = "BUSINESS"
	}
	if req.Origin.StreetName != "" && req.Origin.CityName != "" && req.Origin.CountryCode != "" {
		a := glsAddress(req.Sender, req.Origin)
		sh.Shipper.Address = &a
	}
	if req.Reference != "" {
		sh.ShipmentReference = []string{req.Reference}
	}
	if !req.ShippingDate.IsZero() {
		sh.ShippingDate = req.ShippingDate.UTC().Format(time.RFC3339)
	}
	for i, p := range req.Parcels {
		u := shipmentUnit{Weight: math.Round(p.WeightKG()*100) / 100}
		if req.Reference != "" {
			u.ShipmentUnitReference = []string{fmt.Sprintf("%s-%d", req.Reference, i+1)}
		}
		// The whole COD amount rides on the first parcel (package doc).
		if req.COD != nil && i == 0 {
			reason := req.Reference
			if reason == "" {
				reason = "COD"
			}
			u.Service = []unitService{{Cash: &cashService{ServiceName: CODServiceName, Reason: reason,
				Amount: req.COD.Float(), Currency: req.COD.Currency}}}
		}
		sh.ShipmentUnit = append(sh.ShipmentUnit, u)
	}
	return shipmentRequest{
		Shipment:        sh,
		PrintingOptions: printingOptions{ReturnLabels: returnLabels{TemplateSet: template, LabelFormat: glsFormat}},
		ReturnOptions:   &returnOptions{ReturnPrintData: true, ReturnRoutingInfo: true},
	}, nil
}

func glsAddress(ct carrier.Contact, a carrier.Address) address {
	person := strings.TrimSpace(ct.FirstName + " " + ct.LastName)
	out := address{
		Name1:             person,
		CountryCode:       strings.ToUpper(a.CountryCode),
		City:              a.CityName,
		Street:            a.StreetName,
		StreetNumber:      a.HouseNumber,
		MobilePhoneNumber: ct.Phone,
		Email:             ct.Email,
		Zipcode:           a.PostalCode,
	}
	if a.ApartmentNumber != "" {
		out.StreetNumber += "/" + a.ApartmentNumber
	}
	if ct.CompanyName != "" {
		out.Name1, out.Name2 = ct.CompanyName, person
		out.ContactPerson = person
	}
	return out
}

// trackIDs reads the provider shipment id back into TrackIDs.
func trackIDs(ref carrier.ShipmentRef) ([]string, error) {
	var ids []string
	for _, id := range strings.Split(ref.ProviderShipmentID, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("gls: shipment has no TrackIDs (provider shipment id %q)", ref.ProviderShipmentID)
	}
	if len(ref.TrackingNumbers) > 0 && len(ids) != len(ref.TrackingNumbers) {
		return nil, fmt.Errorf("gls: %d TrackIDs for %d parcels", len(ids), len(ref.TrackingNumbers))
	}
	return ids, nil
}

// CancelShipment cancels every parcel of the shipment by its TrackID. A
// parcel GLS no longer lets go of is a *carrier.Rejection; parcels cancelled
// before it stay cancelled (GLS has no all-or-nothing cancel). A 200 counts
// as cancelled whatever its Result says [U]: shipit-farm.yaml types
// CancelParcelResponse.Result as a plain string and lists no values.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	e := c.env(s)
	ids, err := trackIDs(ref)
	if err != nil {
		return err
	}
	for _, id := range ids {
		res, err := c.call(ctx, e, http.MethodPost, e.base+"/rs/shipments/cancel/"+url.PathEscape(id), MediaType, nil)
		if err != nil {
			return err
		}
		if res.Status != http.StatusOK {
			return shipitError("cancelling parcel "+id, res)
		}
		var out cancelResponse
		if err := json.Unmarshal(res.Body, &out); err != nil {
			return fmt.Errorf("gls: reading the cancellation of %s: %w", id, err)
		}
	}
	return nil
}
