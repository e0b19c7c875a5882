package labels

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/image/font/sfnt"
)

// ttfFont is a TrueType font taken apart once per process: the tables a
// PDF embedding keeps, each glyph's outline and the glyphs it is built of,
// the advance widths and the glyph of every character, so that a label
// only picks the glyphs it prints.
type ttfFont struct {
	tables     map[string][]byte // by tag, slices of the font file
	unitsPerEm int
	shortLoca  bool
	glyphs     [][]byte   // outline data by glyph id
	components [][]uint16 // glyphs a composite glyph draws, by glyph id
	advances   []int      // by glyph id, font units
	glyphOf    map[rune]uint16
	fixed      fixedTables

	ascent, descent, typoAscent, capHeight int
	bbox                                   [4]int
	italicAngle                            float64
}

// keptTables are the tables a PDF viewer reads from an embedded TrueType
// font (PDF 32000-1, 9.9), and the character map and PostScript table,
// which the PDF does not use but font readers ask for; sorted, as the table
// directory lists them.
var keptTables = []string{"cmap", "cvt ", "fpgm", "glyf", "head", "hhea", "hmtx", "loca", "maxp", "post", "prep"}

var errShortFont = errors.New("truncated font file")

func parseTTF(data []byte) (*ttfFont, error) {
	f := &ttfFont{tables: map[string][]byte{}}
	all, err := tableDirectory(data)
	if err != nil {
		return nil, err
	}
	for _, tag := range []string{"head", "hhea", "maxp", "hmtx", "loca", "glyf", "OS/2", "post"} {
		if all[tag] == nil {
			return nil, fmt.Errorf("font has no %q table", tag)
		}
	}
	for _, tag := range keptTables {
		if t, ok := all[tag]; ok {
			f.tables[tag] = t
		}
	}
	head, hhea, maxp, os2, post := all["head"], all["hhea"], all["maxp"], all["OS/2"], all["post"]
	if len(head) < 54 || len(hhea) < 36 || len(maxp) < 6 || len(os2) < 72 || len(post) < 32 {
		return nil, errShortFont
	}
	f.unitsPerEm = int(u16(head, 18))
	f.bbox = [4]int{int(i16(head, 36)), int(i16(head, 38)), int(i16(head, 40)), int(i16(head, 42))}
	f.shortLoca = i16(head, 50) == 0
	f.ascent, f.descent = int(i16(hhea, 4)), int(i16(hhea, 6))
	f.typoAscent = int(i16(os2, 68))
	f.capHeight = f.ascent
	if u16(os2, 0) >= 2 && len(os2) >= 90 {
		f.capHeight = int(i16(os2, 88))
	}
	f.italicAngle = float64(int32(binary.BigEndian.Uint32(post[4:]))) / 65536
	// Version 3 of post: its header without the glyph names, a third of
	// the size of a label's glyphs.
	f.tables["post"] = binary.BigEndian.AppendUint32(nil, 0x00030000)
	f.tables["post"] = append(f.tables["post"], post[4:32]...)
	if f.unitsPerEm == 0 {
		return nil, errors.New("font has 0 units per em")
	}
	if err := f.readGlyphs(int(u16(maxp, 4)), all["loca"], all["glyf"]); err != nil {
		return nil, err
	}
	if err := f.readAdvances(int(u16(hhea, 34)), all["hmtx"]); err != nil {
		return nil, err
	}
	f.prepareFixedTables()
	return f, f.readCharacterMap(data)
}

// tableDirectory reads the tables of a font file by tag.
func tableDirectory(data []byte) (map[string][]byte, error) {
	if len(data) < 12 {
		return nil, errShortFont
	}
	n := int(u16(data, 4))
	if len(data) < 12+16*n {
		return nil, errShortFont
	}
	out := make(map[string][]byte, n)
	for i := range n {
		rec := data[12+16*i:]
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(length) > uint64(len(data)) {
			return nil, fmt.Errorf("font table %q lies past the end of the file", rec[:4])
		}
		out[string(rec[:4])] = data[off : off+length : off+length]
	}
	return out, nil
}

func (f *ttfFont) readGlyphs(n int, loca, glyf []byte) error {
	offset := func(i int) int {
		if f.shortLoca {
			return 2 * int(u16(loca, 2*i))
		}
		return int(binary.BigEndian.Uint32(loca[4*i:]))
	}
	if f.shortLoca && len(loca) < 2*(n+1) || !f.shortLoca && len(loca) < 4*(n+1) {
		return errShortFont
	}
	f.glyphs, f.components = make([][]byte, n), make([][]uint16, n)
	for g := range n {
		from, to := offset(g), offset(g+1)
		if from > to || to > len(glyf) {
			return fmt.Errorf("glyph %d lies outside the glyf table", g)
		}
		f.glyphs[g] = glyf[from:to:to]
		parts, err := compositeParts(f.glyphs[g])
		if err != nil {
			return fmt.Errorf("glyph %d: %w", g, err)
		}
		f.components[g] = parts
	}
	return nil
}

// compositeParts lists the glyphs a composite glyph is drawn from (OpenType
// glyf table, "Composite glyph description"); a simple glyph has none.
func compositeParts(g []byte) ([]uint16, error) {
	if len(g) < 10 || i16(g, 0) >= 0 {
		return nil, nil
	}
	const (
		argsAreWords   = 0x0001
		haveScale      = 0x0008
		moreComponents = 0x0020
		haveXYScale    = 0x0040
		haveTwoByTwo   = 0x0080
	)
	var parts []uint16
	for p := 10; ; {
		if p+4 > len(g) {
			return nil, errShortFont
		}
		flags := u16(g, p)
		parts = append(parts, u16(g, p+2))
		p += 4 + 2
		if flags&argsAreWords != 0 {
			p += 2
		}
		switch {
		case flags&haveScale != 0:
			p += 2
		case flags&haveXYScale != 0:
			p += 4
		case flags&haveTwoByTwo != 0:
			p += 8
		}
		if flags&moreComponents == 0 {
			return parts, nil
		}
	}
}

func (f *ttfFont) readAdvances(metrics int, hmtx []byte) error {
	if metrics == 0 || len(hmtx) < 4*metrics {
		return errShortFont
	}
	f.advances = make([]int, len(f.glyphs))
	for g := range f.advances {
		f.advances[g] = int(u16(hmtx, 4*min(g, metrics-1)))
	}
	return nil
}

// readCharacterMap asks the font for the glyph of every character of the
// Basic Multilingual Plane once, so a label looks them up in a map.
func (f *ttfFont) readCharacterMap(data []byte) error {
	font, err := sfnt.Parse(data)
	if err != nil {
		return err
	}
	var buf sfnt.Buffer
	f.glyphOf = map[rune]uint16{}
	for r := rune(0x20); r <= 0xffff; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		g, err := font.GlyphIndex(&buf, r)
		if err != nil {
			return err
		}
		if g != 0 && int(g) < len(f.glyphs) {
			f.glyphOf[r] = uint16(g)
		}
	}
	if _, ok := f.glyphOf[' ']; !ok {
		return errors.New("font has no space")
	}
	return nil
}

// glyph is the glyph that prints r: a space for a character the font lacks,
// as a label is better with a gap than with a box.
func (f *ttfFont) glyph(r rune) (uint16, rune) {
	if g, ok := f.glyphOf[r]; ok {
		return g, r
	}
	return f.glyphOf[' '], ' '
}

// pdfWidth is a glyph's advance in the thousandths of an em a PDF font's
// widths are given in.
func (f *ttfFont) pdfWidth(g uint16) int {
	return (f.advances[g]*1000 + f.unitsPerEm/2) / f.unitsPerEm
}

func u16(b []byte, at int) uint16 { return binary.BigEndian.Uint16(b[at:]) }
func i16(b []byte, at int) int16  { return int16(binary.BigEndian.Uint16(b[at:])) }
