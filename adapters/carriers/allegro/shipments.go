package allegro

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// The create command, field names as Allegro's file has them [V:
// ShipmentCreateCommandDto, ShipmentCreateRequestDto].
type (
	createCommand struct {
		CommandID string        `json:"commandId"`
		Input     shipmentInput `json:"input"`
	}
	shipmentInput struct {
		// DeliveryMethodID is deprecated in the file in favour of
		// fields its request schema does not have yet; it is the one way
		// the request names the method [V].
		DeliveryMethodID string          `json:"deliveryMethodId"`
		CredentialsID    string          `json:"credentialsId,omitempty"`
		Sender           address         `json:"sender"`
		Receiver         address         `json:"receiver"`
		ReferenceNumber  string          `json:"referenceNumber,omitempty"`
		Packages         []packageInput  `json:"packages"`
		CashOnDelivery   *cashOnDelivery `json:"cashOnDelivery,omitempty"`
		LabelFormat      string          `json:"labelFormat"`
	}
	address struct {
		Name        string `json:"name,omitempty"`
		Company     string `json:"company,omitempty"`
		Street      string `json:"street"`
		PostalCode  string `json:"postalCode"`
		City        string `json:"city"`
		CountryCode string `json:"countryCode"`
		Email       string `json:"email"`
		Phone       string `json:"phone"`
		Point       string `json:"point,omitempty"`
	}
	packageInput struct {
		Type   string  `json:"type"`
		Length measure `json:"length"`
		Width  measure `json:"width"`
		Height measure `json:"height"`
		Weight measure `json:"weight"`
	}
	// measure is DimensionValue or WeightValue: a number and its unit.
	measure struct {
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	}
	cashOnDelivery struct {
		Amount    string `json:"amount"`
		Currency  string `json:"currency"`
		OwnerName string `json:"ownerName,omitempty"`
		IBAN      string `json:"iban,omitempty"`
	}
)

// shipmentDetails is what the adapter reads of ShipmentDto [V].
type shipmentDetails struct {
	ID string `json:"id"`
	// Sender is who the shipment comes from: the contact of a pickup
	// proposal's address (dispatch.go).
	Sender   address `json:"sender"`
	Packages []struct {
		Waybill string `json:"waybill"`
	} `json:"packages"`
	LabelFormat  string  `json:"labelFormat"`
	CanceledDate *string `json:"canceledDate"`
}

// The only units Allegro takes [V: DimensionValue, WeightValue].
const (
	unitCM = "CENTIMETER"
	unitKG = "KILOGRAMS"
)

// booking is a request checked and resolved against the channel's settings.
type booking struct {
	product       string
	methodSetting string // the setting naming the product's delivery method
	input         shipmentInput
}

// CreateShipment books req as one Allegro shipment of len(req.Parcels)
// packages: the create command is sent (or, on a retry, resumed), polled
// until done, and the shipment read for its waybills.
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	b, err := bookingOf(s, req)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	commandID := req.Booking.Handle
	var wait time.Duration
	if commandID == "" {
		commandID = createCommandID(req.Booking.Key)
		first, err := c.submit(ctx, s, "create-commands", commandID, createCommand{CommandID: commandID, Input: b.input}, b.methodSetting)
		if err != nil {
			return carrier.CreatedShipment{}, err
		}
		if err := req.Booking.Accept(ctx, commandID); err != nil {
			return carrier.CreatedShipment{}, acceptFailed("create command", commandID, err)
		}
		wait = first
	}
	st, err := c.await(ctx, s, commandPath("create-commands", commandID), wait)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if st.Status == commandError {
		if r := rejectionsOf(st.Errors, b.methodSetting); r != nil {
			return carrier.CreatedShipment{}, r
		}
		return carrier.CreatedShipment{}, carrier.Reject("", "Allegro could not create the shipment (command %s)", commandID)
	}
	if st.ShipmentID == "" {
		return carrier.CreatedShipment{}, errors.New("allegro: the command succeeded without a shipment id")
	}
	// Allegro holds the shipment from here on: whatever cannot be read of
	// it now does not undo that. The answer names the shipment, and
	// waybills that cannot be read yet (the shipment unreadable, a package
	// numbered a little later) are left out or empty, so the booking is
	// recorded and its label step resumes the command to read them again
	// (ADR 0041; AssumedWaybillsInOrder).
	out := carrier.CreatedShipment{ProviderShipmentID: st.ShipmentID}
	sh, err := c.shipment(ctx, s, st.ShipmentID)
	if err != nil {
		return out, nil
	}
	for _, p := range sh.Packages {
		out.TrackingNumbers = append(out.TrackingNumbers, p.Waybill)
	}
	return out, nil
}

// bookingOf checks req against what Allegro is known to refuse and builds
// the command's input; every refusal here comes before any call.
func bookingOf(s carrier.Settings, req carrier.ShipmentRequest) (booking, error) {
	if n := len(req.Parcels); n == 0 || n > MaxParcels {
		return booking{}, carrier.Reject("parcels", "Allegro takes 1 to %d packages per shipment, got %d", MaxParcels, n)
	}
	format := s.LabelFormat(req.LabelFormat)
	allegroFormat, ok := labelFormats[format]
	if !ok {
		return booking{}, carrier.Reject("label_format", "Allegro prints pdf and zpl labels, not %q", format)
	}
	b := booking{product: setting(s, "productType", ProductCourier)}
	if req.ProductType != "" {
		b.product = req.ProductType
	}
	switch b.product {
	case ProductCourier:
		b.methodSetting = settingDeliveryMethod
	case ProductPickupPoint:
		b.methodSetting = settingPointDeliveryMethod
	default:
		return booking{}, carrier.Reject("product_type", "Allegro's products are %s, not %q", strings.Join(productCodes(), ", "), b.product)
	}
	method := setting(s, b.methodSetting, "")
	if method == "" {
		return booking{}, carrier.Reject(b.methodSetting, "names no Allegro delivery method for product %s: set the method's id as the account lists it", b.product)
	}
	receiver := addressOf(req.Recipient, req.Destination)
	switch point := s.PickupPoint(req.PickupPoint); {
	case b.product == ProductPickupPoint && point == "":
		return booking{}, carrier.Reject(carrier.PickupPointField, "product %s delivers to a pickup point: name Allegro's point id", b.product)
	case b.product == ProductPickupPoint:
		receiver.Point = point
	case strings.TrimSpace(req.PickupPoint) != "":
		return booking{}, carrier.Reject(carrier.PickupPointField, "product %s delivers to the address and takes no pickup point", b.product)
	}
	sender := addressOf(req.Sender, req.Origin)
	sender.Point = setting(s, settingSenderPoint, "")
	b.input = shipmentInput{
		DeliveryMethodID: method,
		CredentialsID:    setting(s, settingCredentialsID, ""),
		Sender:           sender,
		Receiver:         receiver,
		ReferenceNumber:  req.Reference,
		LabelFormat:      allegroFormat,
	}
	for _, p := range req.Parcels {
		b.input.Packages = append(b.input.Packages, packageOf(p))
	}
	if req.COD != nil {
		cod, err := codOf(s, *req.COD)
		if err != nil {
			return booking{}, err
		}
		b.input.CashOnDelivery = cod
	}
	return b, nil
}

// codOf is shipd's cash on delivery as Allegro's: PLN or CZK, a positive
// amount with two decimals [V: CashOnDeliveryDto's pattern].
func codOf(s carrier.Settings, m carrier.Money) (*cashOnDelivery, error) {
	if !codCurrencies[m.Currency] {
		return nil, carrier.Reject("cash_on_delivery.currency", "Allegro collects cash on delivery in PLN or CZK, not %q", m.Currency)
	}
	if m.Minor <= 0 {
		return nil, carrier.Reject("cash_on_delivery.amount", "must be more than 0")
	}
	return &cashOnDelivery{
		Amount:    fmt.Sprintf("%d.%02d", m.Minor/100, m.Minor%100),
		Currency:  m.Currency,
		OwnerName: setting(s, settingCODOwner, ""),
		IBAN:      setting(s, settingCODIban, ""),
	}, nil
}

// addressOf is a contact at an address as Allegro's AddressDto: the person
// as name, the company as company, "street house/apartment" as street.
func addressOf(c carrier.Contact, a carrier.Address) address {
	no := a.HouseNumber
	if a.ApartmentNumber != "" {
		no += "/" + a.ApartmentNumber
	}
	return address{
		Name:        strings.TrimSpace(c.FirstName + " " + c.LastName),
		Company:     strings.TrimSpace(c.CompanyName),
		Street:      strings.TrimSpace(a.StreetName + " " + no),
		PostalCode:  strings.TrimSpace(a.PostalCode),
		City:        a.CityName,
		CountryCode: strings.ToUpper(a.CountryCode),
		Email:       c.Email,
		Phone:       c.Phone,
	}
}

// packageTypes maps shipd's parcel types to Allegro's [V: PackageTypeDto].
var packageTypes = map[string]string{"package": "PACKAGE", "envelope": "DOX", "pallet": "PALLET"}

func packageOf(p carrier.Parcel) packageInput {
	typ, ok := packageTypes[strings.ToLower(p.Type)]
	if !ok {
		typ = "PACKAGE"
	}
	l, w, h := p.DimensionsCM()
	return packageInput{
		Type:   typ,
		Length: measure{round(l, 1), unitCM},
		Width:  measure{round(w, 1), unitCM},
		Height: measure{round(h, 1), unitCM},
		Weight: measure{round(p.WeightKG(), 3), unitKG},
	}
}

func round(v float64, digits int) float64 {
	f := math.Pow10(digits)
	return math.Round(v*f) / f
}

// shipment reads a created shipment.
func (c *Carrier) shipment(ctx context.Context, s carrier.Settings, id string) (shipmentDetails, error) {
	var sh shipmentDetails
	if id == "" {
		return sh, errors.New("allegro: the command succeeded without a shipment id")
	}
	path := shipmentsBase + "/shipments/" + url.PathEscape(id)
	res, err := c.call(ctx, s, request{method: http.MethodGet, url: c.apiHost(s) + path})
	if err != nil {
		return sh, err
	}
	if res.Status != http.StatusOK {
		return sh, answerError("GET "+path, res.Status, res.Body, "")
	}
	if err := json.Unmarshal(res.Body, &sh); err != nil {
		return sh, fmt.Errorf("allegro: GET %s: unreadable answer: %w", path, err)
	}
	return sh, nil
}

// CancelShipment sends a cancel command for the shipment (or resumes the
// one an earlier attempt sent) and waits for its outcome; Allegro refusing
// is a Rejection with its reasons, unless the shipment is cancelled already
// (its canceledDate is set [V]: cancelled by an earlier command, or in
// Allegro's own panel), which is carrier.ErrAlreadyCancelled.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	err := c.cancel(ctx, s, ref)
	if !isRejection(err) {
		return err
	}
	if sh, readErr := c.shipment(ctx, s, ref.ProviderShipmentID); readErr == nil && sh.CanceledDate != nil && *sh.CanceledDate != "" {
		return carrier.ErrAlreadyCancelled
	}
	return err
}

func isRejection(err error) bool {
	var one *carrier.Rejection
	var many carrier.Rejections
	return errors.As(err, &one) || errors.As(err, &many)
}

// cancel sends (or resumes) the cancel command and waits for its outcome.
func (c *Carrier) cancel(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	id := ref.ProviderShipmentID
	if id == "" {
		return carrier.Reject("", "the shipment has no Allegro shipment id to cancel")
	}
	commandID := cancelCommandID(id)
	body := struct {
		CommandID string `json:"commandId"`
		Input     struct {
			ShipmentID string `json:"shipmentId"`
		} `json:"input"`
	}{CommandID: commandID}
	body.Input.ShipmentID = id
	wait, err := c.submit(ctx, s, "cancel-commands", commandID, body, "")
	if err != nil {
		return err
	}
	st, err := c.await(ctx, s, commandPath("cancel-commands", commandID), wait)
	if err != nil {
		return err
	}
	if st.Status == commandError {
		if r := rejectionsOf(st.Errors, ""); r != nil {
			return r
		}
		return carrier.Reject("", "Allegro refused to cancel shipment %s", id)
	}
	return nil
}
