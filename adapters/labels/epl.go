package labels

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/boombuler/barcode/code128"
	"golang.org/x/text/encoding/charmap"
)

// EPL2 has no UTF-8: text goes out in a Windows code page chosen per label,
// 1250 (Central European) unless the text needs 1252 (Western European);
// characters neither has print as "?".
type eplCodePage struct {
	id string // second parameter of the I command
	cm *charmap.Charmap
}

var (
	eplCentral = eplCodePage{"B", charmap.Windows1250}
	eplWestern = eplCodePage{"A", charmap.Windows1252}
)

// Font 3 is 12 dots wide and font 4 is 14 (plus 2 dots of spacing), scaled
// by the multipliers.
const (
	eplFontSmall = 3
	eplFontLarge = 4
)

type epl struct {
	b  bytes.Buffer
	cp eplCodePage
}

func renderEPL(l ParcelLabel) []byte {
	e := &epl{cp: pickCodePage(l)}
	e.line("N") // clear the image buffer: a label starts here
	e.line("I8," + e.cp.id + ",001")
	e.line(fmt.Sprintf("q%d", dotsWide))
	e.line(fmt.Sprintf("Q%d,24", dotsHigh))

	e.text(dotsMargin, 32, eplFontLarge, 2, clean(l.Carrier), dotsInner*55/100)
	e.textRight(dotsWide-dotsMargin, 32, eplFontLarge, 2, clean(l.Product), dotsInner*45/100)
	e.hline(88, 6)

	y := 100
	e.text(dotsMargin, y, eplFontSmall, 1, "FROM / SENDER", dotsInner)
	y += 26
	name, rest := l.Sender.lines()
	e.text(dotsMargin, y, eplFontLarge, 1, name, dotsInner)
	y += 32
	for _, s := range append(rest, partyTail(l.Sender)) {
		if s != "" {
			e.text(dotsMargin, y, eplFontSmall, 1, s, dotsInner)
			y += 26
		}
	}

	y = 280
	e.hline(y, 10)
	y += 18
	e.text(dotsMargin, y, eplFontSmall, 1, "TO / RECIPIENT", dotsInner)
	y += 28
	name, rest = l.Recipient.lines()
	e.text(dotsMargin, y, eplFontLarge, 2, name, dotsInner)
	y += 58
	for i, s := range rest {
		mul, h := 1, 30
		if i == len(rest)-1 {
			mul, h = 2, 56
		}
		e.text(dotsMargin, y, eplFontLarge, mul, s, dotsInner)
		y += h
	}
	if cc := clean(l.Recipient.CountryCode); cc != "" {
		e.text(dotsMargin, y, eplFontLarge, 2, cc, dotsInner)
		y += 56
	}
	if ph := clean(l.Recipient.Phone); ph != "" {
		e.text(dotsMargin, y, eplFontSmall, 1, "Tel. "+ph, dotsInner)
	}

	y = 656
	e.hline(y, 10)
	col := dotsInner / 3
	e.text(dotsMargin, y+16, eplFontSmall, 1, "PARCEL", col)
	e.text(dotsMargin, y+44, eplFontLarge, 2, fmt.Sprintf("%d/%d", l.ParcelIndex, l.ParcelCount), col)
	e.text(dotsMargin+col, y+16, eplFontSmall, 1, "WEIGHT", col)
	e.text(dotsMargin+col, y+44, eplFontLarge, 2, clean(l.Weight), col)
	e.text(dotsMargin+2*col, y+16, eplFontSmall, 1, "SHIPPING DATE", col)
	e.text(dotsMargin+2*col, y+44, eplFontLarge, 1, clean(l.ShippingDate), col)
	y += 104
	e.text(dotsMargin, y, eplFontSmall, 1, "REFERENCE", 160)
	e.text(dotsMargin+160, y-4, eplFontLarge, 1, clean(l.Reference), dotsInner-160)
	y += 40
	e.hline(y, 6)

	if cod := clean(l.COD); cod != "" {
		y += 16
		e.line(fmt.Sprintf("X%d,%d,8,%d,%d", dotsMargin, y, dotsWide-dotsMargin, y+88))
		e.textCenter(dotsWide/2, y+16, eplFontLarge, 2, "COD  "+cod, dotsInner-16)
	}

	// Type 1 lets the printer switch subsets, so the exact width is the
	// printer's; the module width is chosen for the widest case (subset B
	// throughout) and the position centres the usual encoding.
	widest := 11*(len(l.TrackingNumber)+3) + 2
	module := min(max(dotsWide/(widest+2*quietModules), 1), 4)
	modules := widest
	if bc, err := code128.Encode(l.TrackingNumber); err == nil {
		modules = bc.Bounds().Dx()
	}
	x := max((dotsWide-modules*module)/2, 0)
	e.line(fmt.Sprintf(`B%d,944,0,1,%d,%d,176,N,"%s"`, x, module, max(module, 2), eplQuote(l.TrackingNumber)))
	e.textCenter(dotsWide/2, 1140, eplFontLarge, 2, l.TrackingNumber, dotsInner)
	e.line("P1")
	return e.b.Bytes()
}

func (e *epl) line(s string) { e.b.WriteString(s + "\n") }

func (e *epl) hline(y, thickness int) {
	e.line(fmt.Sprintf("LO%d,%d,%d,%d", dotsMargin, y, dotsInner, thickness))
}

func eplAdvance(font int) int {
	if font == eplFontLarge {
		return 16
	}
	return 14
}

// fit shrinks the multiplier, then the text, until s fits width dots.
func fitEPL(font, mul int, s string, width int) (int, string) {
	for mul > 1 && len([]rune(s))*eplAdvance(font)*mul > width {
		mul--
	}
	return mul, truncate(s, width/(eplAdvance(font)*mul))
}

// text writes s at (x, y) in font, mul times wider and taller, made to fit
// width dots.
func (e *epl) text(x, y, font, mul int, s string, width int) {
	if s == "" {
		return
	}
	mul, s = fitEPL(font, mul, s, width)
	e.b.WriteString(fmt.Sprintf("A%d,%d,0,%d,%d,%d,N,\"", x, y, font, mul, mul))
	e.b.Write(e.encode(eplQuote(s)))
	e.b.WriteString("\"\n")
}

func (e *epl) textRight(right, y, font, mul int, s string, width int) {
	mul, s = fitEPL(font, mul, s, width)
	e.text(max(right-len([]rune(s))*eplAdvance(font)*mul, 0), y, font, mul, s, width)
}

func (e *epl) textCenter(center, y, font, mul int, s string, width int) {
	mul, s = fitEPL(font, mul, s, width)
	e.text(max(center-len([]rune(s))*eplAdvance(font)*mul/2, 0), y, font, mul, s, width)
}

// eplQuote escapes what would end or bend a quoted EPL field.
func eplQuote(s string) string { return eplQuoter.Replace(s) }

// eplQuoter is built once, as zplEscaper is.
var eplQuoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func (e *epl) encode(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if b, ok := e.cp.cm.EncodeRune(r); ok {
			out = append(out, b)
			continue
		}
		out = append(out, '?')
	}
	return out
}

// pickCodePage prefers Central European and falls back to Western when that
// one prints more of the label's text.
func pickCodePage(l ParcelLabel) eplCodePage {
	all := strings.Join([]string{l.Carrier, l.Product, l.Reference, l.COD,
		fmt.Sprint(l.Sender), fmt.Sprint(l.Recipient)}, " ")
	missing := func(cm *charmap.Charmap) int {
		n := 0
		for _, r := range all {
			if _, ok := cm.EncodeRune(r); !ok {
				n++
			}
		}
		return n
	}
	if missing(eplWestern.cm) < missing(eplCentral.cm) {
		return eplWestern
	}
	return eplCentral
}
