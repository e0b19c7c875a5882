package dhlexpress

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// productsResponse is the part of GET /products' answer
// (supermodelIoLogisticsExpressProducts) the windows are read from.
type productsResponse struct {
	Products []struct {
		ProductCode        string `json:"productCode"`
		PickupCapabilities *struct {
			NextBusinessDay        bool   `json:"nextBusinessDay"`
			LocalCutoffDateAndTime string `json:"localCutoffDateAndTime"`
			PickupEarliest         string `json:"pickupEarliest"`
			PickupLatest           string `json:"pickupLatest"`
		} `json:"pickupCapabilities"`
	} `json:"products"`
}

// probe is the prospective shipment GET /products is asked about: DHL
// answers capabilities per shipment, not per address.
type probe struct {
	product     string
	destination carrier.Address
	parcel      carrier.Parcel
}

// CourierPickupWindows reads DHL's pickup capabilities on req.Date at
// req.Address (GET /products, which answers them per product for one
// prospective shipment): the window is DHL's earliest to latest pickup
// time. The shipment asked about is the request's first (its destination,
// first parcel and product), or with none a parcel of
// AssumedProbeParcel to the address itself with the channel's product.
// No product, or one DHL picks up only on a later day, is no window on the
// date; capabilities without times are DHL not saying (ErrNotOffered, the
// channel's defaults stand). DHL names no time by which to order
// (AssumedNoOrderBy).
func (c *Carrier) CourierPickupWindows(ctx context.Context, s carrier.Settings, req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	if err := checkSettings(s); err != nil {
		return nil, err
	}
	if _, err := time.Parse(time.DateOnly, req.Date); err != nil {
		return nil, carrier.Reject(carrier.PickupFieldDate, "must be a date 2006-01-02, not %q", req.Date)
	}
	p := probeOf(s, req)
	q := probeQuery(s, req, p)
	if q == nil {
		return nil, carrier.Reject(carrier.PickupFieldAddress, "DHL Express needs the pickup's country and city to say its pickup times")
	}
	res, err := c.call(ctx, s, http.MethodGet, "/products", q, nil)
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		return nil, windowsRejection(res)
	}
	var ans productsResponse
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		return nil, fmt.Errorf("dhl_express: products: unreadable answer: %v", err)
	}
	chosen := -1
	for i, pr := range ans.Products {
		if pr.PickupCapabilities == nil {
			continue
		}
		if chosen < 0 || pr.ProductCode == p.product {
			chosen = i
		}
		if pr.ProductCode == p.product {
			break
		}
	}
	if chosen < 0 {
		if len(ans.Products) == 0 {
			return []carrier.PickupWindow{}, nil
		}
		return nil, fmt.Errorf("dhl_express: pickup windows: %w (DHL's products name no pickup capabilities)", carrier.ErrNotOffered)
	}
	pc := ans.Products[chosen].PickupCapabilities
	if pc.NextBusinessDay || (pc.LocalCutoffDateAndTime != "" && !strings.HasPrefix(pc.LocalCutoffDateAndTime, req.Date)) {
		return []carrier.PickupWindow{}, nil // DHL picks up on a later day
	}
	from, until := clockOf(pc.PickupEarliest), clockOf(pc.PickupLatest)
	if from == "" || until == "" || until <= from {
		return nil, fmt.Errorf("dhl_express: pickup windows: %w (DHL names no pickup times for %s)", carrier.ErrNotOffered, req.Date)
	}
	return []carrier.PickupWindow{{From: from, Until: until}}, nil
}

// probeOf is the shipment to ask DHL about.
func probeOf(s carrier.Settings, req carrier.PickupWindowsRequest) probe {
	p := probe{product: orDefault(strings.TrimSpace(s.String(settingProduct)), DefaultProduct), destination: req.Address, parcel: AssumedProbeParcel}
	for _, sh := range req.Shipments {
		if len(sh.Parcels) == 0 {
			continue
		}
		p.destination, p.parcel = sh.Destination, sh.Parcels[0]
		if code := strings.TrimSpace(sh.ProductType); code != "" {
			p.product = code
		}
		break
	}
	return p
}

// probeQuery is GET /products' query for p from the pickup's address, nil
// when an address lacks what DHL requires.
func probeQuery(s carrier.Settings, req carrier.PickupWindowsRequest, p probe) url.Values {
	origin, destination := strings.ToUpper(strings.TrimSpace(req.Address.CountryCode)), strings.ToUpper(strings.TrimSpace(p.destination.CountryCode))
	if origin == "" || strings.TrimSpace(req.Address.CityName) == "" || destination == "" || strings.TrimSpace(p.destination.CityName) == "" {
		return nil
	}
	prod, _ := productOf(p.product)
	d := dimensionsOf(p.parcel)
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	q := url.Values{
		"accountNumber":          {strings.TrimSpace(s.String(settingAccount))},
		"originCountryCode":      {origin},
		"originCityName":         {strings.TrimSpace(req.Address.CityName)},
		"destinationCountryCode": {destination},
		"destinationCityName":    {strings.TrimSpace(p.destination.CityName)},
		"weight":                 {num(max(roundTo(p.parcel.WeightKG(), 3), 0.001))},
		"length":                 {num(d.Length)},
		"width":                  {num(d.Width)},
		"height":                 {num(d.Height)},
		"plannedShippingDate":    {req.Date},
		"isCustomsDeclarable":    {strconv.FormatBool(crossesCustomsBorder(origin, destination) && !prod.documents)},
		"unitOfMeasurement":      {"metric"},
		"nextBusinessDay":        {"false"},
	}
	if pc := strings.TrimSpace(req.Address.PostalCode); pc != "" {
		q.Set("originPostalCode", pc)
	}
	if pc := strings.TrimSpace(p.destination.PostalCode); pc != "" {
		q.Set("destinationPostalCode", pc)
	}
	return q
}

// windowsRejection sorts DHL's refusal of the probe (400): each message
// blames the account when it speaks of one, the date when it speaks of
// one, else the address the probe was made of.
func windowsRejection(res *carrierhttp.Response) error {
	var p problem
	if json.Unmarshal(res.Body, &p) != nil || len(p.messages()) == 0 {
		return carrier.Reject("", "DHL Express refused to say its pickup times (HTTP %d %s)", res.Status, http.StatusText(res.Status))
	}
	var out []*carrier.Rejection
	for _, m := range p.messages() {
		field, lower := carrier.PickupFieldAddress, strings.ToLower(m)
		switch {
		case strings.Contains(lower, "account"):
			field = settingAccount
		case strings.Contains(lower, "date"):
			field = carrier.PickupFieldDate
		}
		out = append(out, carrier.Reject(field, "DHL Express: %s", strings.TrimSpace(m)))
	}
	return carrier.RejectionOf(out)
}
