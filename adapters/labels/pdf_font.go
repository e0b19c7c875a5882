package labels

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
)

// The label's two typefaces, read once per process: parsing a font was a
// tenth of every PDF label's time.
var pdfFonts = sync.OnceValues(func() ([2]*ttfFont, error) {
	var out [2]*ttfFont
	for i, data := range [][]byte{goregular.TTF, gobold.TTF} {
		f, err := parseTTF(data)
		if err != nil {
			return out, fmt.Errorf("pdf label: load font: %w", err)
		}
		out[i] = f
	}
	return out, nil
})

// pdfFontNames are the fonts' PostScript names, by the index of pdfFonts.
var pdfFontNames = [2]string{"GoRegular", "GoBold"}

// fontUse is what one document prints in one font: the glyphs and the
// character each stands for, which the font objects are written from.
type fontUse struct {
	font  *ttfFont
	name  string
	chars map[uint16]rune
}

func newFontUse(f *ttfFont, name string) *fontUse {
	return &fontUse{font: f, name: name, chars: map[uint16]rune{}}
}

// appendText appends s as the hex string of its glyph ids (the font is
// encoded Identity-H) and records the glyphs as used.
func (u *fontUse) appendText(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '<')
	for _, r := range s {
		g, shown := u.font.glyph(r)
		if _, ok := u.chars[g]; !ok {
			u.chars[g] = shown
		}
		b = append(b, hex[g>>12], hex[g>>8&15], hex[g>>4&15], hex[g&15])
	}
	return append(b, '>')
}

// width is s's advance at size points.
func (u *fontUse) width(s string, size float64) float64 {
	units := 0
	for _, r := range s {
		g, _ := u.font.glyph(r)
		units += u.font.advances[g]
	}
	return float64(units) * size / float64(u.font.unitsPerEm)
}

// ascent is how far the top of a line of size points lies above its
// baseline, as the font's designers set it for text layout.
func (u *fontUse) ascent(size float64) float64 {
	return float64(u.font.typoAscent) * size / float64(u.font.unitsPerEm)
}

// writeObjects writes the font's five objects, numbered first to first+4:
// the Type 0 font the page names, its CID font, the descriptor, the font
// file and the character map text extraction reads.
func (u *fontUse) writeObjects(d *pdfWriter, first int) {
	glyphs := slices.Sorted(maps.Keys(u.chars))
	f := u.font
	base := subsetTag(glyphs) + "+" + u.name
	d.object(first, fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /%s /Encoding /Identity-H "+
		"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>", base, first+1, first+4))
	d.object(first+1, fmt.Sprintf("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /%s "+
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "+
		"/FontDescriptor %d 0 R /CIDToGIDMap /Identity /W %s >>", base, first+2, u.widths(glyphs)))
	em := func(v int) int { return v * 1000 / f.unitsPerEm }
	d.object(first+2, fmt.Sprintf("<< /Type /FontDescriptor /FontName /%s /Flags 32 /FontBBox [%d %d %d %d] "+
		"/ItalicAngle %s /Ascent %d /Descent %d /CapHeight %d /StemV 80 /FontFile2 %d 0 R >>",
		base, em(f.bbox[0]), em(f.bbox[1]), em(f.bbox[2]), em(f.bbox[3]),
		strconv.FormatFloat(f.italicAngle, 'f', -1, 64), em(f.ascent), em(f.descent), em(f.capHeight), first+3))
	file, length := f.subset(glyphs)
	d.stream(first+3, fmt.Sprintf("/Length1 %d", length), file...)
	d.stream(first+4, "", zlibPiece{data: u.toUnicode(glyphs)})
}

// widths is the /W array: runs of consecutive glyph ids with their widths.
func (u *fontUse) widths(glyphs []uint16) string {
	b := []byte{'['}
	for i, g := range glyphs {
		if i == 0 || glyphs[i-1] != g-1 {
			if i > 0 {
				b = append(b, "] "...)
			}
			b = strconv.AppendUint(b, uint64(g), 10)
			b = append(b, " ["...)
		} else {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(u.font.pdfWidth(g)), 10)
	}
	if len(glyphs) > 0 {
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

// toUnicode is the CMap that maps each glyph back to its character, so the
// label's text can be searched and copied (PDF 32000-1, 9.10.3).
func (u *fontUse) toUnicode(glyphs []uint16) []byte {
	b := []byte("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n" +
		"1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	for len(glyphs) > 0 {
		n := min(len(glyphs), 100) // the most one bfchar block may hold
		b = fmt.Appendf(b, "%d beginbfchar\n", n)
		for _, g := range glyphs[:n] {
			b = fmt.Appendf(b, "<%04X> <", g)
			for _, unit := range utf16.Encode([]rune{u.chars[g]}) {
				b = fmt.Appendf(b, "%04X", unit)
			}
			b = append(b, ">\n"...)
		}
		b = append(b, "endbfchar\n"...)
		glyphs = glyphs[n:]
	}
	return append(b, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"...)
}

// subsetTag is the six capital letters a subset font's name starts with
// (PDF 32000-1, 9.6.4), taken from the glyphs it holds so the same label
// comes out byte for byte the same.
func subsetTag(glyphs []uint16) string {
	h := fnv.New32a()
	for _, g := range glyphs {
		h.Write([]byte{byte(g >> 8), byte(g)})
	}
	sum := h.Sum32()
	tag := make([]byte, 6)
	for i := range tag {
		tag[i] = 'A' + byte(sum%26)
		sum /= 26
	}
	return string(tag)
}
