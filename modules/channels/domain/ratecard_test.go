package domain_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

// cardJSON nests SK-EAST (postal areas of SK) inside SK (the country), and
// has a zone priced per shipment. The prices are illustrations.
const cardJSON = `{"currency": "CZK",
 "zones": [
  {"name": "CZ", "countries": ["CZ"], "per": "parcel",
   "bands": [{"from_kg": 0, "until_kg": 5, "price": 9900}, {"from_kg": 5, "until_kg": 31.5, "price": 14900}]},
  {"name": "SK", "countries": ["SK"], "per": "parcel",
   "bands": [{"from_kg": 0, "until_kg": 5, "price": 12900}, {"from_kg": 5, "until_kg": 31.5, "price": 17900}]},
  {"name": "SK-EAST", "postal_codes": [{"country": "SK", "prefix": "04"}, {"country": "SK", "from": "06000", "to": "09999"}], "per": "parcel",
   "bands": [{"from_kg": 0, "until_kg": 5, "price": 13900}, {"from_kg": 5, "until_kg": 31.5, "price": 18900}]},
  {"name": "PALLET-DE", "countries": ["DE"], "per": "shipment",
   "bands": [{"from_kg": 0, "until_kg": 100, "price": 200000}, {"from_kg": 100, "until_kg": 1000, "price": 450000}]}
 ],
 "surcharges": {"cod_fee": 2500, "pickup_point_fee": 1000, "fuel_percent": 12.5,
  "oversize": {"fee": 15000, "longest_side_cm_over": 120, "girth_cm_over": 300}}}`

func card(t *testing.T) domain.RateCard {
	t.Helper()
	c, err := domain.ParseRateCard([]byte(cardJSON))
	if err != nil {
		t.Fatalf("ParseRateCard: %v", err)
	}
	return c
}

func kgs(w ...float64) []domain.PricedParcel {
	var ps []domain.PricedParcel
	for _, x := range w {
		ps = append(ps, domain.PricedParcel{WeightKG: x, LengthCM: 30, WidthCM: 20, HeightCM: 10})
	}
	return ps
}

func TestRateCardPrice(t *testing.T) {
	c := card(t)
	big := func(l, w, h float64) []domain.PricedParcel {
		return []domain.PricedParcel{{WeightKG: 1, LengthCM: l, WidthCM: w, HeightCM: h}}
	}
	// Fuel is 12.5 % of the base, half up: 9900 → 1237.5 → 1238.
	cases := []struct {
		name        string
		req         domain.PriceRequest
		zone        string
		total, fuel int64
	}{
		{"CZ at exactly 5 kg is the band until 5", domain.PriceRequest{Country: "CZ", PostalCode: "11000", Parcels: kgs(5)}, "CZ", 9900 + 1238, 1238},
		{"CZ at 5.001 kg is the next band", domain.PriceRequest{Country: "CZ", Parcels: kgs(5.001)}, "CZ", 14900 + 1863, 1863},
		{"a fraction of a gram over 5 kg rounds up", domain.PriceRequest{Country: "CZ", Parcels: kgs(5.0004)}, "CZ", 14900 + 1863, 1863},
		{"float noise stays in the band", domain.PriceRequest{Country: "CZ", Parcels: kgs(0.1 + 0.2)}, "CZ", 9900 + 1238, 1238},
		{"the last band's limit", domain.PriceRequest{Country: "CZ", Parcels: kgs(31.5)}, "CZ", 14900 + 1863, 1863},
		{"SK outside the east: the country zone", domain.PriceRequest{Country: "SK", PostalCode: "811 01", Parcels: kgs(2)}, "SK", 12900 + 1613, 1613},
		{"SK prefix 04: the postal zone wins", domain.PriceRequest{Country: "SK", PostalCode: "040 01", Parcels: kgs(2)}, "SK-EAST", 13900 + 1738, 1738},
		{"SK range, spaces and hyphens dropped", domain.PriceRequest{Country: "SK", PostalCode: "09-999", Parcels: kgs(6)}, "SK-EAST", 18900 + 2363, 2363},
		{"SK just past the range", domain.PriceRequest{Country: "SK", PostalCode: "10000", Parcels: kgs(6)}, "SK", 17900 + 2238, 2238},
		{"a shorter code is not in a 5-digit range", domain.PriceRequest{Country: "SK", PostalCode: "0700", Parcels: kgs(2)}, "SK", 12900 + 1613, 1613},
		{"prefix 04 is of SK only", domain.PriceRequest{Country: "CZ", PostalCode: "04001", Parcels: kgs(2)}, "CZ", 9900 + 1238, 1238},
		{"two parcels, each its band", domain.PriceRequest{Country: "CZ", Parcels: kgs(1, 10)}, "CZ", 24800 + 3100, 3100},
		{"COD and pickup point, fuel on the base only", domain.PriceRequest{Country: "CZ", Parcels: kgs(1), COD: true, PickupPoint: true}, "CZ", 9900 + 1238 + 2500 + 1000, 1238},
		{"COD only", domain.PriceRequest{Country: "CZ", Parcels: kgs(1), COD: true}, "CZ", 9900 + 1238 + 2500, 1238},
		{"longest side 121 cm: oversize", domain.PriceRequest{Country: "CZ", Parcels: big(10, 121, 10)}, "CZ", 9900 + 1238 + 15000, 1238},
		{"longest side exactly 120 cm: none", domain.PriceRequest{Country: "CZ", Parcels: big(120, 10, 10)}, "CZ", 9900 + 1238, 1238},
		{"girth 100+2*60+2*50 = 320 cm: oversize", domain.PriceRequest{Country: "CZ", Parcels: big(60, 100, 50)}, "CZ", 9900 + 1238 + 15000, 1238},
		{"girth exactly 300 cm: none", domain.PriceRequest{Country: "CZ", Parcels: big(100, 50, 50)}, "CZ", 9900 + 1238, 1238},
		{"both limits exceeded: one fee a parcel", domain.PriceRequest{Country: "CZ", Parcels: append(big(150, 80, 80), big(150, 80, 80)...)}, "CZ", 2*9900 + 2475 + 2*15000, 2475},
		{"per shipment: the total weight's band", domain.PriceRequest{Country: "DE", Parcels: kgs(60, 60)}, "PALLET-DE", 450000 + 56250, 56250},
		{"per shipment at exactly 100 kg", domain.PriceRequest{Country: "DE", Parcels: kgs(50, 50)}, "PALLET-DE", 200000 + 25000, 25000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := c.Price(tc.req)
			if err != nil {
				t.Fatalf("Price: %v", err)
			}
			if q.Zone != tc.zone || q.Total != (carrier.Money{Minor: tc.total, Currency: "CZK"}) || q.Fuel != tc.fuel {
				t.Errorf("zone %s total %v fuel %d, want %s %d %d", q.Zone, q.Total, q.Fuel, tc.zone, tc.total, tc.fuel)
			}
			if sum := q.Base + q.Fuel + q.Oversize + q.CODFee + q.PickupPointFee; sum != q.Total.Minor {
				t.Errorf("lines sum to %d, total %d", sum, q.Total.Minor)
			}
		})
	}
}

func TestRateCardCannotPrice(t *testing.T) {
	c := card(t)
	cases := []struct {
		name string
		req  domain.PriceRequest
		want error
	}{
		{"no zone covers AT", domain.PriceRequest{Country: "AT", PostalCode: "1010", Parcels: kgs(1)}, domain.ErrNoZone},
		{"heavier than every band", domain.PriceRequest{Country: "CZ", Parcels: kgs(31.501)}, domain.ErrTooHeavy},
		{"one parcel of two too heavy", domain.PriceRequest{Country: "CZ", Parcels: kgs(1, 40)}, domain.ErrTooHeavy},
		{"a shipment over the last band", domain.PriceRequest{Country: "DE", Parcels: kgs(600, 401)}, domain.ErrTooHeavy},
		{"an absurd weight", domain.PriceRequest{Country: "CZ", Parcels: kgs(1e300)}, domain.ErrTooHeavy},
		{"zero weight", domain.PriceRequest{Country: "CZ", Parcels: kgs(0)}, domain.ErrBadPriceItem},
		{"no parcels", domain.PriceRequest{Country: "CZ"}, domain.ErrBadPriceItem},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := c.Price(tc.req)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Price = %v, %v; want %v", q, err, tc.want)
			}
		})
	}
}

func TestRateCardValidation(t *testing.T) {
	cases := []struct {
		name   string
		change func(c *domain.RateCard)
		want   map[string]string
	}{
		{"a gap between bands", func(c *domain.RateCard) { c.Zones[0].Bands[1].FromGrams = 6000 },
			map[string]string{"zones.0.bands.1.from_kg": "leaves a gap after the previous band (until 5 kg)"}},
		{"overlapping bands", func(c *domain.RateCard) { c.Zones[1].Bands[1].FromGrams = 4000 },
			map[string]string{"zones.1.bands.1.from_kg": "overlaps the previous band"}},
		{"a band ending where it starts", func(c *domain.RateCard) { c.Zones[2].Bands[1].UntilGrams = 5000 },
			map[string]string{"zones.2.bands.1.until_kg": "must be more than from_kg"}},
		{"the first band not from 0", func(c *domain.RateCard) { c.Zones[0].Bands[0].FromGrams = 1 },
			map[string]string{"zones.0.bands.0.from_kg": "must be 0"}},
		{"a negative price", func(c *domain.RateCard) { c.Zones[3].Bands[1].PriceMinor = -1 },
			map[string]string{"zones.3.bands.1.price": "must not be negative"}},
		{"a negative fee", func(c *domain.RateCard) { c.Surcharges.CODMinor = -100 },
			map[string]string{"surcharges.cod_fee": "must not be negative"}},
		{"an unknown currency", func(c *domain.RateCard) { c.Currency = "XYZ" },
			map[string]string{"currency": "ISO 4217"}},
		{"an empty card", func(c *domain.RateCard) { *c = domain.RateCard{Currency: "CZK"} },
			map[string]string{"zones": "at least one zone"}},
		{"fuel over 100 %", func(c *domain.RateCard) { c.Surcharges.FuelBasisPoints = 10001 },
			map[string]string{"surcharges.fuel_percent": "between 0 and 100"}},
		{"fuel negative", func(c *domain.RateCard) { c.Surcharges.FuelBasisPoints = -1 },
			map[string]string{"surcharges.fuel_percent": "between 0 and 100"}},
		{"a country in two zones", func(c *domain.RateCard) { c.Zones[3].Countries = []string{"AT", "CZ"} },
			map[string]string{"zones.3.countries.1": "overlaps zones.0.countries.0"}},
		{"a prefix inside another zone's range", func(c *domain.RateCard) {
			c.Zones[1].Postal = []domain.PostalArea{{Country: "SK", Prefix: "071"}}
		}, map[string]string{"zones.2.postal_codes.1": "overlaps zones.1.postal_codes.0"}},
		{"nested prefixes", func(c *domain.RateCard) {
			c.Zones[2].Postal = append(c.Zones[2].Postal, domain.PostalArea{Country: "SK", Prefix: "0"})
		}, map[string]string{"zones.2.postal_codes.2": "overlaps zones.2.postal_codes.0"}},
		{"overlapping ranges", func(c *domain.RateCard) {
			c.Zones[0].Postal = []domain.PostalArea{{Country: "SK", From: "09000", To: "10999"}}
		}, map[string]string{"zones.2.postal_codes.1": "overlaps zones.0.postal_codes.0"}},
		{"the same prefix in another country is no overlap", func(c *domain.RateCard) {
			c.Zones[0].Postal = []domain.PostalArea{{Country: "CZ", Prefix: "04"}}
		}, nil},
		{"a range backwards", func(c *domain.RateCard) {
			c.Zones[2].Postal[1] = domain.PostalArea{Country: "SK", From: "09999", To: "06000"}
		},
			map[string]string{"zones.2.postal_codes.1.to": "must not be before from"}},
		{"a range of two lengths", func(c *domain.RateCard) {
			c.Zones[2].Postal[1] = domain.PostalArea{Country: "SK", From: "0600", To: "09999"}
		},
			map[string]string{"zones.2.postal_codes.1.to": "as long as from"}},
		{"a lower-case prefix", func(c *domain.RateCard) { c.Zones[2].Postal[0].Prefix = "ab" },
			map[string]string{"zones.2.postal_codes.0.prefix": "upper-case letters and digits"}},
		{"an unknown country", func(c *domain.RateCard) { c.Zones[0].Countries[0] = "XX" },
			map[string]string{"zones.0.countries.0": "ISO 3166-1"}},
		{"a zone of nothing", func(c *domain.RateCard) { c.Zones[0].Countries = nil },
			map[string]string{"zones.0": "must name countries or postal codes"}},
		{"two zones of one name", func(c *domain.RateCard) { c.Zones[1].Name = "CZ" },
			map[string]string{"zones.1.name": "repeats the name of zones.0"}},
		{"no bands", func(c *domain.RateCard) { c.Zones[1].Bands = nil },
			map[string]string{"zones.1.bands": "at least one weight band"}},
		{"too many postal areas to check", func(c *domain.RateCard) {
			for i := range domain.MaxCardAreas {
				c.Zones[0].Postal = append(c.Zones[0].Postal, domain.PostalArea{Country: "AT", From: fmt.Sprintf("%05d", i), To: fmt.Sprintf("%05d", i)})
			}
		}, map[string]string{"zones": "at most 10000 postal areas"}},
		{"an unknown pricing unit", func(c *domain.RateCard) { c.Zones[1].Per = "pallet" },
			map[string]string{"zones.1.per": "parcel or shipment"}},
		{"an oversize fee without a limit", func(c *domain.RateCard) { c.Surcharges.OversizeLongestCM, c.Surcharges.OversizeGirthCM = 0, 0 },
			map[string]string{"surcharges.oversize": "needs a longest side or girth limit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := card(t)
			tc.change(&c)
			err := c.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			faulttest.WantFields(t, err, tc.want)
		})
	}
}

func TestParseRateCardRefuses(t *testing.T) {
	cases := []struct {
		name, from, to string
		want           map[string]string
	}{
		{"fuel with three decimals", `"fuel_percent": 12.5`, `"fuel_percent": 12.555`,
			map[string]string{"surcharges.fuel_percent": "at most two decimals"}},
		{"fuel in exponent form", `"fuel_percent": 12.5`, `"fuel_percent": 1.25e1`,
			map[string]string{"surcharges.fuel_percent": "at most two decimals"}},
		{"a weight finer than a gram", `"until_kg": 31.5, "price": 14900`, `"until_kg": 31.5001, "price": 14900`,
			map[string]string{"zones.0.bands.1.until_kg": "at most three decimals"}},
		{"a misspelt surcharge", `"cod_fee"`, `"cod_fe"`,
			map[string]string{"rate_card": `unknown field "cod_fe"`}},
		{"a missing weight", `{"from_kg": 0, "until_kg": 5, "price": 9900}`, `{"until_kg": 5, "price": 9900}`,
			map[string]string{"zones.0.bands.0.from_kg": "is required"}},
		{"a price in major units", `"price": 9900`, `"price": 99.00`,
			map[string]string{"rate_card": "cannot unmarshal number 99.00"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(cardJSON, tc.from, tc.to, 1)
			if in == cardJSON {
				t.Fatalf("%q is not in the card", tc.from)
			}
			_, err := domain.ParseRateCard([]byte(in))
			faulttest.WantFields(t, err, tc.want)
		})
	}
	_, err := domain.ParseRateCard([]byte(cardJSON + "{}"))
	faulttest.WantFields(t, err, map[string]string{"rate_card": "one JSON object"})
}

func TestRateCardJSONRoundTrip(t *testing.T) {
	c := card(t)
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := domain.ParseRateCard(data)
	if err != nil {
		t.Fatalf("ParseRateCard(%s): %v", data, err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("round trip\n got %+v\nwant %+v", back, c)
	}
	if !bytes.Contains(data, []byte(`"until_kg":31.5`)) || !bytes.Contains(data, []byte(`"fuel_percent":12.5`)) {
		t.Errorf("JSON %s: want weights and percent as plain decimals", data)
	}
}

func TestRateCardCSVRoundTrip(t *testing.T) {
	c := card(t)
	var buf bytes.Buffer
	if err := domain.ExportRateCardCSV(c, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "rate,SK-EAST,,SK:04* SK:06000-09999,5,31.5,189.00,parcel\n") {
		t.Errorf("CSV:\n%s", buf.String())
	}
	back, err := domain.ImportRateCardCSV(&buf)
	if err != nil {
		t.Fatalf("ImportRateCardCSV: %v", err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("round trip\n got %+v\nwant %+v", back, c)
	}
}

// An Excel export in a CZ locale: BOM, semicolons, decimal commas, columns
// in another order.
func TestRateCardCSVSemicolonsAndDecimalCommas(t *testing.T) {
	in := "\xef\xbb\xbfzone;record;countries;postal_codes;from_kg;until_kg;value;per\r\n" +
		";currency;;;;;EUR;\r\n" +
		"SK;rate;SK;;0;2,5;4,90;parcel\r\n" +
		"SK;rate;;;2,5;10;6.90;\r\n" +
		";fuel_percent;;;;;7,25;\r\n"
	c, err := domain.ImportRateCardCSV(strings.NewReader(in))
	if err != nil {
		t.Fatalf("ImportRateCardCSV: %v", err)
	}
	want := domain.RateCard{Currency: "EUR", Zones: []domain.Zone{{Name: "SK", Countries: []string{"SK"}, Per: "parcel",
		Bands: []domain.Band{{FromGrams: 0, UntilGrams: 2500, PriceMinor: 490}, {FromGrams: 2500, UntilGrams: 10000, PriceMinor: 690}}}},
		Surcharges: domain.Surcharges{FuelBasisPoints: 725}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
}

const csvHead = "record,zone,countries,postal_codes,from_kg,until_kg,value,per\ncurrency,,,,,,CZK,\n"

func TestRateCardCSVRefusals(t *testing.T) {
	cases := []struct {
		name, in string
		want     map[string]string
	}{
		{"a gap", csvHead + "rate,CZ,CZ,,0,5,99,parcel\nrate,CZ,,,6,10,120,\n",
			map[string]string{"row 4, column from_kg": "leaves a gap"}},
		{"an overlap", csvHead + "rate,CZ,CZ,,0,5,99,parcel\nrate,CZ,,,4,10,120,\n",
			map[string]string{"row 4, column from_kg": "overlaps the previous band"}},
		{"a negative price", csvHead + "rate,CZ,CZ,,0,5,-99,parcel\n",
			map[string]string{"row 3, column value": "must not be negative"}},
		{"too many decimals for CZK", csvHead + "rate,CZ,CZ,,0,5,99.001,parcel\n",
			map[string]string{"row 3, column value": "at most 2 decimals"}},
		{"an exponent", csvHead + "rate,CZ,CZ,,0,1e1,99,parcel\n",
			map[string]string{"row 3, column until_kg": "kilograms"}},
		{"a decimal comma in a comma file is a cell too many", csvHead + "rate,CZ,CZ,,0,5,\"99,00\",parcel\n",
			map[string]string{"row 3, column value": "a decimal point"}},
		{"an unknown currency", "record,zone,countries,postal_codes,from_kg,until_kg,value,per\ncurrency,,,,,,CZX,\nrate,CZ,CZ,,0,5,99,parcel\n",
			map[string]string{"row 2, column value": "ISO 4217"}},
		{"zones overlapping", csvHead + "rate,CZ,CZ,,0,5,99,parcel\nrate,CZ2,CZ,,0,5,99,parcel\n",
			map[string]string{"row 4, column countries": "overlaps zones.0.countries.0"}},
		{"a zone redefined", csvHead + "rate,CZ,CZ,,0,5,99,parcel\nrate,CZ,SK,,5,10,99,\n",
			map[string]string{"row 4, column countries": "repeat the zone's countries"}},
		{"a bad postal area", csvHead + "rate,SK,,SK:04,0,5,99,parcel\n",
			map[string]string{"row 3, column postal_codes": "CC:PREFIX* or CC:FROM-TO"}},
		{"a surcharge twice", csvHead + "rate,CZ,CZ,,0,5,99,parcel\ncod_fee,,,,,,25,\ncod_fee,,,,,,30,\n",
			map[string]string{"row 5, column record": "repeats row 4"}},
		{"fuel over 100", csvHead + "rate,CZ,CZ,,0,5,99,parcel\nfuel_percent,,,,,,101,\n",
			map[string]string{"row 4, column value": "between 0 and 100"}},
		{"an unknown record", csvHead + "toll,,,,,,5,\n",
			map[string]string{"row 3, column record": "must be one of"}},
		{"an unknown column", "record,zone,countries,postal_codes,from_kg,until_kg,value,per,vat\n",
			map[string]string{"row 1, column 9": `unknown column "vat"`}},
		{"a missing column", "record,zone,countries,postal_codes,from_kg,until_kg,value\n",
			map[string]string{"row 1, column per": "is missing"}},
		{"a row of the wrong width", csvHead + "rate,CZ,CZ,,0,5,99\n",
			map[string]string{"row 3": "wrong number of fields"}},
		{"an empty file", "", map[string]string{"file": "is empty"}},
		{"a header only", "\xef\xbb\xbfrecord,zone,countries,postal_codes,from_kg,until_kg,value,per\n",
			map[string]string{"file": "only the header"}},
		{"no zones", csvHead, map[string]string{"file": "at least one zone"}},
		// "Košice" in Windows-1250: š is 0x9A, no UTF-8.
		{"Windows-1250", csvHead + "rate,Ko\x9aice,SK,,0,5,99,parcel\n",
			map[string]string{"file": "row 3 (byte 88) is not UTF-8"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := domain.ImportRateCardCSV(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("ImportRateCardCSV = %+v, want an error", c)
			}
			faulttest.WantFields(t, err, tc.want)
		})
	}
}

func TestRateCardCSVSize(t *testing.T) {
	row := "rate,CZ,,,0,5,99,\n"
	fill := strings.Repeat(row, (domain.MaxRateCardCSVBytes-len(csvHead))/len(row)+1)
	_, err := domain.ImportRateCardCSV(strings.NewReader(csvHead + fill))
	if !errors.Is(err, domain.ErrRateCardCSVTooLarge) {
		t.Fatalf("a file over 10 MB: %v, want ErrRateCardCSVTooLarge", err)
	}
	faulttest.WantFields(t, err, map[string]string{"file": "at most 10 MB"})

	// Exactly at the limit is read (and refused for its content, not its size).
	exact := csvHead + strings.Repeat(" ", domain.MaxRateCardCSVBytes-len(csvHead))
	_, err = domain.ImportRateCardCSV(strings.NewReader(exact))
	if errors.Is(err, domain.ErrRateCardCSVTooLarge) {
		t.Fatalf("a file of exactly 10 MB: %v", err)
	}
	if _, ok := fault.As(err); !ok {
		t.Fatalf("a file of exactly 10 MB: %v, want a validation fault", err)
	}
}
