package gls

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

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
type (
	createdResponse struct {
		CreatedShipment struct {
			ParcelData []struct {
				TrackID      string `json:"TrackID"`
				ParcelNumber string `json:"ParcelNumber"`
			} `json:"ParcelData"`
			PrintData []document `json:"PrintData"`
		} `json:"CreatedShipment"`
	}
	cancelResponse struct {
		TrackID string `json:"TrackID"`
		Result  string `json:"Result"`
	}
)

// CreateShipment books req as one GLS shipment with one ShipmentUnit per
// parcel; the tracking numbers are the ParcelNumbers, the provider shipment
// id the TrackIDs (see the package doc).
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
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
	if len(parcels) != len(req.Parcels) {
		return carrier.CreatedShipment{}, fmt.Errorf("gls: booked %d parcels, GLS answered %d", len(req.Parcels), len(parcels))
	}
	created := carrier.CreatedShipment{}
	trackIDs := make([]string, len(parcels))
	for i, p := range parcels {
		if p.ParcelNumber == "" || p.TrackID == "" {
			return carrier.CreatedShipment{}, fmt.Errorf("gls: parcel %d came back without ParcelNumber or TrackID", i)
		}
		created.TrackingNumbers = append(created.TrackingNumbers, p.ParcelNumber)
		trackIDs[i] = p.TrackID
	}
	created.ProviderShipmentID = strings.Join(trackIDs, ",")
	created.Labels, err = documentLabels(out.CreatedShipment.PrintData, format)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	return created, nil
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
