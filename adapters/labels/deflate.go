package labels

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"sync"
)

// zlibPiece is a part of a zlib stream's data; deflated, when set, is that
// data deflated once already (flushed blocks that may follow any other and
// that refer back to nothing before them), which the stream then copies.
type zlibPiece struct {
	data, deflated []byte
}

// deflatePiece deflates data into blocks a zlibPiece can be joined from.
func deflatePiece(data []byte) zlibPiece {
	var b bytes.Buffer
	z := flaters.Get().(*flate.Writer)
	defer flaters.Put(z)
	z.Reset(&b)
	z.Write(data) // writes to a bytes.Buffer, which does not fail
	z.Flush()
	return zlibPiece{data: data, deflated: b.Bytes()}
}

// zlibStream appends to out the zlib stream (RFC 1950) of the pieces' data
// in order; the pieces not deflated yet are deflated here.
func zlibStream(out *bytes.Buffer, pieces ...zlibPiece) {
	z := flaters.Get().(*flate.Writer)
	defer flaters.Put(z)
	out.Write([]byte{0x78, 0x01}) // deflate, 32 KB window, fastest
	sum := adler32.New()
	fresh := false // whether z holds a run of pieces deflated here
	for _, p := range pieces {
		sum.Write(p.data)
		if p.deflated != nil {
			if fresh {
				z.Flush()
				fresh = false
			}
			out.Write(p.deflated)
			continue
		}
		if !fresh {
			z.Reset(out)
			fresh = true
		}
		z.Write(p.data) // writes to a bytes.Buffer, which does not fail
	}
	if !fresh {
		z.Reset(out) // its Close writes the empty last block
	}
	z.Close()
	out.Write(binary.BigEndian.AppendUint32(nil, sum.Sum32()))
}

// flaters are reused deflaters. A new one allocates some 800 KB of tables,
// and gopdf made three to five per label, most of a label's time; the
// fastest level also resets in no time, where the others clear their hash
// tables on every Reset.
var flaters = sync.Pool{New: func() any {
	z, _ := flate.NewWriter(nil, flate.BestSpeed) // a valid level: no error
	return z
}}
