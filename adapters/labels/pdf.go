package labels

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/boombuler/barcode/code128"
)

// The page is 100 × 150 mm; PDF works in points and the drawing code in
// millimetres.
const (
	pageWidthPt  = 283.46
	pageHeightPt = 425.20
	pageWidthMM  = 100.0
	marginMM     = 4.0
	contentMM    = pageWidthMM - 2*marginMM
)

// Barcode geometry: bars are drawn on a 300 dpi pixel grid with a whole
// number of pixels per module, so every module has the same width when the
// page is printed or rasterized at 300 dpi, and 10 modules of quiet zone on
// each side as Code 128 asks.
const (
	barcodeDPI      = 300
	quietModules    = 10
	barcodeHeightMM = 22.0
)

func mm(v float64) float64 { return v * 72 / 25.4 }

// pdfPage draws a label's page: its content stream and the glyphs it
// prints of each font.
type pdfPage struct {
	content []byte
	fonts   [2]*fontUse // regular, bold
	err     error       // first drawing error; later calls do nothing
}

// The page's objects: the catalog, the page tree, the page, its content,
// the document info, then five for each font (fontUse.writeObjects).
const (
	objCatalog = 1 + iota
	objPages
	objPage
	objContent
	objInfo
	objFonts
	fontObjects = 5
)

// renderPDF writes the label with a PDF writer of its own: gopdf parsed
// both fonts, made a zlib writer per stream and a PNG of the barcode for
// every label, most of whose time went to that.
func renderPDF(l ParcelLabel) ([]byte, error) {
	fonts, err := pdfFonts()
	if err != nil {
		return nil, err
	}
	p := &pdfPage{content: make([]byte, 0, 8<<10)}
	for i, f := range fonts {
		p.fonts[i] = newFontUse(f, pdfFontNames[i])
	}
	p.draw(l)
	if p.err != nil {
		return nil, fmt.Errorf("pdf label: %w", p.err)
	}
	w := newPDFWriter(objFonts + fontObjects*len(p.fonts) - 1)
	w.object(objCatalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", objPages))
	w.object(objPages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", objPage))
	fontRefs := ""
	for i := range p.fonts {
		fontRefs += fmt.Sprintf(" /F%d %d 0 R", i+1, objFonts+fontObjects*i)
	}
	w.object(objPage, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %s %s] "+
		"/Resources << /Font <<%s >> /ProcSet [/PDF /Text] >> /Contents %d 0 R >>",
		objPages, num(pageWidthPt), num(pageHeightPt), fontRefs, objContent))
	w.stream(objContent, "", zlibPiece{data: p.content})
	w.object(objInfo, fmt.Sprintf("<< /Title %s /Creator (shipd) /Producer (shipd) >>",
		pdfString("Parcel label "+l.TrackingNumber)))
	for i, u := range p.fonts {
		u.writeObjects(w, objFonts+fontObjects*i)
	}
	return w.finish(objCatalog, objInfo), nil
}

func (p *pdfPage) draw(l ParcelLabel) {
	right := pageWidthMM - marginMM

	// Header: who carries it and how.
	p.text(marginMM, 4, 13, true, clean(l.Carrier), contentMM*0.55)
	p.textRight(right, 4, 13, true, clean(l.Product), contentMM*0.45)
	p.line(marginMM, 11, right, 11, 0.8)

	// Sender: small, it is read only when the parcel comes back.
	y := 12.5
	p.text(marginMM, y, 6.5, true, "FROM / SENDER", contentMM)
	y += 3
	name, rest := l.Sender.lines()
	p.text(marginMM, y, 9, true, name, contentMM)
	y += 3.8
	for _, s := range append(rest, partyTail(l.Sender)) {
		if s == "" {
			continue
		}
		p.text(marginMM, y, 8, false, s, contentMM)
		y += 3.4
	}

	// Recipient: big, it is what the courier reads.
	y = 35
	p.line(marginMM, y, right, y, 1.5)
	y += 1.5
	p.text(marginMM, y, 7, true, "TO / RECIPIENT", contentMM)
	y += 3.3
	name, rest = l.Recipient.lines()
	p.text(marginMM, y, 16, true, name, contentMM)
	y += 7
	for i, s := range rest {
		last := i == len(rest)-1 // postal code and city
		size := 12.0
		if last {
			size = 16
		}
		p.text(marginMM, y, size, last, s, contentMM)
		y += size * 0.42
	}
	if cc := clean(l.Recipient.CountryCode); cc != "" {
		p.text(marginMM, y, 16, true, cc, contentMM)
		y += 6.7
	}
	if ph := clean(l.Recipient.Phone); ph != "" {
		p.text(marginMM, y, 9, false, "Tel. "+ph, contentMM)
	}

	// Parcel facts.
	y = 82
	p.line(marginMM, y, right, y, 1.5)
	col := contentMM / 3
	p.text(marginMM, y+1.5, 6.5, true, "PARCEL", col)
	p.text(marginMM, y+4, 18, true, fmt.Sprintf("%d/%d", l.ParcelIndex, l.ParcelCount), col)
	p.text(marginMM+col, y+1.5, 6.5, true, "WEIGHT", col)
	p.text(marginMM+col, y+4.5, 13, true, clean(l.Weight), col)
	p.text(marginMM+2*col, y+1.5, 6.5, true, "SHIPPING DATE", col)
	p.text(marginMM+2*col, y+4.5, 11, false, clean(l.ShippingDate), col)
	y += 12.5
	p.text(marginMM, y, 6.5, true, "REFERENCE", 20)
	p.text(marginMM+20, y-0.8, 10, false, clean(l.Reference), contentMM-20)
	y += 5
	p.line(marginMM, y, right, y, 0.8)

	// Cash on delivery: boxed and bold so nobody hands the parcel over
	// without collecting.
	if cod := clean(l.COD); cod != "" {
		y += 2
		p.box(marginMM, y, contentMM, 11, 2)
		p.textCenter(pageWidthMM/2, y+2.2, 17, true, "COD  "+cod, contentMM-4)
	}

	// Tracking barcode, human-readable number under it.
	p.barcode(l.TrackingNumber, 118)
	p.textCenter(pageWidthMM/2, 118+barcodeHeightMM+1.2, 13, true, l.TrackingNumber, contentMM)
}

func partyTail(p Party) string {
	s := clean(p.CountryCode)
	if ph := clean(p.Phone); ph != "" {
		if s != "" {
			s += ", "
		}
		s += "Tel. " + ph
	}
	return s
}

// fit shrinks s (font size down to 75 %, then the text itself) until it
// is at most maxMM wide; it returns the text, its size and its width.
func (p *pdfPage) fit(size float64, bold bool, s string, maxMM float64) (string, float64, float64) {
	font, _ := p.font(bold)
	smallest := size * 0.75
	for size > smallest && font.width(s, size) > mm(maxMM) {
		size -= 0.5
	}
	r := []rune(s)
	for len(r) > 1 && font.width(s, size) > mm(maxMM) {
		r = r[:len(r)-1]
		s = string(r) + "…"
	}
	return s, size, font.width(s, size)
}

// font is the regular or bold font and its name in the page's resources.
func (p *pdfPage) font(bold bool) (*fontUse, string) {
	if bold {
		return p.fonts[1], "/F2"
	}
	return p.fonts[0], "/F1"
}

// text writes s with its top-left corner at (x, y) mm.
func (p *pdfPage) text(x, y, size float64, bold bool, s string, maxMM float64) {
	s, size, _ = p.fit(size, bold, s, maxMM)
	p.put(mm(x), y, size, bold, s)
}

func (p *pdfPage) textRight(right, y, size float64, bold bool, s string, maxMM float64) {
	s, size, w := p.fit(size, bold, s, maxMM)
	p.put(mm(right)-w, y, size, bold, s)
}

func (p *pdfPage) textCenter(center, y, size float64, bold bool, s string, maxMM float64) {
	s, size, w := p.fit(size, bold, s, maxMM)
	p.put(mm(center)-w/2, y, size, bold, s)
}

// put writes s at x points from the left edge, the top of its line y mm
// from the top.
func (p *pdfPage) put(x, y, size float64, bold bool, s string) {
	if s == "" {
		return
	}
	font, name := p.font(bold)
	b := append(p.content, "BT "+name+" "...)
	b = appendNums(b, size)
	b = append(b, " Tf "...)
	b = appendNums(b, x, pageHeightPt-mm(y)-font.ascent(size))
	b = append(b, " Td "...)
	b = font.appendText(b, s)
	p.content = append(b, " Tj ET\n"...)
}

func (p *pdfPage) line(x1, y1, x2, y2, widthPt float64) {
	b := appendNums(p.content, widthPt)
	b = append(b, " w "...)
	b = appendNums(b, mm(x1), pageHeightPt-mm(y1))
	b = append(b, " m "...)
	b = appendNums(b, mm(x2), pageHeightPt-mm(y2))
	p.content = append(b, " l S\n"...)
}

func (p *pdfPage) box(x, y, w, h, widthPt float64) {
	b := appendNums(p.content, widthPt)
	b = append(b, " w "...)
	b = appendNums(b, mm(x), pageHeightPt-mm(y+h), mm(w), mm(h))
	p.content = append(b, " re S\n"...)
}

// barcode draws the Code 128 symbol of data centred at top y mm, as wide as
// the content width allows with whole 300 dpi pixels per module: filled
// rectangles, one a bar.
func (p *pdfPage) barcode(data string, y float64) {
	if p.err != nil {
		return
	}
	bars, widthPx, err := barcodeBars(data, contentMM)
	if err != nil {
		p.err = err
		return
	}
	// Whole pixels from the page edge too, so a 300 dpi rasterization
	// lands every bar edge on a pixel edge.
	px := 25.4 / barcodeDPI
	left := math.Round((pageWidthMM-float64(widthPx)*px)/2/px) * px
	for _, bar := range bars {
		p.content = appendNums(p.content, mm(left+float64(bar[0])*px), pageHeightPt-mm(y+barcodeHeightMM),
			mm(float64(bar[1])*px), mm(barcodeHeightMM))
		p.content = append(p.content, " re\n"...)
	}
	p.content = append(p.content, "f\n"...)
}

// barcodeBars returns the bars of the symbol, each its left edge and width
// in barcodeDPI pixels from the left of the symbol's quiet zone, and the
// width of the symbol with both quiet zones.
func barcodeBars(data string, maxMM float64) (bars [][2]int, widthPx int, err error) {
	bc, err := code128.Encode(data)
	if err != nil {
		return nil, 0, fmt.Errorf("barcode: %w", err)
	}
	modules := bc.Bounds().Dx()
	maxPx := int(maxMM / 25.4 * barcodeDPI)
	perModule := max(maxPx/(modules+2*quietModules), 1)
	dark := func(m int) bool {
		c := color.GrayModel.Convert(bc.At(bc.Bounds().Min.X+m, bc.Bounds().Min.Y)).(color.Gray)
		return c.Y < 0x80
	}
	for m := 0; m < modules; m++ {
		if !dark(m) {
			continue
		}
		start := m
		for m+1 < modules && dark(m+1) {
			m++
		}
		bars = append(bars, [2]int{(quietModules + start) * perModule, (m + 1 - start) * perModule})
	}
	return bars, (modules + 2*quietModules) * perModule, nil
}

// appendNums appends vs as PDF numbers separated by spaces, to the
// hundredth of a point (a 300 dpi pixel is 0.24 pt).
func appendNums(b []byte, vs ...float64) []byte {
	for i, v := range vs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, math.Round(v*100)/100+0, 'f', -1, 64)
	}
	return b
}

func num(v float64) string { return string(appendNums(nil, v)) }
