package domain

// The CSV a merchant imports its carrier's price list from (research §18,
// long layout): one row a record, a header naming the columns in any order:
//
//	record,zone,countries,postal_codes,from_kg,until_kg,value,per
//	currency,,,,,,CZK,
//	rate,SK,SK,,0,5,99.00,parcel
//	rate,SK-EAST,,SK:04* SK:06000-09999,0,5,139.00,parcel
//	fuel_percent,,,,,,12.5,
//
// Records: currency (value: ISO 4217); rate (a zone's band: value is the
// price in major units, e.g. 99.00); cod_fee, pickup_point_fee, oversize_fee
// (value: an amount); fuel_percent; oversize_longest_side_cm and
// oversize_girth_cm (value: whole cm). A zone is defined by its first rate
// row: countries space-separated, postal areas "CC:PREFIX*" or
// "CC:FROM-TO"; later rows of the zone leave them empty or repeat them
// exactly, and its bands follow in row order.
//
// The file is UTF-8 (a BOM is skipped; no code page is guessed), at most
// 10 MB, separated by commas or semicolons (as the header line shows).
// Numbers use a decimal point; with semicolons a decimal comma is accepted
// too, as Excel writes them in PL/CZ/DE locales. No thousands separators.
// Every problem names its row (the header is row 1) and column.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// MaxRateCardCSVBytes bounds an import, read before parsing.
const MaxRateCardCSVBytes = 10 << 20

// ErrRateCardCSVTooLarge is in the error of a file over MaxRateCardCSVBytes,
// so the API can answer 413.
var ErrRateCardCSVTooLarge = errors.New("the file is larger than 10 MB")

var csvColumns = []string{"record", "zone", "countries", "postal_codes", "from_kg", "until_kg", "value", "per"}

// ImportRateCardCSV reads and validates a card from CSV.
func ImportRateCardCSV(r io.Reader) (RateCard, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxRateCardCSVBytes+1))
	if err != nil {
		return RateCard{}, fault.Field("file", "could not be read: "+err.Error())
	}
	if len(data) > MaxRateCardCSVBytes {
		return RateCard{}, tooLarge{}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		line := bytes.Count(data[:off], []byte("\n")) + 1
		return RateCard{}, fault.Field("file", "row "+strconv.Itoa(line)+" (byte "+strconv.Itoa(off)+") is not UTF-8: save the file as UTF-8")
	}
	header, _, _ := bytes.Cut(data, []byte("\n"))
	sep := ','
	if bytes.ContainsRune(header, ';') {
		sep = ';'
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = sep
	cr.FieldsPerRecord = 0
	im := csvImport{sep: sep, errs: fault.FieldErrors{}, zoneIndex: map[string]int{}}
	row := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		row++
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				row = pe.Line
			}
			im.errs.Add(rowCol(row, ""), strings.TrimPrefix(err.Error(), "record on line "))
			return RateCard{}, im.errs.Err()
		}
		line, _ := cr.FieldPos(0)
		if row == 1 {
			if !im.header(rec) {
				return RateCard{}, im.errs.Err()
			}
			continue
		}
		im.row(line, rec)
	}
	if row == 0 {
		return RateCard{}, fault.Field("file", "is empty: it needs a header row and rows")
	}
	if row == 1 {
		return RateCard{}, fault.Field("file", "holds only the header row")
	}
	if len(im.errs) > 0 {
		return RateCard{}, im.errs.Err()
	}
	errs := fault.FieldErrors{}
	im.card.validate(errs)
	for path, msgs := range errs {
		errs2 := im.locate(path)
		for _, m := range msgs {
			im.errs.Add(errs2, m)
		}
	}
	if err := im.errs.Err(); err != nil {
		return RateCard{}, err
	}
	return im.card, nil
}

type tooLarge struct{}

func (tooLarge) Error() string { return ErrRateCardCSVTooLarge.Error() }
func (tooLarge) Unwrap() []error {
	return []error{ErrRateCardCSVTooLarge, fault.Field("file", "must be at most 10 MB ("+strconv.Itoa(MaxRateCardCSVBytes)+" bytes)")}
}

func rowCol(row int, col string) string {
	if col == "" {
		return "row " + strconv.Itoa(row)
	}
	return "row " + strconv.Itoa(row) + ", column " + col
}

type csvImport struct {
	sep       rune
	errs      fault.FieldErrors
	col       map[string]int
	card      RateCard
	zoneIndex map[string]int
	zoneRow   []int   // the row defining each zone
	bandRow   [][]int // the row of each band of each zone
	setRow    map[string]int
}

func (im *csvImport) header(rec []string) bool {
	im.col = map[string]int{}
	for i, name := range rec {
		name = strings.TrimSpace(name)
		switch {
		case !slices.Contains(csvColumns, name):
			im.errs.Add(rowCol(1, strconv.Itoa(i+1)), "is an unknown column "+strconv.Quote(name)+": the columns are "+strings.Join(csvColumns, ", "))
		case im.col[name] != 0:
			im.errs.Add(rowCol(1, name), "is named twice")
		default:
			im.col[name] = i + 1
		}
	}
	for _, c := range csvColumns {
		if im.col[c] == 0 && len(im.errs) == 0 {
			im.errs.Add(rowCol(1, c), "is missing")
		}
	}
	im.setRow = map[string]int{}
	return len(im.errs) == 0
}

func (im *csvImport) cell(rec []string, name string) string {
	i := im.col[name] - 1
	if i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

// number reads a plain decimal, with the decimal comma a semicolon file may use.
func (im *csvImport) number(row int, col, s string, digits int, what string) (int64, bool) {
	if im.sep == ';' && strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	v, ok := parseFixed(s, digits)
	if !ok {
		im.errs.Add(rowCol(row, col), "must be "+what+" with at most "+strconv.Itoa(digits)+" decimals, a decimal point"+map[bool]string{true: " or comma", false: ""}[im.sep == ';'])
	}
	return v, ok
}

func (im *csvImport) row(row int, rec []string) {
	if len(rec) != len(im.col) {
		im.errs.Add(rowCol(row, ""), "has "+strconv.Itoa(len(rec))+" cells, the header "+strconv.Itoa(len(im.col)))
		return
	}
	kind := im.cell(rec, "record")
	value := im.cell(rec, "value")
	if kind != "rate" {
		for _, c := range []string{"zone", "countries", "postal_codes", "from_kg", "until_kg", "per"} {
			if im.cell(rec, c) != "" {
				im.errs.Add(rowCol(row, c), "must be empty in a "+kind+" row")
			}
		}
		if first, ok := im.setRow[kind]; ok {
			im.errs.Add(rowCol(row, "record"), "repeats row "+strconv.Itoa(first))
			return
		}
		im.setRow[kind] = row
	}
	s := &im.card.Surcharges
	digits := carrier.CurrencyDigits(im.card.Currency)
	switch kind {
	case "currency":
		im.card.Currency = value
	case "rate":
		im.rate(row, rec, digits)
	case "cod_fee":
		s.CODMinor, _ = im.number(row, "value", value, digits, "an amount")
	case "pickup_point_fee":
		s.PickupPointMinor, _ = im.number(row, "value", value, digits, "an amount")
	case "oversize_fee":
		s.OversizeMinor, _ = im.number(row, "value", value, digits, "an amount")
	case "fuel_percent":
		s.FuelBasisPoints, _ = im.number(row, "value", value, 2, "a percentage")
	case "oversize_longest_side_cm":
		s.OversizeLongestCM, _ = im.number(row, "value", value, 0, "whole centimetres")
	case "oversize_girth_cm":
		s.OversizeGirthCM, _ = im.number(row, "value", value, 0, "whole centimetres")
	default:
		im.errs.Add(rowCol(row, "record"), "must be one of currency, rate, cod_fee, pickup_point_fee, fuel_percent, oversize_fee, oversize_longest_side_cm, oversize_girth_cm")
	}
}

func (im *csvImport) rate(row int, rec []string, digits int) {
	if im.card.Currency == "" {
		im.errs.Add(rowCol(row, "record"), "comes before the currency row, which prices need")
		return
	}
	name := im.cell(rec, "zone")
	if name == "" {
		im.errs.Add(rowCol(row, "zone"), "is required")
		return
	}
	var countries []string // nil when empty, as ParseRateCard leaves it
	countries = append(countries, strings.Fields(im.cell(rec, "countries"))...)
	var postal []PostalArea
	for _, f := range strings.Fields(im.cell(rec, "postal_codes")) {
		a, ok := parseArea(f)
		if !ok {
			im.errs.Add(rowCol(row, "postal_codes"), strconv.Quote(f)+" must be CC:PREFIX* or CC:FROM-TO")
			return
		}
		postal = append(postal, a)
	}
	per := im.cell(rec, "per")
	i, seen := im.zoneIndex[name]
	if !seen {
		i = len(im.card.Zones)
		im.zoneIndex[name] = i
		im.card.Zones = append(im.card.Zones, Zone{Name: name, Countries: countries, Postal: postal, Per: per})
		im.zoneRow = append(im.zoneRow, row)
		im.bandRow = append(im.bandRow, nil)
	} else {
		z := im.card.Zones[i]
		first := " of row " + strconv.Itoa(im.zoneRow[i])
		if (len(countries) > 0 || len(postal) > 0) && (!slices.Equal(countries, z.Countries) || !slices.Equal(postal, z.Postal)) {
			im.errs.Add(rowCol(row, "countries"), "must be empty or repeat the zone's countries and postal codes"+first)
		}
		if per != "" && per != z.Per {
			im.errs.Add(rowCol(row, "per"), "must be empty or repeat the zone's "+strconv.Quote(z.Per)+first)
		}
	}
	from, _ := im.number(row, "from_kg", im.cell(rec, "from_kg"), 3, "kilograms")
	until, _ := im.number(row, "until_kg", im.cell(rec, "until_kg"), 3, "kilograms")
	price, _ := im.number(row, "value", im.cell(rec, "value"), digits, "a price")
	im.card.Zones[i].Bands = append(im.card.Zones[i].Bands, Band{FromGrams: from, UntilGrams: until, PriceMinor: price})
	im.bandRow[i] = append(im.bandRow[i], row)
}

func parseArea(f string) (PostalArea, bool) {
	cc, code, ok := strings.Cut(f, ":")
	if !ok || code == "" {
		return PostalArea{}, false
	}
	if p, ok := strings.CutSuffix(code, "*"); ok {
		return PostalArea{Country: cc, Prefix: p}, p != ""
	}
	from, to, ok := strings.Cut(code, "-")
	return PostalArea{Country: cc, From: from, To: to}, ok
}

// locate turns a card path into the row and column of the CSV it came from.
func (im *csvImport) locate(path string) string {
	parts := strings.Split(path, ".")
	switch parts[0] {
	case "currency":
		if r, ok := im.setRow["currency"]; ok {
			return rowCol(r, "value")
		}
		return "file: currency row"
	case "surcharges":
		kind := map[string]string{"cod_fee": "cod_fee", "pickup_point_fee": "pickup_point_fee", "fuel_percent": "fuel_percent",
			"oversize.fee": "oversize_fee", "oversize.longest_side_cm_over": "oversize_longest_side_cm",
			"oversize.girth_cm_over": "oversize_girth_cm", "oversize": "oversize_fee"}[strings.Join(parts[1:], ".")]
		if r, ok := im.setRow[kind]; ok {
			return rowCol(r, "value")
		}
		return "file: " + kind + " row"
	case "zones":
		if len(parts) < 2 {
			return "file" // no rate rows at all
		}
		zi, _ := strconv.Atoi(parts[1])
		if zi >= len(im.zoneRow) {
			return "file"
		}
		row, col := im.zoneRow[zi], "zone"
		if len(parts) > 2 {
			switch parts[2] {
			case "bands":
				if len(parts) > 3 {
					bi, _ := strconv.Atoi(parts[3])
					row = im.bandRow[zi][bi]
				}
				col = "from_kg"
				if len(parts) > 4 {
					col = map[string]string{"from_kg": "from_kg", "until_kg": "until_kg", "price": "value"}[parts[4]]
				}
			case "countries", "postal_codes", "per":
				col = parts[2]
			}
		}
		return rowCol(row, col)
	}
	return path
}

// ExportRateCardCSV writes a card in the layout ImportRateCardCSV reads
// (commas, decimal points), so a card round-trips.
func ExportRateCardCSV(c RateCard, w io.Writer) error {
	cw := csv.NewWriter(w)
	put := func(rec ...string) { _ = cw.Write(append(rec, make([]string, len(csvColumns)-len(rec))...)) }
	_ = cw.Write(csvColumns)
	set := func(kind, value string) { put(kind, "", "", "", "", "", value, "") }
	set("currency", c.Currency)
	digits := carrier.CurrencyDigits(c.Currency)
	money := func(m int64) string { return plain(m, digits) }
	for _, z := range c.Zones {
		var areas []string
		for _, a := range z.Postal {
			if a.Prefix != "" {
				areas = append(areas, a.Country+":"+a.Prefix+"*")
			} else {
				areas = append(areas, a.Country+":"+a.From+"-"+a.To)
			}
		}
		for _, b := range z.Bands {
			put("rate", z.Name, strings.Join(z.Countries, " "), strings.Join(areas, " "), kg(b.FromGrams), kg(b.UntilGrams), money(b.PriceMinor), z.Per)
		}
	}
	s := c.Surcharges
	for _, f := range []struct {
		kind  string
		v     int64
		value string
	}{
		{"cod_fee", s.CODMinor, money(s.CODMinor)},
		{"pickup_point_fee", s.PickupPointMinor, money(s.PickupPointMinor)},
		{"fuel_percent", s.FuelBasisPoints, fixed(s.FuelBasisPoints, 2)},
		{"oversize_fee", s.OversizeMinor, money(s.OversizeMinor)},
		{"oversize_longest_side_cm", s.OversizeLongestCM, fixed(s.OversizeLongestCM, 0)},
		{"oversize_girth_cm", s.OversizeGirthCM, fixed(s.OversizeGirthCM, 0)},
	} {
		if f.v != 0 {
			set(f.kind, f.value)
		}
	}
	cw.Flush()
	return cw.Error()
}

// plain formats minor units with all the currency's digits: 9900 → "99.00".
func plain(minor int64, digits int) string {
	s := fixed(minor, digits)
	if digits == 0 {
		return s
	}
	whole, frac, _ := strings.Cut(s, ".")
	return whole + "." + frac + strings.Repeat("0", digits-len(frac))
}
