package labels

import (
	"encoding/binary"
	"slices"
)

// A subset font file is laid out as its table directory, then head, loca
// and glyf, the tables a label's glyphs make, then the tables every label
// copies from the font as they are (deflated once per process,
// fixedTables). The directory lists them by tag as OpenType asks; their
// order in the file is free.
type fixedTables struct {
	piece zlibPiece         // the tables, each padded to 4 bytes, deflated
	at    map[string]int    // offset of each in piece.data
	sums  map[string]uint32 // checksum of each
}

func (f *ttfFont) prepareFixedTables() {
	var data []byte
	f.fixed = fixedTables{at: map[string]int{}, sums: map[string]uint32{}}
	for _, tag := range keptTables {
		t, ok := f.tables[tag]
		if !ok || tag == "head" || tag == "loca" || tag == "glyf" {
			continue
		}
		f.fixed.at[tag], f.fixed.sums[tag] = len(data), tableSum(t)
		data = append(data, t...)
		data = append(data, make([]byte, pad4(len(t))-len(t))...)
	}
	f.fixed.piece = deflatePiece(data)
}

// subset is a font file holding the outlines of glyphs (and of the glyphs
// they are built of), as the pieces of its zlib stream, and its length.
// Every glyph keeps its id, the others are empty, so the PDF's character
// codes can be the glyph ids (/CIDToGIDMap /Identity).
func (f *ttfFont) subset(glyphs []uint16) ([]zlibPiece, int) {
	glyf, loca := f.glyfAndLoca(f.closure(glyphs))
	head := slices.Clone(f.tables["head"])
	binary.BigEndian.PutUint32(head[8:], 0) // checkSumAdjustment, set below

	n := 0
	for _, tag := range keptTables {
		if _, ok := f.tables[tag]; ok {
			n++
		}
	}
	dir := make([]byte, 12+16*n)
	binary.BigEndian.PutUint32(dir, 0x00010000)
	selector := 0
	for 2<<selector <= n {
		selector++
	}
	binary.BigEndian.PutUint16(dir[4:], uint16(n))
	binary.BigEndian.PutUint16(dir[6:], uint16(16<<selector))
	binary.BigEndian.PutUint16(dir[8:], uint16(selector))
	binary.BigEndian.PutUint16(dir[10:], uint16(16*n-16<<selector))

	madeAt := len(dir)
	made := make([]byte, 0, pad4(len(head))+pad4(len(loca))+pad4(len(glyf)))
	type madeTable struct {
		at, length int
		sum        uint32
	}
	tables := map[string]madeTable{}
	for _, t := range []struct {
		tag  string
		data []byte
	}{{"head", head}, {"loca", loca}, {"glyf", glyf}} {
		tables[t.tag] = madeTable{madeAt + len(made), len(t.data), tableSum(t.data)}
		made = append(made, t.data...)
		made = append(made, make([]byte, pad4(len(t.data))-len(t.data))...)
	}
	fixedAt := madeAt + len(made)
	for tag, at := range f.fixed.at {
		tables[tag] = madeTable{fixedAt + at, len(f.tables[tag]), f.fixed.sums[tag]}
	}

	rec, total := 12, uint32(0)
	for _, tag := range keptTables {
		t, ok := tables[tag]
		if !ok {
			continue
		}
		copy(dir[rec:], tag)
		binary.BigEndian.PutUint32(dir[rec+4:], t.sum)
		binary.BigEndian.PutUint32(dir[rec+8:], uint32(t.at))
		binary.BigEndian.PutUint32(dir[rec+12:], uint32(t.length))
		rec += 16
		total += t.sum
	}
	// head is the first of the tables made here.
	binary.BigEndian.PutUint32(made[8:], 0xB1B0AFBA-(total+tableSum(dir)))
	return []zlibPiece{{data: append(dir, made...)}, f.fixed.piece}, fixedAt + len(f.fixed.piece.data)
}

// closure marks glyphs, .notdef and every glyph a composite one among them
// draws.
func (f *ttfFont) closure(glyphs []uint16) []bool {
	keep := make([]bool, len(f.glyphs))
	stack := append([]uint16{0}, glyphs...)
	for len(stack) > 0 {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if int(g) >= len(keep) || keep[g] {
			continue
		}
		keep[g] = true
		stack = append(stack, f.components[g]...)
	}
	return keep
}

// glyfAndLoca are the outlines of the kept glyphs and the offsets of every
// glyph's, in the font's own loca format (a subset is never larger than the
// font, so the short one still reaches).
func (f *ttfFont) glyfAndLoca(keep []bool) (glyf, loca []byte) {
	at := 0
	for g, kept := range keep {
		loca = f.appendLoca(loca, at)
		if kept {
			glyf = append(glyf, f.glyphs[g]...)
			if len(glyf)%2 == 1 { // a short loca counts in 2-byte steps
				glyf = append(glyf, 0)
			}
			at = len(glyf)
		}
	}
	return glyf, f.appendLoca(loca, at)
}

func (f *ttfFont) appendLoca(loca []byte, offset int) []byte {
	if f.shortLoca {
		return binary.BigEndian.AppendUint16(loca, uint16(offset/2))
	}
	return binary.BigEndian.AppendUint32(loca, uint32(offset))
}

func pad4(n int) int { return (n + 3) &^ 3 }

// tableSum is the OpenType checksum: the sum of big-endian 32-bit words,
// the last one padded with zeros.
func tableSum(b []byte) uint32 {
	var sum uint32
	for len(b) >= 4 {
		sum += binary.BigEndian.Uint32(b)
		b = b[4:]
	}
	var last [4]byte
	copy(last[:], b)
	return sum + binary.BigEndian.Uint32(last[:])
}
