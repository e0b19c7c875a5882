package labels

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"testing"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// TestSubsetIsAFontWithTheGlyphsItNeeds reads a subset font file back as a
// font reader would: it parses, its checksums hold, the glyphs asked for
// (and the parts of composite ones) have their outlines and others have
// none.
func TestSubsetIsAFontWithTheGlyphsItNeeds(t *testing.T) {
	fonts, err := pdfFonts()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fonts {
		var asked []uint16
		for _, r := range "Žluťoučký kůň 602 00 Brno" {
			g, _ := f.glyph(r)
			asked = append(asked, g)
		}
		pieces, length := f.subset(asked)
		var z bytes.Buffer
		zlibStream(&z, pieces...)
		r, err := zlib.NewReader(&z)
		if err != nil {
			t.Fatal(err)
		}
		file, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("font %d: the deflated subset does not inflate: %v", i, err)
		}
		if len(file) != length {
			t.Errorf("font %d: subset is %d bytes, said to be %d", i, len(file), length)
		}
		if sum := tableSum(file); sum != 0xB1B0AFBA {
			t.Errorf("font %d: whole-file checksum %#x, want 0xB1B0AFBA", i, sum)
		}
		n := int(binary.BigEndian.Uint16(file[4:]))
		for k := range n {
			rec := file[12+16*k:]
			off, size := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
			table := bytes.Clone(file[off : off+size])
			if string(rec[:4]) == "head" {
				binary.BigEndian.PutUint32(table[8:], 0)
			}
			if got, want := tableSum(table), binary.BigEndian.Uint32(rec[4:]); got != want {
				t.Errorf("font %d: table %s checksum %#x, directory says %#x", i, rec[:4], got, want)
			}
		}

		parsed, err := sfnt.Parse(file)
		if err != nil {
			t.Fatalf("font %d: subset does not parse: %v", i, err)
		}
		keep := f.closure(asked)
		var buf sfnt.Buffer
		for g := range f.glyphs {
			segs, err := parsed.LoadGlyph(&buf, sfnt.GlyphIndex(g), fixed.I(f.unitsPerEm), nil)
			if err != nil {
				t.Fatalf("font %d glyph %d: %v", i, g, err)
			}
			if has := len(segs) > 0; keep[g] && len(f.glyphs[g]) > 0 && !has || !keep[g] && has {
				t.Errorf("font %d glyph %d: kept %v, has an outline %v", i, g, keep[g], has)
			}
		}
	}
}

// The Go fonts have no composite glyphs, so their parts are read here from
// a composite glyph written by hand: three components, with word
// arguments, a scale, and a two-by-two matrix.
func TestCompositeParts(t *testing.T) {
	g := []byte{0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0} // -1 contours, bounding box
	g = append(g, 0x00, 0x29, 0, 7, 0, 1, 0, 2)     // words, scale, more
	g = append(g, 0x40, 0x00)
	g = append(g, 0x00, 0xa0, 0, 9, 1, 2) // two by two, more
	g = append(g, 0, 0, 0, 0, 0, 0, 0, 0)
	g = append(g, 0x00, 0x00, 0, 11, 3, 4) // byte arguments, last
	parts, err := compositeParts(g)
	if err != nil || len(parts) != 3 || parts[0] != 7 || parts[1] != 9 || parts[2] != 11 {
		t.Errorf("parts = %v, %v; want [7 9 11]", parts, err)
	}
	if _, err := compositeParts(g[:len(g)-6]); err == nil {
		t.Error("a composite glyph cut short is read without an error")
	}
	if parts, err := compositeParts([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0}); parts != nil || err != nil {
		t.Errorf("a simple glyph has parts %v, %v", parts, err)
	}
}
