package labels

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// The handover document's page: A4 portrait, 12 mm margins. Rows have one
// height, so the pages are laid out before any is drawn and each knows the
// number of pages.
const (
	a4WidthPt, a4HeightPt = 595.28, 841.89
	a4WidthMM             = 210.0
	hoMargin              = 12.0
	hoRight               = a4WidthMM - hoMargin
	hoContent             = a4WidthMM - 2*hoMargin
	hoFirstTableTop       = 50.0  // below the header of the first page
	hoTableHead           = 6.0   // the head of the table, on every page with rows
	hoRow                 = 17.0  // a parcel
	hoBodyBottom          = 283.0 // rows and the closing block end above the footer
	hoFooter              = 284.0
	hoBarTop              = 1.5  // the bars from the top of their row
	hoBarHeight           = 10.0 // a sixth of the widest symbol's width, or more
	hoSignatureBox        = 34.0
	maxHandoverText       = 120 // runes of a field kept before fitting it to its column
)

// handoverColumn is a column of the parcel table: its left edge and width
// in mm, its caption, and whether its values stand at its right edge.
type handoverColumn struct {
	x, w    float64
	caption string
	right   bool
}

// The tracking number's column starts with the barcode's quiet zone, which
// nothing else may print in: its caption stands over the bars.
var (
	colNumber    = handoverColumn{hoMargin, 8, "#", true}
	colTracking  = handoverColumn{21, handoverBarcodeMM, "TRACKING NUMBER", false}
	colShipment  = handoverColumn{87, 32, "SHIPMENT", false}
	colRecipient = handoverColumn{121, 40, "RECIPIENT", false}
	colWeight    = handoverColumn{163, 15, "WEIGHT KG", true}
	colCOD       = handoverColumn{180, hoRight - 180, "COD", true}
	hoColumns    = []handoverColumn{colNumber, colTracking, colShipment, colRecipient, colWeight, colCOD}
)

// handoverPage is a page's share of the document: rows first to end
// (exclusive, 0-based), the top of its table, and where the closing block
// (totals and signatures) starts, 0 when it is on another page.
type handoverPage struct {
	first, end int
	tableTop   float64
	closingAt  float64
}

// paginate places the rows and the closing block, which moves to a page of
// its own rather than split.
func paginate(rows int, closing float64) []handoverPage {
	var pages []handoverPage
	top := hoFirstTableTop
	for i := 0; i < rows; {
		n := int((hoBodyBottom - top - hoTableHead) / hoRow)
		end := min(i+n, rows)
		pages = append(pages, handoverPage{first: i, end: end, tableTop: top})
		i, top = end, hoMargin
	}
	last := &pages[len(pages)-1]
	if y := last.tableTop + hoTableHead + float64(last.end-last.first)*hoRow; y+closing <= hoBodyBottom {
		last.closingAt = y
	} else {
		pages = append(pages, handoverPage{first: rows, end: rows, closingAt: hoMargin})
	}
	return pages
}

// handoverRow is a parcel's row, with what it prints of its shipment.
type handoverRow struct {
	parcel   HandoverParcel
	shipment *HandoverShipment
	index    int // the parcel's number in its shipment, 1-based
}

func drawHandover(d HandoverDocument, t handoverTotals) ([]byte, error) {
	doc, err := newPDFDoc(a4WidthPt, a4HeightPt)
	if err != nil {
		return nil, err
	}
	rows := make([]handoverRow, 0, t.parcels)
	for i := range d.Shipments {
		s := &d.Shipments[i]
		for k, p := range s.Parcels {
			rows = append(rows, handoverRow{parcel: p, shipment: s, index: k + 1})
		}
	}
	pages := paginate(len(rows), closingHeight(t))
	h := handoverDrawing{d: d, t: t, date: d.Date.Format(time.DateOnly)}
	for i, pg := range pages {
		p := doc.newPage(2<<10 + 1200*(pg.end-pg.first))
		if i == 0 {
			h.header(p)
		}
		if pg.end > pg.first {
			h.tableHead(p, pg.tableTop)
		}
		y := pg.tableTop + hoTableHead
		for r := pg.first; r < pg.end; r++ {
			h.row(p, y, r, rows[r])
			y += hoRow
		}
		if pg.closingAt > 0 {
			h.closing(p, pg.closingAt)
		}
		h.footer(p, i+1, len(pages))
	}
	return doc.write("Handover manifest " + field(d.ManifestID))
}

// handoverDrawing draws the parts of the document's pages.
type handoverDrawing struct {
	d    HandoverDocument
	t    handoverTotals
	date string
}

// field is s cleaned for printing and cut to what a column could show, so
// fitting it to the column measures a short text.
func field(s string) string {
	s = clean(s)
	if r := []rune(s); len(r) > maxHandoverText {
		s = string(r[:maxHandoverText])
	}
	return s
}

func (h handoverDrawing) header(p *pdfPage) {
	p.text(hoMargin, hoMargin, 18, true, "Handover manifest", 100)
	p.textRight(hoRight, hoMargin+0.5, 14, true, field(h.d.Carrier), hoContent-104)
	p.line(hoMargin, 21, hoRight, 21, 0.8)

	// The sender, as on a label.
	y := 23.0
	p.text(hoMargin, y, 6.5, true, "SENDER", 90)
	name, rest := h.d.Sender.lines()
	p.text(hoMargin, y+3, 10, true, field(name), 90)
	y += 7.4
	for _, s := range append(rest, partyTail(h.d.Sender)) {
		if s == "" {
			continue
		}
		p.text(hoMargin, y, 8.5, false, field(s), 90)
		y += 3.6
	}

	// What the handover is, right of it.
	x, w := 110.0, (hoRight-110)/2
	p.text(x, 23, 6.5, true, "HANDOVER DATE", w)
	p.text(x, 26, 11, true, h.date, w)
	p.text(x+w, 23, 6.5, true, "CHANNEL", w)
	p.text(x+w, 26.3, 9, false, field(h.d.ChannelName), w)
	p.text(x, 32, 6.5, true, "MANIFEST", 2*w)
	p.whole(x, 35, 9, false, field(h.d.ManifestID), 2*w, 0)
	p.text(x, 40.5, 6.5, true, "PARCELS", 2*w)
	p.whole(x, 43.5, 9, false, h.counts(), 2*w, 0)
	p.line(hoMargin, 48, hoRight, 48, 0.8)
}

// counts says how many parcels of how many shipments.
func (h handoverDrawing) counts() string {
	return plural(h.t.parcels, "parcel") + " of " + plural(h.t.shipments, "shipment") + ", " +
		formatKG(h.t.grams) + " kg"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func (h handoverDrawing) tableHead(p *pdfPage, y float64) {
	for _, c := range hoColumns {
		if c == colTracking {
			c.x, c.w = c.x+3.4, c.w-3.4 // ten modules of four pixels
		}
		if c.right {
			p.textRight(c.x+c.w, y+1.8, 6.5, true, c.caption, c.w)
		} else {
			p.text(c.x, y+1.8, 6.5, true, c.caption, c.w)
		}
	}
	p.line(hoMargin, y+hoTableHead, hoRight, y+hoTableHead, 0.6)
}

// row draws parcel r (0-based) with its top at y.
func (h handoverDrawing) row(p *pdfPage, y float64, r int, row handoverRow) {
	p.whole(colNumber.x+colNumber.w, y+2, 9, false, strconv.Itoa(r+1), colNumber.w, 1)

	// The bars start on the 300 dpi grid, so each lands on whole pixels.
	sym := h.t.symbols[r]
	perModule := min(pixels(colTracking.w)/sym.widthModules(), maxHandoverPxPerModule)
	left := onPixelGrid(colTracking.x)
	p.bars(sym.bars(perModule), left, y+hoBarTop, hoBarHeight)
	center := left + float64(sym.widthModules()*perModule)*pixelMM/2
	p.whole(center, y+hoBarTop+hoBarHeight+0.6, 8, true, row.parcel.TrackingNumber, colTracking.w, 0.5)

	s := row.shipment
	p.text(colShipment.x, y+2, 9, true, field(s.Reference), colShipment.w)
	if n := len(s.Parcels); n > 1 {
		p.text(colShipment.x, y+6.2, 7.5, false, fmt.Sprintf("parcel %d of %d", row.index, n), colShipment.w)
	}

	name, company, _, place := s.Recipient.address()
	lines := []string{name}
	if company != "" {
		lines = append(lines, company) // under the person
	}
	if cc := clean(s.Recipient.CountryCode); cc != "" {
		place = strings.TrimPrefix(place+", "+cc, ", ")
	}
	lines = append(lines, place)
	for i, l := range lines {
		size, bold := 8.0, false
		if i == 0 {
			size, bold = 9, true
		}
		p.text(colRecipient.x, y+2+4.1*float64(i), size, bold, field(l), colRecipient.w)
	}

	p.whole(colWeight.x+colWeight.w, y+2, 9, false, formatKG(gramsOf(row.parcel.WeightKG)), colWeight.w, 1)
	if s.COD != nil && row.index == 1 {
		right := colCOD.x + colCOD.w
		p.whole(right, y+2, 9, true, amount(*s.COD), colCOD.w, 1)
		p.textRight(right, y+6.2, 7.5, false, s.COD.Currency, colCOD.w)
	}
	p.line(hoMargin, y+hoRow, hoRight, y+hoRow, 0.3)
}

// closingHeight is the height of the closing block: the totals, a line of
// COD total a currency, the statement and the signature boxes.
func closingHeight(t handoverTotals) float64 {
	return 4 + totalsHeight(t) + 7 + hoSignatureBox
}

func totalsHeight(t handoverTotals) float64 {
	return 3.2 + 5.2*float64(max(len(t.cod), 1)) + 2
}

// closing draws the totals and the signature boxes from y down.
func (h handoverDrawing) closing(p *pdfPage, y float64) {
	t := h.t
	y += 4
	p.line(hoMargin, y-1.5, hoRight, y-1.5, 0.8)
	for _, c := range []struct {
		x            float64
		caption, val string
	}{
		{hoMargin, "SHIPMENTS", strconv.Itoa(t.shipments)},
		{50, "PARCELS", strconv.Itoa(t.parcels)},
		{88, "TOTAL WEIGHT", formatKG(t.grams) + " kg"},
	} {
		p.text(c.x, y, 6.5, true, c.caption, 36)
		p.whole(c.x, y+3.2, 12, true, c.val, 36, 0)
	}
	p.text(140, y, 6.5, true, "COD TOTAL", hoRight-140)
	if len(t.cod) == 0 {
		p.text(140, y+3.2, 12, false, "none", hoRight-140)
	}
	for i, m := range t.cod {
		p.whole(140, y+3.2+5.2*float64(i), 12, true, amount(m)+" "+m.Currency, hoRight-140, 0)
	}
	y += totalsHeight(t)

	p.text(hoMargin, y+0.5, 8.5, false, "By signing, the driver confirms taking over the parcels listed in this "+
		"manifest: "+h.counts()+".", hoContent)
	y += 7
	w := (hoContent - 6) / 2
	h.signatureBox(p, hoMargin, y, w, "DRIVER (CARRIER)", "Name", "Signature", "Date and time")
	h.signatureBox(p, hoRight-w, y, w, "SENDER", "Name", "Signature")
}

// signatureBox draws a box with a caption and a line to write on for each
// of fields.
func (h handoverDrawing) signatureBox(p *pdfPage, x, y, w float64, caption string, fields ...string) {
	p.box(x, y, w, hoSignatureBox, 0.8)
	p.text(x+3, y+2.5, 7.5, true, caption, w-6)
	for i, f := range fields {
		ly := y + 13 + 9*float64(i)
		p.text(x+3, ly-3.6, 8, false, f, 24)
		p.line(x+28, ly, x+w-3, ly, 0.5)
	}
}

func (h handoverDrawing) footer(p *pdfPage, page, pages int) {
	p.line(hoMargin, hoFooter, hoRight, hoFooter, 0.4)
	p.text(hoMargin, hoFooter+1.5, 7.5, false, "Handover manifest "+field(h.d.ManifestID)+" · "+
		field(h.d.Carrier)+" · "+h.date, hoContent-40)
	p.textRight(hoRight, hoFooter+1.5, 7.5, true, fmt.Sprintf("Page %d of %d", page, pages), 40)
}

// amount is m in major units without its currency.
func amount(m carrier.Money) string { return formatMinor(m.Minor, carrier.CurrencyDigits(m.Currency)) }
