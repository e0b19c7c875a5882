package labels

import (
	"bytes"
	"fmt"
)

// pdfWriter writes a PDF file's numbered objects and, at the end, the
// cross-reference table that finds them.
type pdfWriter struct {
	b       bytes.Buffer
	offsets []int // by object number; 0 is the free-list head
	scratch bytes.Buffer
}

// newPDFWriter starts a file of objects objects, its buffer grown for
// about size bytes besides the fonts (a label's file is some 24 KB).
func newPDFWriter(objects, size int) *pdfWriter {
	w := &pdfWriter{offsets: make([]int, objects+1)}
	w.b.Grow(24<<10 + size)
	// The comment of four bytes above 127 tells transfer programs the file
	// is binary.
	w.b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	return w
}

func (w *pdfWriter) object(n int, dict string) {
	w.offsets[n] = w.b.Len()
	fmt.Fprintf(&w.b, "%d 0 obj\n%s\nendobj\n", n, dict)
}

// stream writes object n as a stream of the pieces' data, deflated; extra
// are more entries of its dictionary.
func (w *pdfWriter) stream(n int, extra string, pieces ...zlibPiece) {
	w.scratch.Reset()
	zlibStream(&w.scratch, pieces...)
	w.offsets[n] = w.b.Len()
	fmt.Fprintf(&w.b, "%d 0 obj\n<< /Length %d /Filter /FlateDecode %s>>\nstream\n", n, w.scratch.Len(), extra)
	w.b.Write(w.scratch.Bytes())
	w.b.WriteString("\nendstream\nendobj\n")
}

// finish writes the cross-reference table and the trailer naming the
// catalog and info objects.
func (w *pdfWriter) finish(root, info int) []byte {
	xref := w.b.Len()
	fmt.Fprintf(&w.b, "xref\n0 %d\n0000000000 65535 f \n", len(w.offsets))
	for _, off := range w.offsets[1:] {
		w.b.WriteString(fmt.Sprintf("%010d", off))
		w.b.WriteString(" 00000 n \n")
	}
	fmt.Fprintf(&w.b, "trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n",
		len(w.offsets), root, info, xref)
	return w.b.Bytes()
}

// pdfString is s as a PDF literal string.
func pdfString(s string) string {
	b := []byte{'('}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', ')', '\\':
			b = append(b, '\\', c)
		default:
			if c < 0x20 || c > 0x7e {
				b = fmt.Appendf(b, "\\%03o", c)
				continue
			}
			b = append(b, c)
		}
	}
	return string(append(b, ')'))
}
