package labels_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"golang.org/x/text/encoding/charmap"

	"shipd/adapters/labels"
)

// The tests read PDFs back with pdfcpu, poppler (pdftoppm, pdftotext) and
// zbar (zbarimg): Debian packages poppler-utils and zbar-tools.

func TestMain(m *testing.M) {
	// pdfcpu would otherwise write its config directory into $HOME.
	api.DisableConfigDir()
	os.Exit(m.Run())
}

const special = `Žluťoučký kůň ^XZ ~JA "quoted" back\slash_under`

var trackingNumbers = []string{"SB473124829CZ", "SB000000014CZ", "SB999999995CZ"}

func parcel(i int) labels.ParcelLabel {
	return labels.ParcelLabel{
		Carrier:        "Sandbox carrier",
		Product:        "STANDARD_COD",
		TrackingNumber: trackingNumbers[i],
		Sender: labels.Party{Name: "Jan Novák", Company: "Novák & syn s.r.o.", Street: "Dlouhá", HouseNumber: "12/3",
			PostalCode: "110 00", City: "Praha", CountryCode: "CZ", Phone: "+420 777 123 456"},
		Recipient: labels.Party{Name: "Petra Svobodová", Street: "Náměstí Míru", HouseNumber: "5",
			PostalCode: "602 00", City: "Brno", CountryCode: "CZ", Phone: "+420 608 000 111"},
		ParcelIndex:  i + 1,
		ParcelCount:  3,
		Weight:       fmt.Sprintf("%d.50 KG", i+1),
		Reference:    "ORDER-2026-0001",
		COD:          "125.50 CZK",
		ShippingDate: "2026-11-21",
	}
}

func specialParcel() labels.ParcelLabel {
	l := parcel(0)
	l.Recipient.Name = special
	l.Recipient.Company = special
	l.Sender.Name = special
	l.Reference = `ref ^FS~"` + "\n^XZ"
	return l
}

func renderAll(t *testing.T, format string) [][]byte {
	t.Helper()
	var parts [][]byte
	for i := range trackingNumbers {
		b, err := labels.Render(format, parcel(i))
		if err != nil {
			t.Fatalf("Render(%s, parcel %d): %v", format, i, err)
		}
		parts = append(parts, b)
	}
	return parts
}

func merged(t *testing.T, format string) []byte {
	t.Helper()
	out, err := labels.Merge(format, renderAll(t, format))
	if err != nil {
		t.Fatalf("Merge(%s): %v", format, err)
	}
	return out
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian packages poppler-utils and zbar-tools): %v", tool, err)
		}
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	return string(out)
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rasterize renders every page at 300 dpi and returns the PNG paths in page
// order.
func rasterize(t *testing.T, pdf []byte) []string {
	t.Helper()
	need(t, "pdftoppm")
	dir := t.TempDir()
	run(t, "pdftoppm", "-r", "300", "-png", writeTemp(t, "in.pdf", pdf), filepath.Join(dir, "page"))
	pages, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	pageNo := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "page-"), ".png"))
		return n
	}
	sort.Slice(pages, func(i, j int) bool { return pageNo(pages[i]) < pageNo(pages[j]) })
	return pages
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestPDFMergedParcelsArePagesWithTheirBarcodes(t *testing.T) {
	need(t, "pdftoppm", "zbarimg")
	pdf := merged(t, "pdf")

	if err := api.Validate(bytes.NewReader(pdf), nil); err != nil {
		t.Fatalf("merged PDF does not validate: %v", err)
	}
	n, err := api.PageCount(bytes.NewReader(pdf), nil)
	if err != nil || n != 3 {
		t.Fatalf("page count = %d, %v; want 3", n, err)
	}
	dims, err := api.PageDims(bytes.NewReader(pdf), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dims {
		mmDim := d.ToMillimetres()
		if math.Abs(mmDim.Width-100) > 0.1 || math.Abs(mmDim.Height-150) > 0.1 {
			t.Errorf("page %d is %.2f × %.2f mm, want 100 × 150", i+1, mmDim.Width, mmDim.Height)
		}
	}

	pages := rasterize(t, pdf)
	if len(pages) != 3 {
		t.Fatalf("pdftoppm made %d pages, want 3", len(pages))
	}
	for i, page := range pages {
		got := strings.Fields(run(t, "zbarimg", "--raw", "-q", page))
		if len(got) != 1 || got[0] != trackingNumbers[i] {
			t.Errorf("page %d barcodes = %q, want [%s]", i+1, got, trackingNumbers[i])
		}
	}
}

// TestPDFBarcodeSize measures the printed barcode: at least 70 mm of bars,
// at least 20 mm high.
func TestPDFBarcodeSize(t *testing.T) {
	pdf, err := labels.Render("pdf", parcel(0))
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, rasterize(t, pdf)[0])
	pxPerMM := 300 / 25.4
	dark := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return (r+g+b)/3 < 0x8000
	}
	// The bars are drawn from 118 mm down; take the row through their middle.
	row := int(129 * pxPerMM)
	b := img.Bounds()
	left, right := -1, -1
	for x := b.Min.X; x < b.Max.X; x++ {
		if dark(x, row) {
			if left < 0 {
				left = x
			}
			right = x
		}
	}
	if left < 0 {
		t.Fatal("no bars at 129 mm")
	}
	if w := float64(right-left+1) / pxPerMM; w < 70 || w > 92 {
		t.Errorf("bars are %.1f mm wide, want 70..92", w)
	}
	if q := float64(left) / pxPerMM; q < 4 {
		t.Errorf("quiet zone left of the bars is %.1f mm", q)
	}
	top, bottom := row, row
	for top > b.Min.Y && dark(left, top-1) {
		top--
	}
	for bottom < b.Max.Y-1 && dark(left, bottom+1) {
		bottom++
	}
	if h := float64(bottom-top+1) / pxPerMM; h < 20 {
		t.Errorf("bars are %.1f mm high, want at least 20", h)
	}
}

func TestPDFPrintsEveryField(t *testing.T) {
	need(t, "pdftotext")
	l := specialParcel()
	pdf, err := labels.Render("pdf", l)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Validate(bytes.NewReader(pdf), nil); err != nil {
		t.Fatalf("PDF does not validate: %v", err)
	}
	text := run(t, "pdftotext", "-raw", writeTemp(t, "l.pdf", pdf), "-")
	for _, want := range []string{"Žluťoučký kůň", "Sandbox carrier", "STANDARD_COD", "SB473124829CZ",
		"1/3", "1.50 KG", "2026-11-21", "COD", "125.50 CZK", "Dlouhá 12/3", "602 00 Brno", "Náměstí Míru 5", "ref ^FS~\""} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q:\n%s", want, text)
		}
	}

	l.COD = ""
	pdf, err = labels.Render("pdf", l)
	if err != nil {
		t.Fatal(err)
	}
	if text := run(t, "pdftotext", "-raw", writeTemp(t, "l.pdf", pdf), "-"); strings.Contains(text, "COD ") {
		t.Errorf("label without cash on delivery shows a COD box:\n%s", text)
	}
}

// A PDF from elsewhere, two A4 pages, written by hand: carriers send PDFs
// gopdf never made.
func foreignPDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>",
		"<< /Length 44 >>\nstream\nBT /F1 24 Tf 72 700 Td (Carrier label) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func TestMergeTakesAnyPDFInOrder(t *testing.T) {
	parts := renderAll(t, "pdf")
	three, err := labels.Merge("pdf", parts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := labels.Merge("pdf", [][]byte{parts[0], foreignPDF(), three})
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	dims, err := api.PageDims(bytes.NewReader(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range dims {
		got = append(got, fmt.Sprintf("%.0fx%.0f", d.Width, d.Height))
	}
	want := "283x425 595x842 595x842 283x425 283x425 283x425"
	if strings.Join(got, " ") != want {
		t.Errorf("page sizes in points = %v, want %s", got, want)
	}

	single, err := labels.Merge("pdf", parts[:1])
	if err != nil {
		t.Fatal(err)
	}
	if n, err := api.PageCount(bytes.NewReader(single), nil); err != nil || n != 1 {
		t.Errorf("merge of one part: %d pages, %v", n, err)
	}
	if !bytes.Equal(single, parts[0]) {
		t.Error("a merge of one part is not that part")
	}
	if _, err := labels.Merge("pdf", [][]byte{parts[0][:len(parts[0])/2]}); err == nil || !strings.Contains(err.Error(), "part 0") {
		t.Errorf("a truncated single part: %v, want an error naming part 0", err)
	}
}

func TestMergeRejectsBadParts(t *testing.T) {
	good, err := labels.Render("pdf", parcel(0))
	if err != nil {
		t.Fatal(err)
	}
	truncated := good[:len(good)/2]
	tests := []struct {
		name   string
		format string
		parts  [][]byte
		want   string
	}{
		{"text as PDF", "pdf", [][]byte{good, []byte("%PDF-1.4 this is not a PDF")}, "part 1"},
		{"truncated first PDF", "pdf", [][]byte{truncated, good}, "part 0"},
		{"HTML error page", "pdf", [][]byte{good, good, []byte("<html>502 Bad Gateway</html>")}, "part 2"},
		{"empty part", "zpl", [][]byte{[]byte("^XA^XZ"), nil}, "part 1"},
		{"nothing", "pdf", nil, "no parts"},
		{"unknown format", "png", [][]byte{good}, "unknown label format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := labels.Merge(tt.format, tt.parts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %q", err, tt.want)
			}
		})
	}
}

var (
	zplBlock    = regexp.MustCompile(`(?s)\^XA.*?\^XZ`)
	zplBarcode  = regexp.MustCompile(`\^BC[^\^]*\^FD([^\^]*)\^FS`)
	zplField    = regexp.MustCompile(`\^FD([^\^]*)\^FS`)
	zplHex      = regexp.MustCompile(`_[0-9A-Fa-f]{2}`)
	zplCommands = regexp.MustCompile(`^(\^[A-Z][A-Z0-9][^\^~]*)+$`)
)

func TestZPLMergedHasOneBlockPerParcelInOrder(t *testing.T) {
	out := string(merged(t, "zpl"))
	blocks := zplBlock.FindAllString(out, -1)
	if len(blocks) != 3 || strings.Count(out, "^XA") != 3 || strings.Count(out, "^XZ") != 3 {
		t.Fatalf("%d ^XA...^XZ blocks, want 3:\n%s", len(blocks), out)
	}
	for i, b := range blocks {
		bc := zplBarcode.FindAllStringSubmatch(b, -1)
		if len(bc) != 1 || bc[0][1] != trackingNumbers[i] {
			t.Errorf("block %d ^BC fields = %q, want one with %s", i, bc, trackingNumbers[i])
		}
		for _, want := range []string{"^CI28", "^PW812", "^LL1218", "COD  125.50 CZK", "Parcel " + strconv.Itoa(i+1)} {
			if !strings.Contains(b, want) && !(strings.HasPrefix(want, "Parcel") && strings.Contains(b, fmt.Sprintf("^FD%d/3^FS", i+1))) {
				t.Errorf("block %d lacks %q", i, want)
			}
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Error("merged ZPL does not end with a newline")
	}
}

func TestZPLSpecialCharactersStayInsideFields(t *testing.T) {
	b, err := labels.Render("zpl", specialParcel())
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	if strings.Count(out, "^XA") != 1 || strings.Count(out, "^XZ") != 1 || !strings.HasPrefix(out, "^XA") ||
		!strings.HasSuffix(out, "^XZ\n") {
		t.Fatalf("label structure broken:\n%s", out)
	}
	if strings.Contains(out, "~") {
		t.Errorf("a raw ~ would start a control command:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !zplCommands.MatchString(line) || strings.Count(line, "^FD") > 1 ||
			strings.Contains(line, "^FD") && !strings.HasSuffix(line, "^FS") {
			t.Errorf("line %q is not a run of commands with at most one field at its end", line)
		}
	}
	var data []string
	for _, m := range zplField.FindAllStringSubmatch(out, -1) {
		data = append(data, zplHex.ReplaceAllStringFunc(m[1], func(h string) string {
			v, _ := strconv.ParseUint(h[1:], 16, 8)
			return string(rune(v))
		}))
	}
	all := strings.Join(data, "\n")
	for _, want := range []string{"Žluťoučký kůň ^XZ ~JA \"quoted\"", "back\\slash_under", `ref ^FS~" ^XZ`} {
		if !strings.Contains(all, want) {
			t.Errorf("field data lacks %q:\n%s", want, all)
		}
	}
}

type eplBlock struct {
	lines []string
}

func eplBlocks(t *testing.T, out []byte) []eplBlock {
	t.Helper()
	text, err := charmap.Windows1250.NewDecoder().Bytes(out)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []eplBlock
	var cur *eplBlock
	for _, line := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		switch {
		case line == "N":
			if cur != nil {
				t.Fatalf("N inside a label")
			}
			cur = &eplBlock{}
		case cur == nil:
			t.Fatalf("line %q outside a label", line)
		case line == "P1":
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		cur.lines = append(cur.lines, line)
	}
	if cur != nil {
		t.Fatal("label not ended with P1")
	}
	return blocks
}

var (
	eplText    = regexp.MustCompile(`^A\d+,\d+,0,[1-5],[1-6],[1-9],N,"((?:[^"\\]|\\.)*)"$`)
	eplBarcode = regexp.MustCompile(`^B\d+,\d+,0,1,\d+,\d+,\d+,[BN],"((?:[^"\\]|\\.)*)"$`)
	eplOther   = regexp.MustCompile(`^(N|I8,[AB],001|q812|Q1218,24|LO\d+,\d+,\d+,\d+|X\d+,\d+,\d+,\d+,\d+)$`)
	eplUnquote = strings.NewReplacer(`\"`, `"`, `\\`, `\`)
)

func TestEPLMergedHasOneBlockPerParcelInOrder(t *testing.T) {
	blocks := eplBlocks(t, merged(t, "epl"))
	if len(blocks) != 3 {
		t.Fatalf("%d labels, want 3", len(blocks))
	}
	for i, b := range blocks {
		var barcodes []string
		for _, line := range b.lines {
			if m := eplBarcode.FindStringSubmatch(line); m != nil {
				barcodes = append(barcodes, m[1])
			}
		}
		if len(barcodes) != 1 || barcodes[0] != trackingNumbers[i] {
			t.Errorf("label %d barcodes = %q, want [%s]", i, barcodes, trackingNumbers[i])
		}
		if !slicesContain(b.lines, "q812") || !slicesContain(b.lines, "Q1218,24") {
			t.Errorf("label %d lacks the size setup: %q", i, b.lines)
		}
	}
}

func slicesContain(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

func TestEPLSpecialCharactersStayInsideQuotes(t *testing.T) {
	out, err := labels.Render("epl", specialParcel())
	if err != nil {
		t.Fatal(err)
	}
	blocks := eplBlocks(t, out)
	if len(blocks) != 1 {
		t.Fatalf("%d labels, want 1", len(blocks))
	}
	var texts []string
	for _, line := range blocks[0].lines {
		switch m := eplText.FindStringSubmatch(line); {
		case m != nil:
			texts = append(texts, eplUnquote.Replace(m[1]))
		case eplBarcode.MatchString(line), eplOther.MatchString(line):
		default:
			t.Errorf("line %q is no EPL command this label should have", line)
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"Žluťoučký kůň ^XZ ~JA \"quoted\"", `ref ^FS~" ^XZ`} {
		if !strings.Contains(all, want) {
			t.Errorf("texts lack %q:\n%s", want, all)
		}
	}
}

func TestRenderRefuses(t *testing.T) {
	if _, err := labels.Render("png", parcel(0)); err == nil || !strings.Contains(err.Error(), "unknown label format") {
		t.Errorf("unknown format: err = %v", err)
	}
	for _, tn := range []string{"", "SB 12", "SB^XZ", `SB"1`, "SBŽ1", strings.Repeat("1", 41)} {
		l := parcel(0)
		l.TrackingNumber = tn
		for _, f := range labels.Formats {
			if _, err := labels.Render(f, l); err == nil {
				t.Errorf("Render(%s) took tracking number %q", f, tn)
			}
		}
	}
}

func TestFormatsMetadata(t *testing.T) {
	for f, want := range map[string][2]string{
		"pdf": {"application/pdf", "pdf"},
		"zpl": {"application/x-zpl", "zpl"},
		"epl": {"application/x-epl", "epl"},
		"PDF": {"application/pdf", "pdf"},
		"png": {"application/octet-stream", "bin"},
	} {
		if got := [2]string{labels.MIMEType(f), labels.FileExtension(f)}; got != want {
			t.Errorf("%s: %v, want %v", f, got, want)
		}
	}
	if strings.Join(labels.Formats, ",") != "pdf,zpl,epl" {
		t.Errorf("Formats = %v", labels.Formats)
	}
}

// TestRenderConcurrentlyIsRenderAlone renders labels from many goroutines
// at once, and each must be byte for byte the label rendered alone: what
// the renderer keeps between labels (fonts, deflaters) is not shared state
// one label can leave in another.
func TestRenderConcurrentlyIsRenderAlone(t *testing.T) {
	ls := []labels.ParcelLabel{parcel(0), parcel(1), parcel(2), specialParcel()}
	const goroutines, rounds = 16, 5
	got := make([][][][]byte, goroutines) // goroutine, round, format × label
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range rounds {
				var out [][]byte
				for k := range ls {
					// Each goroutine starts at another label, so different
					// labels are drawn at the same time.
					l := ls[(g+k)%len(ls)]
					for _, f := range labels.Formats {
						b, err := labels.Render(f, l)
						if err != nil {
							t.Error(err)
						}
						out = append(out, b)
					}
				}
				got[g] = append(got[g], out)
			}
		})
	}
	wg.Wait()
	for g := range goroutines {
		for r, out := range got[g] {
			for k := range ls {
				for i, f := range labels.Formats {
					alone, err := labels.Render(f, ls[(g+k)%len(ls)])
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(out[k*len(labels.Formats)+i], alone) {
						t.Fatalf("goroutine %d, round %d: %s label %d differs from the one rendered alone", g, r, f, (g+k)%len(ls))
					}
				}
			}
		}
	}
}
