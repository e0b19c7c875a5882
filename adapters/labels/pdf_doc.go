package labels

import (
	"fmt"
	"strings"
)

// pdfDoc is a PDF being drawn: pages of one size, and the glyphs they print
// of each font, which all its pages share (a font is embedded once, with
// every glyph any page prints).
type pdfDoc struct {
	widthPt, heightPt float64
	fonts             [2]*fontUse // regular, bold
	pages             []*pdfPage
}

func newPDFDoc(widthPt, heightPt float64) (*pdfDoc, error) {
	fonts, err := pdfFonts()
	if err != nil {
		return nil, err
	}
	d := &pdfDoc{widthPt: widthPt, heightPt: heightPt}
	for i, f := range fonts {
		d.fonts[i] = newFontUse(f, pdfFontNames[i])
	}
	return d, nil
}

// newPage adds a page to draw on, its content buffer sized for about
// capacity bytes.
func (d *pdfDoc) newPage(capacity int) *pdfPage {
	p := &pdfPage{content: make([]byte, 0, capacity), fonts: d.fonts, heightPt: d.heightPt}
	d.pages = append(d.pages, p)
	return p
}

// The document's objects: the catalog, the page tree, each page followed by
// its content, the document info, then five for each font
// (fontUse.writeObjects). A one-page document numbers them as the labels
// always did.
const (
	objCatalog = 1 + iota
	objPages
	objFirstPage
	fontObjects = 5
)

// write returns the document's file, titled title; the first drawing error
// of a page, if any.
func (d *pdfDoc) write(title string) ([]byte, error) {
	size := 0
	for _, p := range d.pages {
		if p.err != nil {
			return nil, p.err
		}
		size += len(p.content)
	}
	objInfo := objFirstPage + 2*len(d.pages)
	objFonts := objInfo + 1
	w := newPDFWriter(objFonts+fontObjects*len(d.fonts)-1, size/3)
	w.object(objCatalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", objPages))
	kids := make([]string, len(d.pages))
	for i := range d.pages {
		kids[i] = fmt.Sprintf("%d 0 R", objFirstPage+2*i)
	}
	w.object(objPages, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(d.pages)))
	fontRefs := ""
	for i := range d.fonts {
		fontRefs += fmt.Sprintf(" /F%d %d 0 R", i+1, objFonts+fontObjects*i)
	}
	for i, p := range d.pages {
		obj := objFirstPage + 2*i
		w.object(obj, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %s %s] "+
			"/Resources << /Font <<%s >> /ProcSet [/PDF /Text] >> /Contents %d 0 R >>",
			objPages, num(d.widthPt), num(d.heightPt), fontRefs, obj+1))
		w.stream(obj+1, "", zlibPiece{data: p.content})
	}
	w.object(objInfo, fmt.Sprintf("<< /Title %s /Creator (shipd) /Producer (shipd) >>", pdfString(title)))
	for i, u := range d.fonts {
		u.writeObjects(w, objFonts+fontObjects*i)
	}
	return w.finish(objCatalog, objInfo), nil
}
