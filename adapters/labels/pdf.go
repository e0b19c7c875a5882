package labels

import (
	"fmt"
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

// The label's barcode is 22 mm high.
const barcodeHeightMM = 22.0

// renderPDF writes the label with a PDF writer of its own: gopdf parsed
// both fonts, made a zlib writer per stream and a PNG of the barcode for
// every label, most of whose time went to that.
func renderPDF(l ParcelLabel) ([]byte, error) {
	d, err := newPDFDoc(pageWidthPt, pageHeightPt)
	if err != nil {
		return nil, err
	}
	d.newPage(8 << 10).drawLabel(l)
	out, err := d.write("Parcel label " + l.TrackingNumber)
	if err != nil {
		return nil, fmt.Errorf("pdf label: %w", err)
	}
	return out, nil
}

func (p *pdfPage) drawLabel(l ParcelLabel) {
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
	p.labelBarcode(l.TrackingNumber, 118)
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

// labelBarcode draws the Code 128 symbol of data centred at top y mm, as
// wide as the content width allows with whole 300 dpi pixels per module,
// from a pixel edge of the page.
func (p *pdfPage) labelBarcode(data string, y float64) {
	if p.err != nil {
		return
	}
	sym, err := encodeCode128(data)
	if err != nil {
		p.err = err
		return
	}
	perModule := max(pixels(contentMM)/sym.widthModules(), 1)
	width := float64(sym.widthModules()*perModule) * pixelMM
	p.bars(sym.bars(perModule), onPixelGrid((pageWidthMM-width)/2), y, barcodeHeightMM)
}
