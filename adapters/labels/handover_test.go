package labels_test

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// The longest tracking numbers the table's barcode column holds at two
// pixels a module: 29 characters Code 128 encodes one a symbol character
// (set B), and 58 digits, two a symbol character (set C).
const (
	longestTrackingNumber = "JVGL0A1B2C3D4E5F6G7H8I9J0K1L2"
	longestDigits         = "1234567890123456789012345678901234567890123456789012345678"
)

// handoverDoc is a handover of n parcels in shipments of one, two and
// three parcels in turn, some with cash on delivery in crowns or euros,
// their tracking numbers in the shapes of several carriers.
func handoverDoc(n int) labels.HandoverDocument {
	d := labels.HandoverDocument{
		Carrier: "PPL", ChannelName: "E-shop PPL CZ", ManifestID: "man_01JAB3XYZ0KQ4D7M9N2P5R8T6V",
		Date: time.Date(2026, 11, 21, 15, 4, 0, 0, time.UTC),
		Sender: labels.Party{Name: "Jan Novák", Company: "Novák & syn s.r.o.", Street: "Dlouhá", HouseNumber: "12/3",
			PostalCode: "110 00", City: "Praha", CountryCode: "CZ", Phone: "+420 777 123 456"},
	}
	for row := 0; row < n; {
		k := len(d.Shipments)
		s := labels.HandoverShipment{Reference: fmt.Sprintf("ORDER-2026-%04d", k+1),
			Recipient: labels.Party{Name: "Petra Svobodová", PostalCode: "602 00", City: "Brno", CountryCode: "CZ"}}
		switch k % 4 {
		case 1:
			s.COD = &carrier.Money{Minor: 12550, Currency: "CZK"}
		case 3:
			s.COD = &carrier.Money{Minor: 1999, Currency: "EUR"}
			s.Recipient = labels.Party{Name: "Anna Kowalska", Company: "Sklep Kowalski sp. z o.o.", PostalCode: "00-950",
				City: "Warszawa", CountryCode: "PL"}
		}
		for range min(k%3+1, n-row) {
			s.Parcels = append(s.Parcels, labels.HandoverParcel{TrackingNumber: trackingNumberOf(row), WeightKG: 0.25 + float64(row%5)})
			row++
		}
		d.Shipments = append(d.Shipments, s)
	}
	return d
}

func trackingNumberOf(row int) string {
	switch row % 6 {
	case 1:
		return fmt.Sprintf("4015%07d", 23000+row) // PPL
	case 2:
		return fmt.Sprintf("Z%010d", 4400000000+row) // Packeta
	case 3:
		if row == 9 {
			return longestDigits
		}
		return fmt.Sprintf("%010d", 1234500000+row) // DHL Express
	case 4:
		if row == 4 {
			return longestTrackingNumber
		}
		return fmt.Sprintf("CZ%06d/%02d-A", row, row%100)
	}
	return fmt.Sprintf("SB%09dCZ", 473124829+row) // the sandbox
}

func handoverTrackingNumbers(d labels.HandoverDocument) []string {
	var out []string
	for _, s := range d.Shipments {
		for _, p := range s.Parcels {
			out = append(out, p.TrackingNumber)
		}
	}
	return out
}

func renderHandover(t *testing.T, d labels.HandoverDocument) []byte {
	t.Helper()
	pdf, err := labels.RenderHandover(d)
	if err != nil {
		t.Fatalf("RenderHandover: %v", err)
	}
	return pdf
}

// checkPDF has qpdf check the file's structure and streams and returns its
// page count, checking every page is A4 portrait.
func checkPDF(t *testing.T, pdf []byte) int {
	t.Helper()
	need(t, "qpdf")
	if out, err := exec.Command("qpdf", "--check", writeTemp(t, "check.pdf", pdf)).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
	dims, err := api.PageDims(bytes.NewReader(pdf), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dims {
		if mm := d.ToMillimetres(); math.Abs(mm.Width-210) > 0.1 || math.Abs(mm.Height-297) > 0.1 {
			t.Errorf("page %d is %.1f × %.1f mm, want A4 portrait", i+1, mm.Width, mm.Height)
		}
	}
	return len(dims)
}

// scan is what zbarimg reads in a PNG, none when it finds no barcode.
func scan(t *testing.T, png string) []string {
	t.Helper()
	cmd := exec.Command("zbarimg", "--raw", "-q", png)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 4 { // no barcode found
		return nil
	}
	if err != nil {
		t.Fatalf("zbarimg %s: %v", png, err)
	}
	return strings.Fields(string(out))
}

// word is a word pdftotext -bbox finds, its box in points from the page's
// top-left corner.
type word struct {
	text                   string
	xMin, yMin, xMax, yMax float64
}

var (
	bboxPage = regexp.MustCompile(`<page `)
	bboxWord = regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)
)

// words are the words of each page, in pdftotext's order.
func words(t *testing.T, pdf []byte) [][]word {
	t.Helper()
	need(t, "pdftotext")
	out := run(t, "pdftotext", "-bbox", writeTemp(t, "words.pdf", pdf), "-")
	var pages [][]word
	for _, page := range bboxPage.Split(out, -1)[1:] {
		var ws []word
		for _, m := range bboxWord.FindAllStringSubmatch(page, -1) {
			f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
			ws = append(ws, word{html.UnescapeString(m[5]), f(1), f(2), f(3), f(4)})
		}
		pages = append(pages, ws)
	}
	return pages
}

// pageText is the text of page i (1-based).
func pageText(t *testing.T, pdf []byte, i int) string {
	t.Helper()
	p := strconv.Itoa(i)
	return run(t, "pdftotext", "-f", p, "-l", p, "-layout", writeTemp(t, "page.pdf", pdf), "-")
}

// TestHandoverBarcodesScanInParcelOrder rasterizes the document at 300 dpi
// and reads every tracking number back with zbar. zbar gives no positions,
// so the order is read from the printed numbers under the bars, by their
// place on the page (pdftotext -bbox), and each number's bars are scanned
// alone, cut from the page between it and the number above it: the
// barcodes of a page are the numbers printed there, each above its own
// number, and the numbers stand in parcel order.
func TestHandoverBarcodesScanInParcelOrder(t *testing.T) {
	need(t, "pdftoppm", "zbarimg", "pdftotext")
	for _, tt := range []struct {
		parcels, pages int
	}{{25, 2}, {1, 1}} {
		t.Run(strconv.Itoa(tt.parcels), func(t *testing.T) {
			d := handoverDoc(tt.parcels)
			want := handoverTrackingNumbers(d)
			pdf := renderHandover(t, d)
			if n := checkPDF(t, pdf); n != tt.pages {
				t.Fatalf("%d pages, want %d", n, tt.pages)
			}
			pngs := rasterize(t, pdf)
			pageWords := words(t, pdf)
			if len(pngs) != tt.pages || len(pageWords) != tt.pages {
				t.Fatalf("%d page images and %d pages of words, want %d", len(pngs), len(pageWords), tt.pages)
			}
			isTracking := map[string]bool{}
			for _, tn := range want {
				isTracking[tn] = true
			}
			var printed []string
			for i, png := range pngs {
				var numbers []word
				for _, w := range pageWords[i] {
					if isTracking[w.text] {
						numbers = append(numbers, w)
					}
				}
				slices.SortStableFunc(numbers, func(a, b word) int { return int(math.Round(a.yMin - b.yMin)) })
				var onPage []string
				for _, w := range numbers {
					onPage = append(onPage, w.text)
				}
				printed = append(printed, onPage...)

				scanned := scan(t, png)
				if !slices.Equal(slices.Sorted(slices.Values(scanned)), slices.Sorted(slices.Values(onPage))) {
					t.Errorf("page %d: barcodes %q, numbers printed %q", i+1, scanned, onPage)
				}
				img := decodePNG(t, png)
				above := 0.0
				for _, w := range numbers {
					strip := cropRows(t, img, above, w.yMin)
					if got := scan(t, strip); len(got) != 1 || got[0] != w.text {
						t.Errorf("page %d: the bars above %s read %q", i+1, w.text, got)
					}
					above = w.yMax
				}
			}
			if !slices.Equal(printed, want) {
				t.Errorf("tracking numbers in page order:\n%q\nwant parcel order:\n%q", printed, want)
			}
		})
	}
}

// cropRows writes the rows of a 300 dpi page image from top to bottom
// points down as a PNG of its own.
func cropRows(t *testing.T, img image.Image, top, bottom float64) string {
	t.Helper()
	px := func(pt float64) int { return int(math.Round(pt * 300 / 72)) }
	b := img.Bounds()
	sub := img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(b.Min.X, px(top), b.Max.X, px(bottom)))
	var buf bytes.Buffer
	if err := png.Encode(&buf, sub); err != nil {
		t.Fatal(err)
	}
	return writeTemp(t, "strip.png", buf.Bytes())
}

// The words of a heading, totals and signature boxes, as pdftotext
// -layout prints them.
var (
	tableHead   = []string{"TRACKING NUMBER", "SHIPMENT", "RECIPIENT", "WEIGHT KG", "COD"}
	closingText = []string{"SHIPMENTS", "PARCELS", "TOTAL WEIGHT", "COD TOTAL", "DRIVER (CARRIER)", "SENDER",
		"Name", "Signature", "Date and time", "By signing, the driver confirms"}
)

func TestHandoverPrintsHeaderTotalsAndSignatures(t *testing.T) {
	need(t, "pdftotext")
	d := handoverDoc(25)
	pdf := renderHandover(t, d)
	pages := checkPDF(t, pdf)

	var grams int64
	cod := map[string]int64{}
	for _, s := range d.Shipments {
		if s.COD != nil {
			cod[s.COD.Currency] += s.COD.Minor
		}
		for _, p := range s.Parcels {
			grams += int64(math.Round(p.WeightKG * 1000))
		}
	}
	shipments := strconv.Itoa(len(d.Shipments))
	weight := fmt.Sprintf("%d.%02d kg", grams/1000, grams%1000/10)
	if grams%10 != 0 {
		t.Fatalf("the test's weights sum to %d g; it prints two decimals", grams)
	}

	first := pageText(t, pdf, 1)
	for _, want := range []string{"Handover manifest", "PPL", "E-shop PPL CZ", d.ManifestID, "2026-11-21",
		"Jan Novák", "Novák & syn s.r.o.", "Dlouhá 12/3", "110 00 Praha", "CZ, Tel. +420 777 123 456",
		"25 parcels of " + shipments + " shipments, " + weight, "Sklep Kowalski sp. z o.o.", "00-950 Warszawa, PL",
		"parcel 2 of 2", "125.50", "19.99"} {
		if !strings.Contains(first, want) {
			t.Errorf("page 1 lacks %q:\n%s", want, first)
		}
	}
	for i := 1; i <= pages; i++ {
		text := pageText(t, pdf, i)
		for _, want := range append(tableHead, fmt.Sprintf("Page %d of %d", i, pages), "Handover manifest "+d.ManifestID) {
			if !strings.Contains(text, want) {
				t.Errorf("page %d lacks %q", i, want)
			}
		}
		for _, want := range closingText[4:5] {
			if has := strings.Contains(text, want); has != (i == pages) {
				t.Errorf("page %d of %d shows %q: %v", i, pages, want, has)
			}
		}
		if i == pages {
			for _, want := range append(closingText, weight, fmt.Sprintf("%d.%02d CZK", cod["CZK"]/100, cod["CZK"]%100),
				fmt.Sprintf("%d.%02d EUR", cod["EUR"]/100, cod["EUR"]%100)) {
				if !strings.Contains(text, want) {
					t.Errorf("last page lacks %q:\n%s", want, text)
				}
			}
			if !regexp.MustCompile(`SHIPMENTS\s+PARCELS\s+TOTAL WEIGHT\s+COD TOTAL\s+` + shipments + `\s+25\s+` +
				regexp.QuoteMeta(weight)).MatchString(text) {
				t.Errorf("totals are not %s shipments, 25 parcels, %s:\n%s", shipments, weight, text)
			}
		}
	}
}

// TestHandoverClosingBlockIsNeverSplit: nine parcels leave room under the
// rows for the totals (two currencies of COD) and the signature boxes; ten
// do not, and the whole block goes to a page of its own, without a table
// head.
func TestHandoverClosingBlockIsNeverSplit(t *testing.T) {
	need(t, "pdftotext")
	for _, tt := range []struct{ parcels, pages int }{{9, 1}, {10, 2}} {
		pdf := renderHandover(t, handoverDoc(tt.parcels))
		if n := checkPDF(t, pdf); n != tt.pages {
			t.Fatalf("%d parcels: %d pages, want %d", tt.parcels, n, tt.pages)
		}
		last := pageText(t, pdf, tt.pages)
		for _, want := range closingText {
			if !strings.Contains(last, want) {
				t.Errorf("%d parcels: the last page lacks %q", tt.parcels, want)
			}
		}
		if tt.pages > 1 {
			if strings.Contains(last, "TRACKING NUMBER") {
				t.Errorf("%d parcels: the page of the closing block has a table head", tt.parcels)
			}
			if before := pageText(t, pdf, tt.pages-1); strings.Contains(before, "DRIVER") || strings.Contains(before, "SHIPMENTS") {
				t.Errorf("%d parcels: part of the closing block is on page %d", tt.parcels, tt.pages-1)
			}
		}
	}
}

// TestHandoverFitsLongText prints fields far too long for their columns:
// each is shortened ("…") and no word overlaps another or the margins.
func TestHandoverFitsLongText(t *testing.T) {
	d := handoverDoc(4)
	long := strings.Repeat("Žluťoučký kůň úpěl ďábelské ódy ", 20)
	d.Carrier, d.ChannelName, d.Sender.Name, d.Sender.Street = long, long, long, long
	for i := range d.Shipments {
		d.Shipments[i].Reference = long
		d.Shipments[i].Recipient = labels.Party{Name: long, Company: long, PostalCode: "602 00", City: long, CountryCode: "CZ"}
	}
	d.Shipments[0].COD = &carrier.Money{Minor: 9_007_199_254_740_992, Currency: "HUF"}
	d.Shipments[0].Parcels[0].TrackingNumber = longestDigits
	pdf := renderHandover(t, d)
	checkPDF(t, pdf)
	for i, ws := range words(t, pdf) {
		for k, a := range ws {
			if a.xMin < 12*72/25.4-0.5 || a.xMax > (210-12)*72/25.4+0.5 {
				t.Errorf("page %d: %q runs into the margin (%.1f to %.1f pt)", i+1, a.text, a.xMin, a.xMax)
			}
			for _, b := range ws[k+1:] {
				if a.xMin < b.xMax-0.3 && b.xMin < a.xMax-0.3 && a.yMin < b.yMax-0.3 && b.yMin < a.yMax-0.3 {
					t.Errorf("page %d: %q and %q overlap", i+1, a.text, b.text)
				}
			}
		}
	}
	// Numbers are made smaller, never shorter.
	text := pageText(t, pdf, 1)
	if !strings.Contains(text, "…") || strings.Count(text, "90071992547409.92") != 2 || !strings.Contains(text, longestDigits) {
		t.Errorf("page 1 shortens nothing, or shortens the COD amount or the tracking number:\n%s", text)
	}
}

func TestRenderHandoverRefuses(t *testing.T) {
	many := handoverDoc(1)
	many.Shipments = nil
	for i := range labels.MaxHandoverParcels + 1 {
		many.Shipments = append(many.Shipments, labels.HandoverShipment{Reference: "R",
			Parcels: []labels.HandoverParcel{{TrackingNumber: fmt.Sprintf("SB%09dCZ", i), WeightKG: 1}}})
	}
	currencies := handoverDoc(1)
	currencies.Shipments = nil
	for i, c := range []string{"CZK", "EUR", "PLN", "HUF", "RON", "BGN", "USD", "GBP", "CHF"} {
		currencies.Shipments = append(currencies.Shipments, labels.HandoverShipment{Reference: "R",
			COD: &carrier.Money{Minor: 100, Currency: c}, Parcels: []labels.HandoverParcel{{TrackingNumber: trackingNumberOf(i), WeightKG: 1}}})
	}
	tests := []struct {
		name string
		edit func(d *labels.HandoverDocument)
		want string
	}{
		{"no shipments", func(d *labels.HandoverDocument) { d.Shipments = nil }, "no shipments"},
		{"a shipment without parcels", func(d *labels.HandoverDocument) { d.Shipments[1].Parcels = nil }, `shipment 2 ("ORDER-2026-0002") has no parcels`},
		{"too many parcels", func(d *labels.HandoverDocument) { *d = many }, "10001 parcels, more than the 10000"},
		{"no tracking number", func(d *labels.HandoverDocument) { d.Shipments[0].Parcels[0].TrackingNumber = "" }, "parcel 1: tracking number"},
		{"a space", func(d *labels.HandoverDocument) { d.Shipments[1].Parcels[1].TrackingNumber = "SB 1" }, "parcel 3: tracking number \"SB 1\": character ' '"},
		{"a letter Code 128 lacks", func(d *labels.HandoverDocument) { d.Shipments[0].Parcels[0].TrackingNumber = "SBŽ1" }, "character 'Ž'"},
		{"too wide a barcode", func(d *labels.HandoverDocument) {
			d.Shipments[0].Parcels[0].TrackingNumber = longestTrackingNumber + "X"
		}, "its barcode is 385 modules wide"},
		{"a tracking number twice", func(d *labels.HandoverDocument) {
			d.Shipments[2].Parcels[0].TrackingNumber = d.Shipments[0].Parcels[0].TrackingNumber
		}, "parcel 4: tracking number \"SB473124829CZ\" is parcel 1's too"},
		{"no weight", func(d *labels.HandoverDocument) { d.Shipments[0].Parcels[0].WeightKG = 0 }, "weight 0 kg"},
		{"weight NaN", func(d *labels.HandoverDocument) { d.Shipments[0].Parcels[0].WeightKG = math.NaN() }, "weight NaN kg"},
		{"COD of nothing", func(d *labels.HandoverDocument) { d.Shipments[1].COD.Minor = 0 }, "cash on delivery is not more than 0"},
		{"COD in no currency", func(d *labels.HandoverDocument) { d.Shipments[1].COD.Currency = "XXX" }, `in "XXX"`},
		{"COD total past int64", func(d *labels.HandoverDocument) {
			d.Shipments[1].COD.Minor, d.Shipments[5].COD = math.MaxInt64-1, &carrier.Money{Minor: 2, Currency: "CZK"}
		}, "makes the CZK total too large"},
		{"COD in nine currencies", func(d *labels.HandoverDocument) { *d = currencies }, "in 9 currencies, more than the 8"},
		{"no carrier", func(d *labels.HandoverDocument) { d.Carrier = " \n" }, "no carrier name"},
		{"no manifest id", func(d *labels.HandoverDocument) { d.ManifestID = "" }, "no manifest id"},
		{"no date", func(d *labels.HandoverDocument) { d.Date = time.Time{} }, "no handover date"},
		{"no sender", func(d *labels.HandoverDocument) { d.Sender.Name, d.Sender.Company = "", "" }, "the sender has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := handoverDoc(12)
			tt.edit(&d)
			_, err := labels.RenderHandover(d)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "handover document: ") {
				t.Errorf("err = %v, want one naming %q", err, tt.want)
			}
			if check := labels.CheckHandover(d); fmt.Sprint(check) != fmt.Sprint(err) {
				t.Errorf("CheckHandover = %v, RenderHandover = %v", check, err)
			}
		})
	}
	// The limits themselves are taken.
	d := handoverDoc(5)
	d.Shipments[0].Parcels[0].TrackingNumber = longestDigits + "1"
	if err := labels.CheckHandover(d); err == nil || !strings.Contains(err.Error(), "its barcode is 396 modules wide") {
		t.Errorf("59 digits: %v", err)
	}
	many.Shipments = many.Shipments[1:]
	if err := labels.CheckHandover(many); err != nil {
		t.Errorf("%d parcels: %v", labels.MaxHandoverParcels, err)
	}
}

// TestRenderHandoverIsDeterministic: the same manifest renders to the same
// bytes, so a stored document and one rendered again agree.
func TestRenderHandoverIsDeterministic(t *testing.T) {
	a, b := renderHandover(t, handoverDoc(30)), renderHandover(t, handoverDoc(30))
	if !bytes.Equal(a, b) {
		t.Error("two renderings of one manifest differ")
	}
}
