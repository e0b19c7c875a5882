package labels

import (
	"math"
	"strconv"
)

// pdfPage is one page being drawn: its content stream, and the fonts of its
// document, which record the glyphs it prints. The drawing code measures in
// millimetres from the top-left corner, PDF in points from the bottom-left.
type pdfPage struct {
	content  []byte
	fonts    [2]*fontUse // regular, bold
	heightPt float64
	err      error // first drawing error; later calls do nothing
}

func mm(v float64) float64 { return v * 72 / 25.4 }

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

// whole writes s entire, at size or as much smaller as makes it at most
// maxMM wide: for numbers and codes, which fit's shortening would misstate.
// align places it: 0 starts it at x, 0.5 centres it there, 1 ends it there.
func (p *pdfPage) whole(x, y, size float64, bold bool, s string, maxMM, align float64) {
	font, _ := p.font(bold)
	if w := font.width(s, size); w > mm(maxMM) {
		size *= mm(maxMM) / w
	}
	p.put(mm(x)-align*font.width(s, size), y, size, bold, s)
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
	b = appendNums(b, x, p.heightPt-mm(y)-font.ascent(size))
	b = append(b, " Td "...)
	b = font.appendText(b, s)
	p.content = append(b, " Tj ET\n"...)
}

func (p *pdfPage) line(x1, y1, x2, y2, widthPt float64) {
	b := appendNums(p.content, widthPt)
	b = append(b, " w "...)
	b = appendNums(b, mm(x1), p.heightPt-mm(y1))
	b = append(b, " m "...)
	b = appendNums(b, mm(x2), p.heightPt-mm(y2))
	p.content = append(b, " l S\n"...)
}

func (p *pdfPage) box(x, y, w, h, widthPt float64) {
	b := appendNums(p.content, widthPt)
	b = append(b, " w "...)
	b = appendNums(b, mm(x), p.heightPt-mm(y+h), mm(w), mm(h))
	p.content = append(b, " re S\n"...)
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
