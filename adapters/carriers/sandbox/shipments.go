package sandbox

import (
	"context"
	"errors"
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
	key       string // the booking key shipd sent
	price     *carrier.Money
	labels    []labels.ParcelLabel
	cancelled bool
}

// CreateShipment books req: one S10 tracking number and one label per
// parcel, a price computed as the package comment says. The booking is kept
// (in the journal too, when there is one) and its id handed to
// req.Booking.Accept before the carrier answers; an attempt given that
// handle resumes the booking instead of making another (ADR 0041).
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if err := reachable(ctx, s); err != nil {
		return carrier.CreatedShipment{}, err
	}
	if req.Booking.Handle != "" {
		if sh, ok := c.find(req.Booking.Handle); ok {
			return c.answer(req.Booking.Handle, sh, s.LabelFormat(req.LabelFormat))
		}
		if c.config.Journal != "" {
			return carrier.CreatedShipment{}, unavailable("sandbox carrier has no booking %s to resume", req.Booking.Handle)
		}
		// Without a journal the sandbox forgot its bookings when its process
		// restarted; a carrier keeps them, so the booking is made again
		// under the id it had, as the carrier would answer for it.
	} else if err := c.trigger(ctx, req.Reference); err != nil {
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
	sh := &shipment{reference: req.Reference, key: req.Booking.Key}
	if !strings.HasPrefix(req.Reference, RefUnpriced) {
		p := price(product, req.Parcels, req.COD != nil)
		sh.price = &p
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
		if err := labels.Check(l); err != nil {
			return carrier.CreatedShipment{}, fmt.Errorf("sandbox: label of parcel %d: %w", i, err)
		}
		sh.labels = append(sh.labels, l)
	}
	id, err := c.keep(sh, req.Booking.Handle)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if req.Booking.Handle == "" {
		if err := req.Booking.Accept(ctx, id); err != nil {
			return carrier.CreatedShipment{}, acceptFailed(err)
		}
	}
	out, err := c.answer(id, sh, format)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if req.Booking.Handle == "" && (strings.HasPrefix(req.Reference, RefNoTrack) || c.takeSwitch(&c.dropNumber)) && len(out.TrackingNumbers) > 0 {
		// The answer loses its last tracking number, as a carrier's
		// malformed answer would; a resumed booking reads it whole.
		out.TrackingNumbers = out.TrackingNumbers[:len(out.TrackingNumbers)-1]
	}
	return out, nil
}

// keep stores a new booking under id, else a fresh id, in memory and in the
// journal.
func (c *Carrier) keep(sh *shipment, id string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" {
		id = newShipmentID()
		for c.shipments[id] != nil {
			id = newShipmentID()
		}
	}
	if err := c.journal(journalEntry{Booking: &bookingRecord{Key: sh.key, ProviderShipmentID: id,
		Reference: sh.reference, Price: sh.price, Labels: sh.labels}}); err != nil {
		return "", err
	}
	c.remember(id, sh)
	return id, nil
}

// remember keeps sh under id and forgets the oldest bookings beyond the
// configured number, their cancels with them. Under c.mu.
func (c *Carrier) remember(id string, sh *shipment) {
	if c.shipments == nil {
		c.shipments = map[string]*shipment{}
	}
	if _, known := c.shipments[id]; !known {
		c.kept = append(c.kept, id)
	}
	c.shipments[id] = sh
	limit := c.config.Remember
	if limit <= 0 {
		limit = DefaultRemember
	}
	for len(c.shipments) > limit {
		for _, l := range c.shipments[c.kept[0]].labels {
			delete(c.cancelled, l.TrackingNumber)
		}
		delete(c.shipments, c.kept[0])
		c.kept[0] = ""
		c.kept = c.kept[1:] // append's next growth copies the live part only
	}
}

// FindBooking answers the booking made under req's booking key, the
// newest when there are several: as a carrier that keeps the sender's
// reference with a shipment and can be asked for it (ADR 0041).
func (c *Carrier) FindBooking(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (string, bool, error) {
	if err := reachable(ctx, s); err != nil {
		return "", false, err
	}
	if req.Booking.Key == "" {
		return "", false, nil
	}
	if c.config.Journal != "" {
		entries, err := readJournal(c.config.Journal)
		if err != nil {
			return "", false, unavailable("%v", err)
		}
		found := ""
		for _, e := range entries {
			if e.Booking != nil && e.Booking.Key == req.Booking.Key {
				found = e.Booking.ProviderShipmentID
			}
		}
		return found, found != "", nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, sh := range c.shipments {
		if sh.key == req.Booking.Key {
			return id, true, nil
		}
	}
	return "", false, nil
}

// answer is the booking's answer: its id, tracking numbers and price, with
// its labels unless printing fails now (then shipd fetches them later).
func (c *Carrier) answer(id string, sh *shipment, format string) (carrier.CreatedShipment, error) {
	out := carrier.CreatedShipment{ProviderShipmentID: id, Price: sh.price}
	for _, l := range sh.labels {
		out.TrackingNumbers = append(out.TrackingNumbers, l.TrackingNumber)
	}
	if c.printingFails(id, sh.reference, false) {
		return out, nil
	}
	var err error
	out.Labels, err = c.render(id, sh, format)
	return out, err
}

// acceptFailed is the error of a booking whose acceptance shipd could not
// record: unavailable, so the booking is tried again.
func acceptFailed(err error) error {
	if _, refused := carrier.RefusalsOf(err); refused || errors.Is(err, carrier.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: recording the booking: %w", carrier.ErrUnavailable, err)
}

// trigger plays the failure a reference asks for, if any.
func (c *Carrier) trigger(ctx context.Context, ref string) error {
	switch {
	case strings.HasPrefix(ref, RefHang):
		<-ctx.Done()
		return unavailable("sandbox carrier did not answer: %v", ctx.Err())
	case strings.HasPrefix(ref, RefDown):
		return unavailable("sandbox carrier answered 503 Service Unavailable")
	case failures(ref, RefTransient) > 0:
		n := failures(ref, RefTransient)
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

// failures is n of a reference prefix + "n-..." (TRANSIENT-3-...), 0 for
// any other.
func failures(ref, prefix string) int {
	rest, ok := strings.CutPrefix(ref, prefix)
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
	sh, ok := c.find(ref.ProviderShipmentID)
	switch {
	case !ok:
		return nil, unknownShipment(ref)
	case sh.cancelled:
		return nil, carrier.Reject("", "shipment %s is cancelled; its labels are void", ref.ProviderShipmentID)
	case c.printingFails(ref.ProviderShipmentID, sh.reference, true):
		return nil, unavailable("sandbox carrier's label service answered 503 Service Unavailable")
	}
	return c.render(ref.ProviderShipmentID, sh, format)
}

// find is the booking id, from the journal when there is one (what every
// process sharing it did), else from memory; the copy it returns is the
// caller's.
func (c *Carrier) find(id string) (*shipment, bool) {
	if sh, ok := c.recall(id); ok {
		return sh, true
	}
	c.mu.Lock()
	sh, ok := c.shipments[id]
	if ok {
		cp := *sh
		c.mu.Unlock()
		return &cp, true
	}
	c.mu.Unlock()
	return nil, false
}

// render draws the booking's labels in format; the first n answers of a
// LABELBAD-n- reference are corrupt, as a carrier's broken file would be.
func (c *Carrier) render(id string, sh *shipment, format string) ([]carrier.Label, error) {
	corrupt := c.countTry(id, "bad", sh.reference, RefLabelBad)
	out := make([]carrier.Label, 0, len(sh.labels))
	for i, l := range sh.labels {
		data, err := labels.Render(format, l)
		if err != nil {
			return nil, fmt.Errorf("sandbox: label of parcel %d: %w", i, err)
		}
		if corrupt {
			data = []byte("\n") // an empty file, in any format: it cannot be merged
		}
		out = append(out, carrier.Label{Format: format, Data: data})
	}
	return out, nil
}

// printingFails reports whether the labels of booking id cannot be printed
// now: within Config.FailLabelsUntil, or for a LABELFAIL-n- reference at
// booking and the first n label fetches (fetch counts them).
func (c *Carrier) printingFails(id, reference string, fetch bool) bool {
	if until := c.config.FailLabelsUntil; !until.IsZero() && time.Now().Before(until) {
		return true
	}
	if c.takeSwitch(&c.failLabels) {
		return true
	}
	if !fetch {
		return failures(reference, RefLabelFail) > 0
	}
	return c.countTry(id, "fail", reference, RefLabelFail)
}

// countTry counts a try of kind on booking id and reports whether it is
// among the first n of a reference prefix-n-...
func (c *Carrier) countTry(id, kind, reference, prefix string) bool {
	n := failures(reference, prefix)
	if n == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.labelTries == nil {
		c.labelTries = map[string]int{}
	}
	c.labelTries[kind+" "+id]++
	return c.labelTries[kind+" "+id] <= n
}

// CancelShipment cancels a booked shipment; cancelling it again is fine.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	if err := reachable(ctx, s); err != nil {
		return err
	}
	sh, ok := c.find(ref.ProviderShipmentID)
	switch {
	case !ok:
		return unknownShipment(ref)
	case strings.HasPrefix(sh.reference, RefNoCancel):
		return carrier.Reject("", "the shipment has already been picked up and can no longer be cancelled")
	case sh.cancelled:
		return carrier.ErrAlreadyCancelled
	}
	if err := c.journal(journalEntry{Cancelled: ref.ProviderShipmentID}); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelled == nil {
		c.cancelled = map[string]time.Time{}
	}
	for _, l := range sh.labels {
		c.cancelled[l.TrackingNumber] = c.now()
	}
	sh.cancelled = true
	c.remember(ref.ProviderShipmentID, sh)
	return nil
}

func unknownShipment(ref carrier.ShipmentRef) *carrier.Rejection {
	return carrier.Reject("", "unknown shipment %q: the sandbox carrier has no booking with that id (it keeps its newest bookings in memory until the service restarts)", ref.ProviderShipmentID)
}

// FailNextLabels makes the next n label answers fail, the booking's own
// (answered without labels) and Labels' (unavailable): the switch of
// shipd's booking tests for a label service that fails for a while.
func (c *Carrier) FailNextLabels(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failLabels = n
}

// DropNextTrackingNumber makes the next booking's answer lack its last
// tracking number, as NO-TRACKING-NUMBER references do.
func (c *Carrier) DropNextTrackingNumber() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropNumber = 1
}

// takeSwitch uses up one of a switch's remaining turns, reporting whether
// there was one.
func (c *Carrier) takeSwitch(turns *int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *turns <= 0 {
		return false
	}
	*turns--
	return true
}
