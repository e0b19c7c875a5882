package inpost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// The ShipX shipment as the adapter sends it (simplified mode).
type (
	shipmentRequest struct {
		Receiver         party             `json:"receiver"`
		Sender           *party            `json:"sender,omitempty"`
		Parcels          []parcel          `json:"parcels"`
		CustomAttributes *customAttributes `json:"custom_attributes,omitempty"`
		COD              *money            `json:"cod,omitempty"`
		Insurance        *money            `json:"insurance,omitempty"`
		Service          string            `json:"service"`
		Reference        string            `json:"reference,omitempty"`
	}
	party struct {
		CompanyName string  `json:"company_name,omitempty"`
		FirstName   string  `json:"first_name,omitempty"`
		LastName    string  `json:"last_name,omitempty"`
		Email       string  `json:"email,omitempty"`
		Phone       string  `json:"phone,omitempty"`
		Address     address `json:"address"`
	}
	address struct {
		Street         string `json:"street"`
		BuildingNumber string `json:"building_number"`
		City           string `json:"city"`
		PostCode       string `json:"post_code"`
		CountryCode    string `json:"country_code"`
	}
	parcel struct {
		Dimensions    dimensions `json:"dimensions"`
		Weight        weight     `json:"weight"`
		IsNonStandard bool       `json:"is_non_standard"`
	}
	dimensions struct {
		Length float64 `json:"length"`
		Width  float64 `json:"width"`
		Height float64 `json:"height"`
		Unit   string  `json:"unit"`
	}
	weight struct {
		Amount float64 `json:"amount"`
		Unit   string  `json:"unit"`
	}
	customAttributes struct {
		TargetPoint   string `json:"target_point,omitempty"`
		SendingMethod string `json:"sending_method,omitempty"`
	}
	money struct {
		Amount   float64 `json:"amount"`
		Currency string  `json:"currency"`
	}
)

// shipmentAnswer is what the adapter reads of a ShipX shipment.
type shipmentAnswer struct {
	ID             json.Number `json:"id"`
	Status         string      `json:"status"`
	TrackingNumber string      `json:"tracking_number"`
	Parcels        []struct {
		TrackingNumber string `json:"tracking_number"`
	} `json:"parcels"`
	SelectedOffer *struct {
		Rate     *float64 `json:"rate"`
		Currency string   `json:"currency"`
	} `json:"selected_offer"`
	Offers []struct {
		Status                string          `json:"status"`
		UnavailabilityReasons json.RawMessage `json:"unavailability_reasons"`
	} `json:"offers"`
	// CustomAttributes names the shipment's dispatch order, once one
	// collects it (a manifest's printouts keep such shipments apart).
	CustomAttributes *struct {
		DispatchOrderID *json.Number `json:"dispatch_order_id"`
	} `json:"custom_attributes"`
}

// product is the service of req: its own, else the channel's, else courier standard.
func product(s carrier.Settings, req carrier.ShipmentRequest) string {
	switch {
	case req.ProductType != "":
		return req.ProductType
	case s.String("productType") != "":
		return s.String("productType")
	}
	return ServiceCourierStandard
}

// CreateShipment books req in simplified mode and waits until ShipX has
// confirmed it with a tracking number per parcel. ShipX creates the shipment
// (its id) at once and confirms it later: the id is recorded through
// req.Booking before the wait, and an attempt given that id back
// (req.Booking.Handle) polls the shipment instead of creating another.
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if err := checkSettings(s); err != nil {
		return carrier.CreatedShipment{}, err
	}
	body, err := buildShipment(s, req)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	var sh shipmentAnswer
	id := strings.TrimSpace(req.Booking.Handle)
	if id != "" {
		if sh, err = c.shipment(ctx, s, id); err != nil {
			return carrier.CreatedShipment{}, err
		}
	} else {
		var readErr error
		if id, sh, readErr, err = c.create(ctx, s, body); err != nil {
			return carrier.CreatedShipment{}, err
		}
		if err := req.Booking.Accept(ctx, id); err != nil {
			return carrier.CreatedShipment{}, acceptError(id, err)
		}
		if readErr != nil {
			// ShipX holds the shipment: the rest of its answer is read
			// again by the polls.
			sh = shipmentAnswer{ID: json.Number(id)}
		}
	}
	for {
		done, err := settled(sh, len(body.Parcels))
		if err != nil {
			return carrier.CreatedShipment{}, err
		}
		if done {
			return created(id, sh), nil
		}
		if err := c.wait(ctx); err != nil {
			return carrier.CreatedShipment{}, carrierhttp.Unavailable("inpost: shipment %s still %s: %v", id, sh.Status, err)
		}
		if sh, err = c.shipment(ctx, s, id); err != nil {
			return carrier.CreatedShipment{}, err
		}
	}
}

// create sends the shipment; ShipX answers with it, id set, not yet
// confirmed. The id is read first and alone, so that a shipment ShipX made
// is recorded even when the rest of its answer cannot be read (readErr).
func (c *Carrier) create(ctx context.Context, s carrier.Settings, body *shipmentRequest) (id string, sh shipmentAnswer, readErr, err error) {
	res, err := c.do(ctx, s, http.MethodPost, "/v1/organizations/"+url.PathEscape(s.String("organizationId"))+"/shipments", body)
	if err != nil {
		return "", sh, nil, err
	}
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		return "", sh, nil, apiError(res, "organizationId")
	}
	var named struct {
		ID json.Number `json:"id"`
	}
	if err := decode(res, &named); err != nil {
		return "", sh, nil, err
	}
	if named.ID == "" {
		return "", sh, nil, carrierhttp.Unavailable("inpost: created shipment without id")
	}
	return named.ID.String(), sh, decode(res, &sh), nil
}

// acceptError is a failed record of the booking's handle: a Rejection as it
// is, anything else unavailability (the next attempt may book again).
func acceptError(id string, err error) error {
	var r *carrier.Rejection
	var rs carrier.Rejections
	if errors.As(err, &r) || errors.As(err, &rs) || errors.Is(err, carrier.ErrUnavailable) {
		return err
	}
	return carrierhttp.Unavailable("inpost: recording shipment %s: %w", id, err)
}

// settled reports whether ShipX has finished booking sh (confirmed, one
// tracking number per parcel), or refused it.
func settled(sh shipmentAnswer, parcels int) (bool, error) {
	switch sh.Status {
	case "confirmed":
		return len(trackingNumbers(sh)) == parcels, nil
	case "canceled", "cancelled":
		return false, &carrier.Rejection{Message: fmt.Sprintf("InPost: shipment %s was canceled before it was confirmed", sh.ID)}
	}
	if len(sh.Offers) > 0 && sh.SelectedOffer == nil {
		unavailable := 0
		var reasons []string
		for _, o := range sh.Offers {
			if o.Status == "unavailable" {
				unavailable++
				if len(o.UnavailabilityReasons) > 0 && string(o.UnavailabilityReasons) != "null" {
					reasons = append(reasons, string(o.UnavailabilityReasons))
				}
			}
		}
		if unavailable == len(sh.Offers) {
			return false, &carrier.Rejection{Field: "product_type",
				Message: "InPost: the service is unavailable for this shipment " + strings.Join(reasons, "; ")}
		}
	}
	return false, nil
}

// trackingNumbers are the parcels' numbers in parcel order; a single
// parcel may carry its number on the shipment only.
func trackingNumbers(sh shipmentAnswer) []string {
	var out []string
	for _, p := range sh.Parcels {
		if p.TrackingNumber == "" {
			return nil
		}
		out = append(out, p.TrackingNumber)
	}
	if len(out) == 0 && sh.TrackingNumber != "" {
		out = []string{sh.TrackingNumber}
	}
	return out
}

// created is the booking's outcome. The price is read from
// selected_offer.rate and .currency, which is assumed to be what ShipX
// charges [U].
func created(id string, sh shipmentAnswer) carrier.CreatedShipment {
	out := carrier.CreatedShipment{ProviderShipmentID: id, TrackingNumbers: trackingNumbers(sh)}
	if o := sh.SelectedOffer; o != nil && o.Rate != nil {
		cur := o.Currency
		if cur == "" {
			cur = priceCurrency
		}
		out.Price = &carrier.Money{Minor: int64(math.Round(*o.Rate * math.Pow10(carrier.CurrencyDigits(cur)))), Currency: cur}
	}
	return out
}

func (c *Carrier) wait(ctx context.Context) error {
	t := time.NewTimer(c.cfg.PollInterval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// shipment reads one shipment.
func (c *Carrier) shipment(ctx context.Context, s carrier.Settings, id string) (shipmentAnswer, error) {
	res, err := c.do(ctx, s, http.MethodGet, "/v1/shipments/"+url.PathEscape(id), nil)
	if err != nil {
		return shipmentAnswer{}, err
	}
	if res.Status != http.StatusOK {
		return shipmentAnswer{}, apiError(res, "")
	}
	var sh shipmentAnswer
	return sh, decode(res, &sh)
}

// buildShipment checks what ShipX would refuse for sure and writes req as
// a ShipX shipment.
func buildShipment(s carrier.Settings, req carrier.ShipmentRequest) (*shipmentRequest, error) {
	service := product(s, req)
	var problems carrier.Rejections
	if !slices.Contains(productCodes, service) {
		problems = append(problems, &carrier.Rejection{Field: "product_type",
			Message: fmt.Sprintf("%q is not an InPost ShipX service (known: %s)", service, strings.Join(productCodes, ", "))})
	}
	target := targetPoint(s, req, service)
	if lockerServices[service] {
		if target == "" {
			problems = append(problems, carrier.Reject(carrier.PickupPointField,
				"%s delivers to a parcel locker: name its id (e.g. KRA010) or set the channel's %s", service, carrier.DefaultPickupPointSetting))
		}
		if len(req.Parcels) > maxLockerParcels {
			problems = append(problems, &carrier.Rejection{Field: "parcels",
				Message: fmt.Sprintf("%s takes exactly one parcel per shipment, got %d", service, len(req.Parcels))})
		}
	}
	if !lockerServices[service] && strings.TrimSpace(req.PickupPoint) != "" {
		problems = append(problems, carrier.Reject(carrier.PickupPointField,
			"%s delivers to the address and takes no pickup point (ShipX reads target_point for locker services only)", service))
	}
	if len(req.Parcels) == 0 || len(req.Parcels) > maxCourierParcels {
		problems = append(problems, &carrier.Rejection{Field: "parcels",
			Message: fmt.Sprintf("InPost takes 1 to %d parcels per shipment, got %d", maxCourierParcels, len(req.Parcels))})
	}
	switch len(problems) {
	case 0:
	case 1:
		return nil, problems[0]
	default:
		return nil, problems
	}

	out := &shipmentRequest{
		Receiver:  toParty(req.Recipient, req.Destination),
		Service:   service,
		Reference: req.Reference,
	}
	sender := toParty(req.Sender, req.Origin)
	out.Sender = &sender
	// Every parcel goes out as dimensions in mm and weight in kg, for locker
	// services too, never as a template (small/medium/large): assumed to be
	// accepted by every service [U].
	for _, p := range req.Parcels {
		l, w, h := p.DimensionsCM()
		out.Parcels = append(out.Parcels, parcel{
			Dimensions: dimensions{Length: mmOf(l), Width: mmOf(w), Height: mmOf(h), Unit: "mm"},
			Weight:     weight{Amount: math.Round(p.WeightKG()*1000) / 1000, Unit: "kg"},
		})
	}
	attrs := customAttributes{SendingMethod: strings.TrimSpace(s.String("sendingMethod"))}
	if lockerServices[service] {
		attrs.TargetPoint = target
	}
	if attrs != (customAttributes{}) {
		out.CustomAttributes = &attrs
	}
	if req.COD != nil {
		m := money{Amount: req.COD.Float(), Currency: req.COD.Currency}
		out.COD = &m
		if insuranceWithCOD[service] {
			ins := m
			out.Insurance = &ins
		}
	}
	return out, nil
}

// targetPoint is the parcel locker of a locker shipment: the one req names,
// else the channel's defaultPickupPoint (or its earlier name targetPoint).
// Courier services deliver to the address: ShipX documents target_point
// for locker services only [V], so they take none.
func targetPoint(s carrier.Settings, req carrier.ShipmentRequest, service string) string {
	if !lockerServices[service] {
		return ""
	}
	return s.PickupPoint(req.PickupPoint)
}

// mmOf converts centimetres to whole millimetres.
func mmOf(cm float64) float64 { return math.Round(cm * 10) }

func toParty(c carrier.Contact, a carrier.Address) party {
	building := a.HouseNumber
	if a.ApartmentNumber != "" {
		building += apartmentSeparator + a.ApartmentNumber
	}
	return party{
		CompanyName: c.CompanyName,
		FirstName:   c.FirstName,
		LastName:    c.LastName,
		Email:       c.Email,
		Phone:       phone(c.Phone),
		Address: address{
			Street:         a.StreetName,
			BuildingNumber: building,
			City:           a.CityName,
			PostCode:       a.PostalCode,
			CountryCode:    strings.ToUpper(a.CountryCode),
		},
	}
}

var nonDigits = regexp.MustCompile(`[\s\-().]`)

// phone writes a Polish number the way ShipX validates it, nine digits
// without the +48 prefix [U]; other numbers go out as given, without
// spaces, for ShipX to judge.
func phone(p string) string {
	p = nonDigits.ReplaceAllString(p, "")
	for _, prefix := range []string{"+48", "0048"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok && len(rest) == 9 {
			return rest
		}
	}
	return p
}

// CancelShipment deletes a shipment ShipX has not yet confirmed; ShipX's
// refusal (invalid_action) comes back as a Rejection with its message,
// except for a shipment ShipX names canceled already
// (details.shipment_status), which is carrier.ErrAlreadyCancelled.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	if err := checkSettings(s); err != nil {
		return err
	}
	res, err := c.do(ctx, s, http.MethodDelete, "/v1/shipments/"+url.PathEscape(ref.ProviderShipmentID), nil)
	if err != nil {
		return err
	}
	if res.Status == http.StatusNoContent || res.Status == http.StatusOK {
		return nil
	}
	if cancelledAlready(res) {
		return carrier.ErrAlreadyCancelled
	}
	return apiError(res, "")
}

// cancelledAlready reports whether res is ShipX refusing to cancel a
// shipment because it is canceled: {"error":"invalid_action",
// "details":{"action":"cancel","shipment_status":"canceled"}} [V: the
// invalid_action answer; the status as ShipX spells it].
func cancelledAlready(res *carrierhttp.Response) bool {
	var body struct {
		Error   string `json:"error"`
		Details struct {
			ShipmentStatus string `json:"shipment_status"`
		} `json:"details"`
	}
	if res.Status != http.StatusBadRequest || json.Unmarshal(res.Body, &body) != nil {
		return false
	}
	st := body.Details.ShipmentStatus
	return body.Error == "invalid_action" && (st == "canceled" || st == "cancelled")
}
