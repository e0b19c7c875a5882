package packeta

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// packetAttributes is the WSDL's PacketAttributes as the adapter sends it
// [V]: an xsd:all, so the order of the elements does not matter; every value
// is text.
type packetAttributes struct {
	Number      string `xml:"number"`
	Name        string `xml:"name"`
	Surname     string `xml:"surname"`
	Company     string `xml:"company,omitempty"`
	Email       string `xml:"email,omitempty"`
	Phone       string `xml:"phone,omitempty"`
	AddressID   string `xml:"addressId"`
	COD         string `xml:"cod,omitempty"`
	Currency    string `xml:"currency,omitempty"`
	Value       string `xml:"value"`
	Weight      string `xml:"weight"`
	Eshop       string `xml:"eshop,omitempty"`
	Street      string `xml:"street,omitempty"`
	HouseNumber string `xml:"houseNumber,omitempty"`
	City        string `xml:"city,omitempty"`
	Zip         string `xml:"zip,omitempty"`
	Size        *size  `xml:"size,omitempty"`
}

// size is the WSDL's Size, in millimetres [U].
type size struct {
	Length int `xml:"length"`
	Width  int `xml:"width"`
	Height int `xml:"height"`
}

// packetIDDetail is createPacket's result [V].
type packetIDDetail struct {
	ID          string `xml:"id"`
	Barcode     string `xml:"barcode"`
	BarcodeText string `xml:"barcodeText"`
}

// packet is one created packet: its id (what the API's calls take) and its
// barcode (the tracking number).
type packet struct{ id, barcode string }

// CreateShipment books one packet per parcel, in parcel order, resuming
// after the packets req.Booking.Handle records (see the package doc).
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if err := checkPassword(s); err != nil {
		return carrier.CreatedShipment{}, err
	}
	base, err := c.base(s)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	product := productOf(s, req)
	attrs, err := buildPackets(s, req, product)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	done, err := parseHandle(req.Booking.Handle)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	if len(done) > len(attrs) {
		return carrier.CreatedShipment{}, fmt.Errorf("packeta: the booking's handle records %d packets for %d parcels", len(done), len(attrs))
	}
	for i := len(done); i < len(attrs); i++ {
		res, err := c.call(ctx, base, createPacket{APIPassword: s.String(settingPassword), Attributes: attrs[i]})
		if err == nil {
			var p packetIDDetail
			if err = res.decode(&p); err == nil && (p.ID == "" || p.Barcode == "") {
				err = errors.New("no id or barcode")
			}
			if err != nil {
				// Packeta says ok but the packet cannot be read: it may
				// exist, so this is not the user's fault; retry resumes.
				return carrier.CreatedShipment{}, carrierhttp.Unavailable("packeta createPacket: reading the created packet: %v", err)
			}
			made := packet{id: p.ID, barcode: p.Barcode}
			if err := req.Booking.Accept(ctx, formatHandle(append(done, made))); err != nil {
				// Not recorded: the next attempt would make it again, so
				// it goes; the ones recorded before stay for that attempt.
				return carrier.CreatedShipment{}, c.cancelMade(ctx, base, s, []packet{made}, acceptError(err))
			}
			done = append(done, made)
			continue
		}
		if errors.Is(err, carrier.ErrUnavailable) {
			// No answer: the packets made so far are recorded and the
			// retry resumes after them.
			return carrier.CreatedShipment{}, err
		}
		// Packeta refused this parcel: the shipment must not half-exist.
		return carrier.CreatedShipment{}, c.rollBack(ctx, base, s, done, rejection(err, product, i))
	}
	out := carrier.CreatedShipment{ProviderShipmentID: formatHandle(done)}
	for _, p := range done {
		out.TrackingNumbers = append(out.TrackingNumbers, p.barcode)
	}
	return out, nil
}

// acceptError is the error of a failed Booking.Accept, wrapping
// ErrUnavailable unless it is a Rejection already.
func acceptError(err error) error {
	var r *carrier.Rejection
	var rs carrier.Rejections
	if errors.As(err, &r) || errors.As(err, &rs) || errors.Is(err, carrier.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: packeta: recording the booking: %v", carrier.ErrUnavailable, err)
}

// rollBack cancels the shipment's packets made so far and returns why the
// booking failed, saying which packets could not be cancelled (in the
// refusal's message, for the client, and as carrier.WithLeftover).
func (c *Carrier) rollBack(ctx context.Context, base string, s carrier.Settings, made []packet, why error) error {
	left, cancelErr := c.cancelEach(ctx, base, s, made)
	if len(left) == 0 {
		return why
	}
	var codes []string
	for _, p := range left {
		codes = append(codes, p.barcode)
	}
	note := fmt.Sprintf(" (packets %s of this shipment were created and could not be cancelled)", strings.Join(codes, ", "))
	var r *carrier.Rejection
	var rs carrier.Rejections
	switch {
	case errors.As(why, &r):
		why = &carrier.Rejection{Field: r.Field, Message: r.Message + note}
	case errors.As(why, &rs):
		out := append(carrier.Rejections{}, rs...)
		last := *out[len(out)-1]
		last.Message += note
		out[len(out)-1] = &last
		why = out
	default:
		why = fmt.Errorf("%w%s", why, note)
	}
	return leftover(ctx, why, left, cancelErr)
}

// cancelMade cancels, best effort, the packets a failed booking made and
// returns why it failed, with what Packeta still holds (see leftover).
func (c *Carrier) cancelMade(ctx context.Context, base string, s carrier.Settings, made []packet, why error) error {
	left, cancelErr := c.cancelEach(ctx, base, s, made)
	return leftover(ctx, why, left, cancelErr)
}

// cancelEach cancels packets, returning those Packeta still holds and why.
func (c *Carrier) cancelEach(ctx context.Context, base string, s carrier.Settings, packets []packet) (left []packet, err error) {
	var errs []error
	for _, p := range packets {
		if err := c.cancelPacket(ctx, base, s, p.id); err != nil {
			left = append(left, p)
			errs = append(errs, fmt.Errorf("packet %s: %w", p.barcode, err))
		}
	}
	return left, errors.Join(errs...)
}

// leftover is why a booking failed, with the packets a failed cancel left
// at Packeta logged at WARN and joined to it (carrier.WithLeftover), for the
// shipment's record: Packeta may charge for them.
func leftover(ctx context.Context, why error, left []packet, cancelErr error) error {
	if len(left) == 0 {
		return why
	}
	var ids, codes []string
	for _, p := range left {
		ids, codes = append(ids, p.id), append(codes, p.barcode)
	}
	slog.WarnContext(ctx, "packeta: a failed booking's packets could not be cancelled; Packeta still holds them",
		"packet_ids", ids, "barcodes", codes, "booking_err", why, "err", cancelErr)
	return carrier.WithLeftover(why, ids, cancelErr)
}

// productOf is the shipment's product, else the channel's, else pickup point.
func productOf(s carrier.Settings, req carrier.ShipmentRequest) string {
	switch {
	case req.ProductType != "":
		return req.ProductType
	case s.String(settingProductType) != "":
		return s.String(settingProductType)
	}
	return ProductPickupPoint
}

// buildPackets checks what Packeta would refuse for sure and writes one
// PacketAttributes per parcel.
func buildPackets(s carrier.Settings, req carrier.ShipmentRequest, product string) ([]packetAttributes, error) {
	if n := len(req.Parcels); n == 0 || n > MaxParcels {
		return nil, carrier.Reject("parcels", "Packeta takes 1 to %d parcels per shipment (one packet each), got %d", MaxParcels, n)
	}
	if f := s.LabelFormat(req.LabelFormat); !contains(labelFormats, f) {
		return nil, carrier.Reject("label_format", "Packeta prints pdf or zpl labels, not %s", f)
	}
	var problems []*carrier.Rejection
	reject := func(field, format string, args ...any) {
		problems = append(problems, carrier.Reject(field, format, args...))
	}
	base := packetAttributes{
		Name:    strings.TrimSpace(req.Recipient.FirstName),
		Surname: strings.TrimSpace(req.Recipient.LastName),
		Company: strings.TrimSpace(req.Recipient.CompanyName),
		Email:   strings.TrimSpace(req.Recipient.Email),
		Phone:   strings.TrimSpace(req.Recipient.Phone),
		Eshop:   strings.TrimSpace(s.String(settingEshop)),
	}
	if base.Surname == "" {
		reject("recipient_contact.last_name", "Packeta needs the recipient's surname")
	}
	if base.Name == "" {
		// name is required [V]; a company recipient without a person is
		// named by the company.
		base.Name = base.Company
	}
	if base.Name == "" {
		reject("recipient_contact.first_name", "Packeta needs the recipient's first name (or a company name)")
	}
	for _, l := range []lengthRule{
		{"recipient_contact.first_name", base.Name, recipientNameLength},
		{"recipient_contact.last_name", base.Surname, recipientNameLength},
		{"recipient_contact.company_name", base.Company, recipientNameLength},
		{"recipient_contact.phone_number", base.Phone, 20},
	} {
		if utf8.RuneCountInString(l.value) > l.max {
			reject(l.field, "Packeta takes at most %d characters", l.max)
		}
	}
	if base.Email == "" && base.Phone == "" {
		reject("recipient_contact.email_address", "Packeta needs the recipient's e-mail or phone to tell them about the packet")
	}
	switch product {
	case ProductPickupPoint:
		point := s.PickupPoint(req.PickupPoint)
		switch {
		case point == "":
			reject(carrier.PickupPointField, "name the Packeta pickup point the packet goes to")
		case !isDigits(point):
			reject(carrier.PickupPointField, "a Packeta pickup point id is a number, not %q", point)
		}
		base.AddressID = point
	case ProductHomeDelivery:
		if strings.TrimSpace(req.PickupPoint) != "" {
			reject(carrier.PickupPointField, "home delivery goes to the address and takes no pickup point")
		}
		id := strings.TrimSpace(s.String(settingHomeCarrier))
		if !isDigits(id) {
			reject(settingHomeCarrier, "home delivery needs the Packeta id of the destination's home-delivery carrier")
		}
		base.AddressID = id
		d := req.Destination
		base.Street, base.HouseNumber, base.City = strings.TrimSpace(d.StreetName), houseNumber(d), strings.TrimSpace(d.CityName)
		base.Zip = strings.TrimSpace(d.PostalCode)
		// street string64, houseNumber string16, city string32 [V].
		for _, l := range []lengthRule{
			{"destination_address.street_name", base.Street, 64},
			{"destination_address.house_number", base.HouseNumber, 16},
			{"destination_address.city_name", base.City, recipientNameLength},
			{"destination_address.postal_code", base.Zip, 255},
		} {
			switch {
			case l.value == "" && l.field != "destination_address.house_number":
				reject(l.field, "Packeta home delivery needs it")
			case utf8.RuneCountInString(l.value) > l.max:
				reject(l.field, "Packeta takes at most %d characters", l.max)
			}
		}
	default:
		reject("product_type", "Packeta products are %s and %s, not %q", ProductPickupPoint, ProductHomeDelivery, product)
	}
	if cod := req.COD; cod != nil {
		if cod.Minor <= 0 {
			reject("cash_on_delivery_amount", "must be positive")
		}
		base.COD = decimal(cod.Float(), carrier.CurrencyDigits(cod.Currency))
		base.Currency = cod.Currency
		base.Value = base.COD
	} else {
		v, ok := s[settingPacketValue].(float64)
		if !ok || v <= 0 {
			v = defaultPacketValue
		}
		base.Value = decimal(v, 2)
	}
	var out []packetAttributes
	for i, p := range req.Parcels {
		kg := p.WeightKG()
		switch {
		case !(kg > 0):
			reject(fmt.Sprintf("parcels.%d.weight_amount", i), "must be positive")
		case product == ProductPickupPoint && kg > maxPointWeightKG:
			reject(fmt.Sprintf("parcels.%d.weight_amount", i), "a packet to a Packeta pickup point weighs at most %g kg, this one %g kg", maxPointWeightKG, kg)
		}
		a := base
		a.Number = orderNumber(req, i)
		a.Weight = decimal(math.Max(kg, 0.001), 3)
		if l, w, h := p.DimensionsCM(); l > 0 && w > 0 && h > 0 {
			a.Size = &size{Length: mm(l), Width: mm(w), Height: mm(h)}
		}
		out = append(out, a)
	}
	if err := carrier.RejectionOf(problems); err != nil {
		return nil, err
	}
	return out, nil
}

// lengthRule is a field's value and the most characters Packeta takes [V:
// the WSDL's string types].
type lengthRule struct {
	field, value string
	max          int
}

// houseNumber is "house/apartment", as Czech addresses write it.
func houseNumber(a carrier.Address) string {
	no := strings.TrimSpace(a.HouseNumber)
	if ap := strings.TrimSpace(a.ApartmentNumber); ap != "" {
		no += "/" + ap
	}
	return no
}

// orderNumber is parcel i's order number (attribute number, at most 24
// characters [V]): the same for every attempt to book the shipment, so it
// comes from Booking.Key (else the reference): the key itself when it fits,
// else 20 hex digits of its hash, then "-" and the parcel's 1-based index.
func orderNumber(req carrier.ShipmentRequest, i int) string {
	key := req.Booking.Key
	if key == "" {
		key = req.Reference
	}
	suffix := "-" + strconv.Itoa(i+1)
	var compact strings.Builder
	for _, r := range key {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			compact.WriteRune(r)
		}
	}
	if k := compact.String(); k != "" && len(k)+len(suffix) <= maxReferenceLength {
		return k + suffix
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:20] + suffix
}

// decimal formats v with at most digits decimals.
func decimal(v float64, digits int) string {
	return strconv.FormatFloat(math.Round(v*math.Pow10(digits))/math.Pow10(digits), 'f', -1, 64)
}

// mm is a centimetre dimension in whole millimetres, rounded up.
func mm(cm float64) int { return int(math.Ceil(cm*10 - 1e-9)) }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// formatHandle is packets as the booking's handle and ProviderShipmentID:
// "id:barcode" pairs, comma separated, in parcel order.
func formatHandle(packets []packet) string {
	parts := make([]string, len(packets))
	for i, p := range packets {
		parts[i] = p.id + ":" + p.barcode
	}
	return strings.Join(parts, ",")
}

// parseHandle reads formatHandle's form; "" is no packets.
func parseHandle(h string) ([]packet, error) {
	if strings.TrimSpace(h) == "" {
		return nil, nil
	}
	var out []packet
	for _, part := range strings.Split(h, ",") {
		id, barcode, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok || !isDigits(id) || barcode == "" {
			return nil, fmt.Errorf("packeta: %q is not a Packeta booking handle", h)
		}
		out = append(out, packet{id: id, barcode: barcode})
	}
	return out, nil
}

// packetsOf are the packets of a created shipment: from its
// ProviderShipmentID, else from its tracking numbers (barcode → id).
func packetsOf(ref carrier.ShipmentRef) ([]packet, error) {
	if ref.ProviderShipmentID != "" {
		return parseHandle(ref.ProviderShipmentID)
	}
	var out []packet
	for _, n := range ref.TrackingNumbers {
		id, ok := packetID(n)
		if !ok {
			return nil, carrier.Reject("tracking_number", "%q is not a Packeta barcode", n)
		}
		out = append(out, packet{id: id, barcode: n})
	}
	if len(out) == 0 {
		return nil, &carrier.Rejection{Message: "the shipment names no Packeta packet"}
	}
	return out, nil
}

// packetID is the packet id of a barcode "Z 123 4567 890" (see
// barcodePrefix), or of a bare id: ten digits [V: packet ids are 10 digits].
func packetID(number string) (string, bool) {
	n := strings.ReplaceAll(strings.TrimSpace(number), " ", "")
	n = strings.TrimPrefix(strings.ToUpper(n), barcodePrefix)
	return n, len(n) == packetIDDigits && isDigits(n)
}

// packetIDDigits is the length of a packet id [V].
const packetIDDigits = 10

// CancelShipment cancels every packet of the shipment. A packet Packeta no
// longer lets go (CancelNotAllowedFault) or does not know is a Rejection
// with Packeta's message; the others are cancelled all the same. A packet
// whose cancel faults but whose tracking shows it cancelled (status 11
// [V]) was cancelled by an earlier call; when every packet was, the answer
// is carrier.ErrAlreadyCancelled.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	if err := checkPassword(s); err != nil {
		return err
	}
	base, err := c.base(s)
	if err != nil {
		return err
	}
	packets, err := packetsOf(ref)
	if err != nil {
		return err
	}
	var refused carrier.Rejections
	already := 0
	for _, p := range packets {
		err := c.cancelPacket(ctx, base, s, p.id)
		if f, ok := asFault(err); ok {
			if c.cancelled(ctx, s, p) {
				already++
				continue
			}
			r := faultRejection(f)
			if f.Class == faultCancelNotAllowed {
				r.Message = "Packeta no longer allows cancelling packet " + p.barcode + ": " + f.Text
			} else {
				r.Message = "packet " + p.barcode + ": " + r.Message
			}
			refused = append(refused, r)
			continue
		}
		if err != nil {
			return err
		}
	}
	if len(refused) == 0 && already == len(packets) {
		return carrier.ErrAlreadyCancelled
	}
	return carrier.RejectionOf(refused)
}

// cancelled reports whether the packet's tracking shows it cancelled; a
// packet whose tracking cannot be read counts as not.
func (c *Carrier) cancelled(ctx context.Context, s carrier.Settings, p packet) bool {
	tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: p.barcode})
	if err != nil {
		return false
	}
	for _, e := range tr.Events {
		if e.Status == carrier.StatusCancelled {
			return true
		}
	}
	return false
}

func (c *Carrier) cancelPacket(ctx context.Context, base string, s carrier.Settings, id string) error {
	_, err := c.call(ctx, base, packetIDCall{XMLName: xml.Name{Local: "cancelPacket"}, APIPassword: s.String(settingPassword), PacketID: id})
	return err
}
