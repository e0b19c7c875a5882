// Package labels renders 10×15 cm parcel labels as PDF, ZPL II or EPL2 and
// merges per-parcel label files into one, so carriers that hand out data
// instead of labels (the sandbox) and carriers that hand out one file per
// parcel both end up as a single printable file per shipment.
//
// It also renders the handover manifest shipd prints for a carrier that
// makes none of its own (RenderHandover): an A4 PDF of every parcel with
// its tracking number as a Code 128 barcode, the totals, and signature
// boxes for the driver and the sender, for at most MaxHandoverParcels
// parcels. Labels and the manifest are drawn by the same page code and
// written by the package's own PDF writer with the same embedded fonts
// (ADRs 0049 and 0053).
package labels

import (
	"fmt"
	"strings"
	"unicode"
)

// Party is a sender or recipient as printed.
type Party struct {
	Name, Company, Street, HouseNumber, PostalCode, City, CountryCode, Phone string
}

// ParcelLabel is everything printed on one parcel's label.
type ParcelLabel struct {
	Carrier           string // e.g. "Sandbox carrier"
	Product           string // e.g. "STANDARD_COD"
	TrackingNumber    string
	Sender, Recipient Party
	ParcelIndex       int // 1-based: parcel i of ParcelCount
	ParcelCount       int
	Weight            string // e.g. "2.50 KG"
	Reference         string
	COD               string // e.g. "125.50 CZK"; empty when none
	ShippingDate      string // e.g. "2026-11-21"
}

// Formats are the label formats Render and Merge understand.
var Formats = []string{"pdf", "zpl", "epl"}

// Render draws one parcel's label in format.
func Render(format string, l ParcelLabel) ([]byte, error) {
	if err := checkBarcodeData(l.TrackingNumber); err != nil {
		return nil, err
	}
	switch normalize(format) {
	case "pdf":
		return renderPDF(l)
	case "zpl":
		return renderZPL(l), nil
	case "epl":
		return renderEPL(l), nil
	}
	return nil, unknownFormat(format)
}

// MIMEType is the media type of a label file; application/octet-stream for
// a format this package does not know.
func MIMEType(format string) string {
	switch normalize(format) {
	case "pdf":
		return "application/pdf"
	case "zpl":
		return "application/x-zpl"
	case "epl":
		return "application/x-epl"
	}
	return "application/octet-stream"
}

// FileExtension is the file name extension (without dot) of a label file;
// "bin" for a format this package does not know.
func FileExtension(format string) string {
	switch f := normalize(format); f {
	case "pdf", "zpl", "epl":
		return f
	}
	return "bin"
}

func normalize(format string) string { return strings.ToLower(strings.TrimSpace(format)) }

func unknownFormat(format string) error {
	return fmt.Errorf("unknown label format %q (known: %s)", format, strings.Join(Formats, ", "))
}

// checkBarcodeData keeps tracking numbers to characters that every format
// encodes verbatim: ZPL reserves ^ ~ and > inside a ^BC field, EPL reserves
// quotes, and Code 128 has no non-ASCII characters at all.
// Check reports what Render would refuse in l, without drawing it.
func Check(l ParcelLabel) error { return checkBarcodeData(l.TrackingNumber) }

func checkBarcodeData(s string) error {
	if s == "" || len(s) > 40 {
		return fmt.Errorf("tracking number %q: must have 1 to 40 characters to fit a Code 128 barcode on the label", s)
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || strings.ContainsRune("-./+", r)) {
			return fmt.Errorf("tracking number %q: character %q cannot go into the label barcode", s, r)
		}
	}
	return nil
}

// clean turns a value into one printable line: control characters become
// spaces (a newline inside a name must not start a new printer command) and
// runs of spaces collapse.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// lines are the printed address lines of a party, empty ones left out.
func (p Party) lines() (name string, rest []string) {
	name, company, street, city := p.address()
	for _, s := range []string{company, street, city} {
		if s != "" {
			rest = append(rest, s)
		}
	}
	return name, rest
}

// address is what a party's address prints, cleaned: its name (the company
// when it has none), its company under the name ("" when it is the name),
// street and house number, postal code and city.
func (p Party) address() (name, company, street, city string) {
	name, company = clean(p.Name), clean(p.Company)
	if name == "" {
		name, company = company, ""
	}
	street = strings.TrimSpace(clean(p.Street) + " " + clean(p.HouseNumber))
	city = strings.TrimSpace(clean(p.PostalCode) + " " + clean(p.City))
	return name, company, street, city
}

// truncate cuts s to at most n runes, marking the cut with "..." (ASCII,
// which every printer font has).
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 3 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-3]) + "..."
}
