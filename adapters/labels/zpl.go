package labels

import (
	"fmt"
	"strings"
)

// ZPL II at 203 dpi: a 100 × 150 mm label is 812 × 1218 dots, 8 dots/mm.
const (
	dotsWide   = 812
	dotsHigh   = 1218
	dotsMargin = 32
	dotsInner  = dotsWide - 2*dotsMargin
)

type zpl struct{ b strings.Builder }

func renderZPL(l ParcelLabel) []byte {
	z := &zpl{}
	z.raw("^XA")
	z.raw("^CI28") // field data is UTF-8
	z.raw(fmt.Sprintf("^PW%d^LL%d^LH0,0", dotsWide, dotsHigh))

	z.text(dotsMargin, 32, 40, clean(l.Carrier), dotsInner*55/100)
	z.block(dotsMargin+dotsInner*55/100, 32, 40, clean(l.Product), dotsInner*45/100, "R")
	z.hline(88, 6)

	y := 100
	z.text(dotsMargin, y, 20, "FROM / SENDER", dotsInner)
	y += 26
	name, rest := l.Sender.lines()
	z.text(dotsMargin, y, 28, name, dotsInner)
	y += 32
	for _, s := range append(rest, partyTail(l.Sender)) {
		if s != "" {
			z.text(dotsMargin, y, 24, s, dotsInner)
			y += 28
		}
	}

	y = 280
	z.hline(y, 10)
	y += 18
	z.text(dotsMargin, y, 22, "TO / RECIPIENT", dotsInner)
	y += 28
	name, rest = l.Recipient.lines()
	z.text(dotsMargin, y, 52, name, dotsInner)
	y += 58
	for i, s := range rest {
		h := 40
		if i == len(rest)-1 {
			h = 52
		}
		z.text(dotsMargin, y, h, s, dotsInner)
		y += h + 6
	}
	if cc := clean(l.Recipient.CountryCode); cc != "" {
		z.text(dotsMargin, y, 52, cc, dotsInner)
		y += 58
	}
	if ph := clean(l.Recipient.Phone); ph != "" {
		z.text(dotsMargin, y, 28, "Tel. "+ph, dotsInner)
	}

	y = 656
	z.hline(y, 10)
	col := dotsInner / 3
	z.text(dotsMargin, y+16, 20, "PARCEL", col)
	z.text(dotsMargin, y+40, 56, fmt.Sprintf("%d/%d", l.ParcelIndex, l.ParcelCount), col)
	z.text(dotsMargin+col, y+16, 20, "WEIGHT", col)
	z.text(dotsMargin+col, y+40, 44, clean(l.Weight), col)
	z.text(dotsMargin+2*col, y+16, 20, "SHIPPING DATE", col)
	z.text(dotsMargin+2*col, y+40, 36, clean(l.ShippingDate), col)
	y += 104
	z.text(dotsMargin, y, 20, "REFERENCE", 160)
	z.text(dotsMargin+160, y-6, 32, clean(l.Reference), dotsInner-160)
	y += 40
	z.hline(y, 6)

	if cod := clean(l.COD); cod != "" {
		y += 16
		z.raw(fmt.Sprintf("^FO%d,%d^GB%d,88,8^FS", dotsMargin, y, dotsInner))
		z.block(dotsMargin, y+18, 56, "COD  "+cod, dotsInner, "C")
	}

	// Subset B (no start code): the width is exact, 11 modules per
	// character plus start, check and stop.
	modules := 11*(len(l.TrackingNumber)+3) + 2
	module := min(max(dotsWide/(modules+2*quietModules), 1), 4)
	x := max((dotsWide-modules*module)/2, 0)
	z.raw(fmt.Sprintf("^BY%d,3,176^FO%d,944^BCN,176,N,N,N^FD%s^FS", module, x, l.TrackingNumber))
	z.block(dotsMargin, 1136, 44, l.TrackingNumber, dotsInner, "C")
	z.raw("^XZ")
	return []byte(z.b.String())
}

func (z *zpl) raw(s string) { z.b.WriteString(s + "\n") }

func (z *zpl) hline(y, thickness int) {
	z.raw(fmt.Sprintf("^FO%d,%d^GB%d,0,%d^FS", dotsMargin, y, dotsInner, thickness))
}

// fitZPL makes s fit width dots in font 0, which averages about 0.55 h per
// character: first the height shrinks (to 3/4 at most), then the text.
func fitZPL(h int, s string, width int) (int, string) {
	n := len([]rune(s))
	if n*h*55 > width*100 {
		h = max(width*100/(n*55), h*3/4)
	}
	return h, truncate(s, width*100/(h*55))
}

// text writes a left-aligned line in the scalable font 0, h dots high.
func (z *zpl) text(x, y, h int, s string, width int) {
	if s == "" {
		return
	}
	h, s = fitZPL(h, s, width)
	z.raw(fmt.Sprintf("^FO%d,%d^A0N,%d,%d^FH^FD%s^FS", x, y, h, h, zplEscape(s)))
}

// block writes one line aligned (L, C, R) inside a field block of width dots.
func (z *zpl) block(x, y, h int, s string, width int, align string) {
	if s == "" {
		return
	}
	h, s = fitZPL(h, s, width)
	// In a field block \& breaks the line; a backslash must not start one.
	s = strings.ReplaceAll(s, `\`, "/")
	z.raw(fmt.Sprintf("^FO%d,%d^FB%d,1,0,%s^A0N,%d,%d^FH^FD%s^FS", x, y, width, align, h, h, zplEscape(s)))
}

// zplEscape hex-escapes, for ^FH, the characters that would end the field
// or start a command: ^ and ~, and _ itself as the ^FH escape character.
func zplEscape(s string) string { return zplEscaper.Replace(s) }

// zplEscaper is built once: a Replacer of single bytes allocates a table of
// 256 entries, which built per field was most of a label's memory.
var zplEscaper = strings.NewReplacer("_", "_5F", "^", "_5E", "~", "_7E")
