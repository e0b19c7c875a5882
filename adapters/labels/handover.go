package labels

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// HandoverDocument is the handover manifest shipd prints for a carrier that
// makes none of its own: the parcels the driver takes over, which the
// driver and the sender sign.
type HandoverDocument struct {
	Carrier     string    // the carrier's name, e.g. "PPL"
	ChannelName string    // the shipping channel the parcels were booked through
	ManifestID  string    // printed in the header and the footer of every page
	Date        time.Time // the day of the handover, printed as a date in its location
	Sender      Party     // who hands the parcels over
	// Shipments are listed in this order, each shipment's parcels in
	// theirs, a row a parcel.
	Shipments []HandoverShipment
}

// HandoverShipment is a shipment on the manifest and its parcels.
type HandoverShipment struct {
	Reference string // the shipment's reference number
	// Recipient is printed as its name (or company), company, postal code,
	// city and country.
	Recipient Party
	COD       *carrier.Money // the cash the driver collects; nil when none
	Parcels   []HandoverParcel
}

// HandoverParcel is one box handed over.
type HandoverParcel struct {
	TrackingNumber string // printed as a Code 128 barcode with its text under it
	WeightKG       float64
}

// The most a handover document takes. A pickup of more than 10,000 parcels
// is a warehouse's, which has its carrier's manifest API; the limit keeps a
// document to some 700 pages and a few MB. COD totals are listed a line a
// currency, and more than 8 currencies in one handover is a mistake.
const (
	MaxHandoverParcels    = 10000
	MaxHandoverCurrencies = 8
	maxParcelKG           = 100000 // what the shipments domain takes
)

// The tracking number's barcode gets a column 64 mm wide, quiet zones
// included, and a module there is 2 to 4 pixels at 300 dpi (0.17 to
// 0.34 mm), which a handheld scanner reads: 29 characters of letters, or
// 58 digits, fit.
const (
	handoverBarcodeMM      = 64.0
	minHandoverPxPerModule = 2
	maxHandoverPxPerModule = 4
	maxTrackingNumber      = 64 // characters; the barcode's width is the real limit
)

// RenderHandover draws the handover document as an A4 PDF: a header with
// the sender, carrier, channel, date and manifest id; a table of the
// parcels in order (row number, tracking number as a barcode, shipment
// reference, recipient, weight, cash on delivery), its head repeated on
// every page; the totals; and signature boxes for the driver and the
// sender, kept on one page with the totals. Every page says "page i of n".
func RenderHandover(d HandoverDocument) ([]byte, error) {
	t, err := checkHandover(d)
	if err != nil {
		return nil, err
	}
	out, err := drawHandover(d, t)
	if err != nil {
		return nil, fmt.Errorf("handover document: %w", err)
	}
	return out, nil
}

// CheckHandover reports what RenderHandover would refuse in d, without
// drawing it.
func CheckHandover(d HandoverDocument) error {
	_, err := checkHandover(d)
	return err
}

// handoverTotals are what the document sums up, found while checking it.
type handoverTotals struct {
	parcels, shipments int
	grams              int64
	cod                []carrier.Money // by currency, sorted
	symbols            []code128Symbol // by parcel
}

func checkHandover(d HandoverDocument) (handoverTotals, error) {
	fail := func(format string, args ...any) (handoverTotals, error) {
		return handoverTotals{}, fmt.Errorf("handover document: "+format, args...)
	}
	switch {
	case clean(d.Carrier) == "":
		return fail("no carrier name")
	case clean(d.ManifestID) == "":
		return fail("no manifest id")
	case d.Date.IsZero():
		return fail("no handover date")
	case clean(d.Sender.Name) == "" && clean(d.Sender.Company) == "":
		return fail("the sender has no name")
	case len(d.Shipments) == 0:
		return fail("no shipments to hand over")
	}
	t := handoverTotals{shipments: len(d.Shipments)}
	for i, s := range d.Shipments {
		if len(s.Parcels) == 0 {
			return fail("shipment %d (%q) has no parcels", i+1, s.Reference)
		}
		t.parcels += len(s.Parcels)
	}
	if t.parcels > MaxHandoverParcels {
		return fail("%d parcels, more than the %d one document lists", t.parcels, MaxHandoverParcels)
	}
	cod := map[string]int64{}
	seen := make(map[string]int, t.parcels)
	t.symbols = make([]code128Symbol, 0, t.parcels)
	for i, s := range d.Shipments {
		if s.COD != nil {
			if err := addCOD(cod, *s.COD); err != nil {
				return fail("shipment %d (%q): cash on delivery %w", i+1, s.Reference, err)
			}
		}
		for _, p := range s.Parcels {
			row := len(t.symbols) + 1
			if first, ok := seen[p.TrackingNumber]; ok {
				return fail("parcel %d: tracking number %q is parcel %d's too", row, p.TrackingNumber, first)
			}
			seen[p.TrackingNumber] = row
			sym, err := handoverBarcode(p.TrackingNumber)
			if err != nil {
				return fail("parcel %d: %w", row, err)
			}
			t.symbols = append(t.symbols, sym)
			if !(p.WeightKG > 0 && p.WeightKG <= maxParcelKG) { // also NaN
				return fail("parcel %d (%s): weight %v kg: must be more than 0 and at most %d kg", row, p.TrackingNumber, p.WeightKG, maxParcelKG)
			}
			t.grams += gramsOf(p.WeightKG)
		}
	}
	if len(cod) > MaxHandoverCurrencies {
		return fail("cash on delivery in %d currencies, more than the %d one document sums up", len(cod), MaxHandoverCurrencies)
	}
	for _, c := range slices.Sorted(maps.Keys(cod)) {
		t.cod = append(t.cod, carrier.Money{Minor: cod[c], Currency: c})
	}
	return t, nil
}

// addCOD adds m to the totals by currency.
func addCOD(totals map[string]int64, m carrier.Money) error {
	switch {
	case !carrier.IsCashCurrency(m.Currency):
		return fmt.Errorf("in %q, which is no currency a carrier collects", m.Currency)
	case m.Minor <= 0:
		return errors.New("is not more than 0")
	case m.Minor > math.MaxInt64-totals[m.Currency]:
		return fmt.Errorf("makes the %s total too large", m.Currency)
	}
	totals[m.Currency] += m.Minor
	return nil
}

// handoverBarcode is the symbol of a tracking number, which must fit the
// table's barcode column at two pixels a module or more.
func handoverBarcode(tn string) (code128Symbol, error) {
	if tn == "" || len(tn) > maxTrackingNumber {
		return code128Symbol{}, fmt.Errorf("tracking number %q: must have 1 to %d characters", tn, maxTrackingNumber)
	}
	for _, r := range tn {
		if r <= ' ' || r > '~' {
			return code128Symbol{}, fmt.Errorf("tracking number %q: character %q cannot go into a Code 128 barcode (printable ASCII only)", tn, r)
		}
	}
	sym, err := encodeCode128(tn)
	if err != nil {
		return code128Symbol{}, fmt.Errorf("tracking number %q: %w", tn, err)
	}
	if need := sym.widthModules() * minHandoverPxPerModule; need > pixels(handoverBarcodeMM) {
		return code128Symbol{}, fmt.Errorf("tracking number %q: its barcode is %d modules wide with its quiet zones, "+
			"more than the %d the manifest's %.0f mm column holds at %.2f mm a module", tn, sym.widthModules(),
			pixels(handoverBarcodeMM)/minHandoverPxPerModule, handoverBarcodeMM, minHandoverPxPerModule*pixelMM)
	}
	return sym, nil
}

// formatMinor writes an amount of minor units in major units with digits
// decimals, exactly (a float64 loses cents past 2^53).
func formatMinor(minor int64, digits int) string {
	s := strconv.FormatInt(minor, 10)
	if digits == 0 {
		return s
	}
	if len(s) <= digits {
		s = strings.Repeat("0", digits-len(s)+1) + s
	}
	return s[:len(s)-digits] + "." + s[len(s)-digits:]
}

// gramsOf is kg in whole grams, what the document prints and sums.
func gramsOf(kg float64) int64 { return int64(math.Round(kg * 1000)) }

// formatKG writes grams as kilograms with two decimals, three when the
// grams need them.
func formatKG(grams int64) string {
	s := formatMinor(grams, 3)
	if strings.HasSuffix(s, "0") {
		s = s[:len(s)-1]
	}
	return s
}
