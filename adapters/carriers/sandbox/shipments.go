package sandbox

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// Limits of the sandbox carrier.
const (
	MaxParcels     = 20
	MaxWeightKG    = 31.5
	UnservedPostal = "99999"
	carrierName    = "Sandbox carrier"
	priceCurrency  = "EUR"
)

// Products the sandbox carrier books, and what each costs per parcel in
// euro cents before weight.
var products = map[string]int64{"STANDARD": 490, "EXPRESS": 990, "POINT": 390, "STANDARD_COD": 490, "EXPRESS_COD": 990, "POINT_COD": 390}

// shipment is what the carrier keeps of a booking: enough to print its
// labels again and to refuse cancelling what it must not.
type shipment struct {
	reference string
	labels    []labels.ParcelLabel
	cancelled bool
}

// CreateShipment books req: one S10 tracking number and one label per
// parcel, a price computed as the package comment says.
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if err := reachable(ctx, s); err != nil {
		return carrier.CreatedShipment{}, err
	}
	if err := c.trigger(ctx, req.Reference); err != nil {
		return carrier.CreatedShipment{}, err
	}
	product := req.ProductType
	if product == "" {
		product = "STANDARD"
	}
	format := s.LabelFormat(req.LabelFormat)
	if err := carrier.RejectionOf(check(s, req, product, format)); err != nil {
		return carrier.CreatedShipment{}, err
	}

	country := originCountry(req.Origin.CountryCode)
	date := req.ShippingDate
	if date.IsZero() {
		date = time.Now()
	}
	sh := &shipment{reference: req.Reference}
	out := carrier.CreatedShipment{}
	if !strings.HasPrefix(req.Reference, RefUnpriced) {
		p := price(product, req.Parcels, req.COD != nil)
		out.Price = &p
	}
	for i, p := range req.Parcels {
		l := labels.ParcelLabel{
			Carrier:        carrierName,
			Product:        product,
			TrackingNumber: trackingNumber(country, journeyOfReference(req.Reference), req.COD != nil),
			Sender:         party(req.Sender, req.Origin),
			Recipient:      party(req.Recipient, req.Destination),
			ParcelIndex:    i + 1,
			ParcelCount:    len(req.Parcels),
			Weight:         fmt.Sprintf("%.2f KG", p.WeightKG()),
			Reference:      req.Reference,
			ShippingDate:   date.Format(time.DateOnly),
		}
		if req.COD != nil {
			l.COD = req.COD.String()
		}
		data, err := labels.Render(format, l)
		if err != nil {
			return carrier.CreatedShipment{}, fmt.Errorf("sandbox: label of parcel %d: %w", i, err)
		}
		sh.labels = append(sh.labels, l)
		out.TrackingNumbers = append(out.TrackingNumbers, l.TrackingNumber)
		out.Labels = append(out.Labels, carrier.Label{Format: format, Data: data})
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shipments == nil {
		c.shipments = map[string]*shipment{}
	}
	for {
		out.ProviderShipmentID = newShipmentID()
		if _, taken := c.shipments[out.ProviderShipmentID]; !taken {
			break
		}
	}
	c.shipments[out.ProviderShipmentID] = sh
	return out, nil
}

// trigger plays the failure a reference asks for, if any.
func (c *Carrier) trigger(ctx context.Context, ref string) error {
	switch {
	case strings.HasPrefix(ref, RefHang):
		<-ctx.Done()
		return unavailable("sandbox carrier did not answer: %v", ctx.Err())
	case strings.HasPrefix(ref, RefDown):
		return unavailable("sandbox carrier answered 503 Service Unavailable")
	case transientFailures(ref) > 0:
		n := transientFailures(ref)
		c.mu.Lock()
		if c.attempts == nil {
			c.attempts = map[string]int{}
		}
		c.attempts[ref]++
		attempt := c.attempts[ref]
		c.mu.Unlock()
		if attempt <= n {
			return unavailable("sandbox carrier answered 503 Service Unavailable (failing attempt %d of %d)", attempt, n)
		}
	}
	return nil
}

// transientFailures is n of a "TRANSIENT-n-..." reference, 0 for any other.
func transientFailures(ref string) int {
	rest, ok := strings.CutPrefix(ref, RefTransient)
	if !ok || len(rest) < 2 || rest[0] < '1' || rest[0] > '9' || rest[1] != '-' {
		return 0
	}
	return int(rest[0] - '0')
}

// check lists everything the carrier refuses in req.
func check(s carrier.Settings, req carrier.ShipmentRequest, product, format string) []*carrier.Rejection {
	var problems []*carrier.Rejection
	if _, ok := products[product]; !ok {
		problems = append(problems, carrier.Reject("product_type", "the sandbox carrier has no product %s (it has STANDARD, EXPRESS, POINT and their _COD variants)", product))
	} else if cod := strings.HasSuffix(product, "_COD"); req.COD != nil && !cod {
		problems = append(problems, carrier.Reject("product_type", "product %s does not carry cash on delivery; use %s_COD", product, product))
	} else if req.COD == nil && cod {
		problems = append(problems, carrier.Reject("product_type", "product %s carries cash on delivery but the shipment has none; use %s", product, strings.TrimSuffix(product, "_COD")))
	}
	if problem := pickupPoint(product, s.PickupPoint(req.PickupPoint)); problem != nil {
		problems = append(problems, problem)
	}
	if !slices.Contains(labels.Formats, format) {
		problems = append(problems, carrier.Reject("label_format", "the sandbox carrier prints labels as %s, not %q", strings.Join(labels.Formats, ", "), format))
	}
	if strings.ReplaceAll(req.Destination.PostalCode, " ", "") == UnservedPostal {
		problems = append(problems, carrier.Reject("destination_address.postal_code", "the sandbox carrier does not serve postal code %s", UnservedPostal))
	}
	switch n := len(req.Parcels); {
	case n == 0:
		problems = append(problems, carrier.Reject("parcels", "the sandbox carrier needs at least one parcel"))
	case n > MaxParcels:
		problems = append(problems, carrier.Reject("parcels", "%d parcels exceed the limit of %d parcels per shipment of the sandbox carrier", n, MaxParcels))
	}
	for i, p := range req.Parcels {
		field := "parcels." + strconv.Itoa(i) + ".weight_amount"
		switch kg := p.WeightKG(); {
		case !(kg > 0):
			problems = append(problems, carrier.Reject(field, "must be more than 0 for the sandbox carrier"))
		case kg > MaxWeightKG:
			problems = append(problems, carrier.Reject(field, "%.2f kg exceeds the 31.5 kg limit of the sandbox carrier", kg))
		}
	}
	return problems
}

// sandboxPoint is the form of the sandbox's pickup points: SBP and one to
// six digits (SBP1001).
var sandboxPoint = regexp.MustCompile(`^SBP[0-9]{1,6}$`)

// pickupPoint refuses a point POINT does not know, a POINT shipment without
// one and a point on a product that delivers to the address, as a carrier
// with pickup points does.
func pickupPoint(product, point string) *carrier.Rejection {
	toPoint := strings.TrimSuffix(product, "_COD") == "POINT"
	switch {
	case toPoint && point == "":
		return carrier.Reject(carrier.PickupPointField, "product %s delivers only to a pickup point; name one (e.g. SBP1001)", product)
	case !toPoint && point != "":
		return carrier.Reject(carrier.PickupPointField, "product %s delivers to the address and takes no pickup point", product)
	case toPoint && !sandboxPoint.MatchString(point):
		return carrier.Reject(carrier.PickupPointField, "the sandbox carrier has no pickup point %q (its points are SBP and 1 to 6 digits)", point)
	}
	return nil
}

// price is the sandbox tariff in euro cents.
func price(product string, parcels []carrier.Parcel, cod bool) carrier.Money {
	var total int64
	for _, p := range parcels {
		total += products[product] + 80*startedKG(billableKG(p))
	}
	if cod {
		total += 150
	}
	return carrier.Money{Minor: total, Currency: priceCurrency}
}

// billableKG is the greater of the actual and the volumetric weight.
func billableKG(p carrier.Parcel) float64 {
	l, w, h := p.DimensionsCM()
	return max(p.WeightKG(), l*w*h/5000)
}

// startedKG counts started kilograms; a hair over a whole kilogram from
// float arithmetic (3 × 0.1) does not start the next one.
func startedKG(kg float64) int64 {
	return int64(math.Ceil(kg - 1e-9))
}

// labelFormat is the requested format, else the channel's default, else pdf.
func party(c carrier.Contact, a carrier.Address) labels.Party {
	house := a.HouseNumber
	if a.ApartmentNumber != "" {
		house += "/" + a.ApartmentNumber
	}
	return labels.Party{
		Name:        strings.TrimSpace(c.FirstName + " " + c.LastName),
		Company:     c.CompanyName,
		Street:      a.StreetName,
		HouseNumber: house,
		PostalCode:  a.PostalCode,
		City:        a.CityName,
		CountryCode: strings.ToUpper(a.CountryCode),
		Phone:       c.Phone,
	}
}

// Labels prints a booked shipment's labels again, in any format.
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	if err := reachable(ctx, s); err != nil {
		return nil, err
	}
	format = s.LabelFormat(format)
	if !slices.Contains(labels.Formats, format) {
		return nil, carrier.Reject("label_format", "the sandbox carrier prints labels as %s, not %q", strings.Join(labels.Formats, ", "), format)
	}
	c.mu.Lock()
	sh, ok := c.shipments[ref.ProviderShipmentID]
	var parcels []labels.ParcelLabel
	var cancelled bool
	if ok {
		parcels, cancelled = sh.labels, sh.cancelled
	}
	c.mu.Unlock()
	switch {
	case !ok:
		return nil, unknownShipment(ref)
	case cancelled:
		return nil, carrier.Reject("", "shipment %s is cancelled; its labels are void", ref.ProviderShipmentID)
	}
	out := make([]carrier.Label, 0, len(parcels))
	for i, l := range parcels {
		data, err := labels.Render(format, l)
		if err != nil {
			return nil, fmt.Errorf("sandbox: label of parcel %d: %w", i, err)
		}
		out = append(out, carrier.Label{Format: format, Data: data})
	}
	return out, nil
}

// CancelShipment cancels a booked shipment; cancelling it again is fine.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	if err := reachable(ctx, s); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sh, ok := c.shipments[ref.ProviderShipmentID]
	switch {
	case !ok:
		return unknownShipment(ref)
	case strings.HasPrefix(sh.reference, RefNoCancel):
		return carrier.Reject("", "the shipment has already been picked up and can no longer be cancelled")
	}
	if !sh.cancelled {
		if c.cancelled == nil {
			c.cancelled = map[string]time.Time{}
		}
		for _, l := range sh.labels {
			c.cancelled[l.TrackingNumber] = c.now()
		}
	}
	sh.cancelled = true
	return nil
}

func unknownShipment(ref carrier.ShipmentRef) *carrier.Rejection {
	return carrier.Reject("", "unknown shipment %q: the sandbox carrier has no booking with that id (bookings live in memory until the service restarts)", ref.ProviderShipmentID)
}
