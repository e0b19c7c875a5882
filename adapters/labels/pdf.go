package labels

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/boombuler/barcode/code128"
	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
)

// The page is 100 × 150 mm; gopdf works in points and the drawing code in
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

type pdfPage struct {
	pdf *gopdf.GoPdf
	err error // first drawing error; later calls do nothing
}

func renderPDF(l ParcelLabel) ([]byte, error) {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{Unit: gopdf.UnitPT, PageSize: gopdf.Rect{W: pageWidthPt, H: pageHeightPt}})
	pdf.SetInfo(gopdf.PdfInfo{Title: "Parcel label " + l.TrackingNumber, Creator: "shipd", Producer: "shipd"})
	if err := pdf.AddTTFFontData("regular", goregular.TTF); err != nil {
		return nil, fmt.Errorf("pdf label: load font: %w", err)
	}
	if err := pdf.AddTTFFontData("bold", gobold.TTF); err != nil {
		return nil, fmt.Errorf("pdf label: load font: %w", err)
	}
	pdf.AddPage()
	p := &pdfPage{pdf: pdf}
	p.draw(l)
	if p.err != nil {
		return nil, fmt.Errorf("pdf label: %w", p.err)
	}
	out, err := pdf.GetBytesPdfReturnErr()
	if err != nil {
		return nil, fmt.Errorf("pdf label: %w", err)
	}
	return out, nil
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

// fit sets the font and shrinks s (font size down to 75 %, then the text
// itself) until it is at most maxMM wide; it returns the text and its width.
func (p *pdfPage) fit(size float64, bold bool, s string, maxMM float64) (string, float64) {
	if p.err != nil || s == "" {
		return "", 0
	}
	family := "regular"
	if bold {
		family = "bold"
	}
	for sz := size; ; sz -= 0.5 {
		if p.err = p.pdf.SetFont(family, "", sz); p.err != nil {
			return "", 0
		}
		w := p.width(s)
		if w <= mm(maxMM) || sz <= size*0.75 {
			break
		}
	}
	r := []rune(s)
	for len(r) > 1 && p.width(s) > mm(maxMM) {
		r = r[:len(r)-1]
		s = string(r) + "…"
	}
	return s, p.width(s)
}

func (p *pdfPage) width(s string) float64 {
	if p.err != nil {
		return 0
	}
	w, err := p.pdf.MeasureTextWidth(s)
	if err != nil {
		p.err = err
	}
	return w
}

// text writes s with its top-left corner at (x, y) mm.
func (p *pdfPage) text(x, y, size float64, bold bool, s string, maxMM float64) {
	s, _ = p.fit(size, bold, s, maxMM)
	p.put(mm(x), mm(y), s)
}

func (p *pdfPage) textRight(right, y, size float64, bold bool, s string, maxMM float64) {
	s, w := p.fit(size, bold, s, maxMM)
	p.put(mm(right)-w, mm(y), s)
}

func (p *pdfPage) textCenter(center, y, size float64, bold bool, s string, maxMM float64) {
	s, w := p.fit(size, bold, s, maxMM)
	p.put(mm(center)-w/2, mm(y), s)
}

func (p *pdfPage) put(x, y float64, s string) {
	if p.err != nil || s == "" {
		return
	}
	p.pdf.SetXY(x, y)
	p.err = p.pdf.Cell(nil, s)
}

func (p *pdfPage) line(x1, y1, x2, y2, widthPt float64) {
	p.pdf.SetLineWidth(widthPt)
	p.pdf.Line(mm(x1), mm(y1), mm(x2), mm(y2))
}

func (p *pdfPage) box(x, y, w, h, widthPt float64) {
	p.pdf.SetLineWidth(widthPt)
	p.pdf.RectFromUpperLeftWithStyle(mm(x), mm(y), mm(w), mm(h), "D")
}

// barcode draws the Code 128 symbol of data centred at top y mm, as wide as
// the content width allows with whole pixels per module.
func (p *pdfPage) barcode(data string, y float64) {
	if p.err != nil {
		return
	}
	img, widthMM, err := barcodeImage(data, contentMM)
	if err != nil {
		p.err = err
		return
	}
	// Whole pixels from the page edge too, so a 300 dpi rasterization
	// lands every bar edge on a pixel edge.
	px := 25.4 / barcodeDPI
	x := math.Round((pageWidthMM-widthMM)/2/px) * px
	p.err = p.pdf.ImageFrom(img, mm(x), mm(y), &gopdf.Rect{W: mm(widthMM), H: mm(barcodeHeightMM)})
}

// barcodeImage returns the symbol with its quiet zones as a bitmap of
// barcodeDPI pixels per inch, and its width in mm at that resolution.
func barcodeImage(data string, maxMM float64) (image.Image, float64, error) {
	bc, err := code128.Encode(data)
	if err != nil {
		return nil, 0, fmt.Errorf("barcode: %w", err)
	}
	modules := bc.Bounds().Dx()
	maxPx := int(maxMM / 25.4 * barcodeDPI)
	perModule := max(maxPx/(modules+2*quietModules), 1)
	w := (modules + 2*quietModules) * perModule
	const h = 8 // rows; the PDF stretches them to the bar height
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for m := range modules {
		if c := color.GrayModel.Convert(bc.At(bc.Bounds().Min.X+m, bc.Bounds().Min.Y)).(color.Gray); c.Y >= 0x80 {
			continue
		}
		for x := (quietModules + m) * perModule; x < (quietModules+m+1)*perModule; x++ {
			for y := range h {
				img.Pix[y*img.Stride+x] = 0
			}
		}
	}
	return img, float64(w) * 25.4 / barcodeDPI, nil
}
