package domain

// A rate card is a channel's contract prices (issue 34, research §17-19):
// the merchant types in what the carrier's price list says, and shipd
// quotes from it for carriers without a rate API. This file holds the value
// and its rules; ratecard_json.go reads and writes it, ratecard_price.go
// prices a shipment with it, ratecard_csv.go imports the carriers' lists.
//
// Semantics (for the ADR):
//   - One currency per card (ISO 4217); every amount is in its minor units.
//   - A zone names whole countries and/or postal areas of a country: a
//     prefix ("04") or an inclusive range ("06000"-"09999", both ends of one
//     length, matching only codes of that length). Postal codes compare
//     upper-cased with spaces and hyphens removed.
//   - Zones may nest: a destination matched by a postal area of one zone and
//     by the country of another is priced by the postal area (the most
//     specific wins). Two countries or two postal areas that overlap, in one
//     zone or in two, are refused: no card leaves the choice to order.
//   - A zone's weight bands are half-open (from, until]: 5 kg falls in the
//     band until 5, 5.001 kg in the next. The first band starts at 0 and each
//     starts where the previous ended (gaps and overlaps are refused).
//     Weights count in whole grams; a fraction of a gram rounds up.
//   - A zone prices per parcel (each parcel its band, summed) or per
//     shipment (the parcels' total weight, one band).
//   - Surcharges: a COD fee and a pickup-point fee, fixed, once a shipment
//     when it has COD or a pickup point; an oversize fee, fixed, once for each
//     parcel whose longest side or whose girth (longest + 2 × each other side)
//     exceeds the card's limit; fuel, a percentage of the base price only (the
//     band prices, not the other surcharges), rounded once, half up, to the
//     currency's minor unit. Total = base + fuel + oversize + COD + pickup.
//   - Prices may be zero (free zones exist), never negative; fuel is 0..100 %
//     with at most two decimals.

import (
	"strconv"
	"strings"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// The bounds of a card, so a large upload cannot blow up memory or sums:
// MaxAmountMinor × MaxPricedParcels × 10000 stays inside int64.
const (
	MaxRateCardZones   = 1000
	MaxZoneBands       = 1000
	MaxCardAreas       = 10000           // postal areas of all zones: overlaps are checked pairwise per country
	MaxAmountMinor     = 100_000_000_000 // a billion in major units
	MaxBandGrams       = 100_000_000     // 100 t: pallets and freight
	MaxPricedParcels   = 1000
	MaxPostalCodeChars = 20
)

// Pricing units of a zone.
const (
	PerParcel   = "parcel"
	PerShipment = "shipment"
)

// RateCard is a channel's price list. Build it with ParseRateCard or
// ImportRateCardCSV, or fill it in and call Validate: Price assumes a valid
// card.
type RateCard struct {
	Currency   string
	Zones      []Zone
	Surcharges Surcharges
}

// Zone is a destination area with its weight bands.
type Zone struct {
	Name      string
	Countries []string     // ISO 3166-1 alpha-2, the whole country
	Postal    []PostalArea // parts of a country, more specific than Countries
	Per       string       // PerParcel or PerShipment
	Bands     []Band
}

// PostalArea is a prefix or an inclusive range of a country's postal codes:
// exactly one of Prefix or From/To is set.
type PostalArea struct {
	Country  string
	Prefix   string
	From, To string
}

// Band prices weights in (FromGrams, UntilGrams].
type Band struct {
	FromGrams, UntilGrams int64
	PriceMinor            int64
}

// Surcharges are the card's fees; a zero fee or limit is none.
type Surcharges struct {
	CODMinor          int64
	PickupPointMinor  int64
	FuelBasisPoints   int64 // hundredths of a percent: 1250 = 12.5 %
	OversizeMinor     int64
	OversizeLongestCM int64 // the fee applies when the longest side exceeds it
	OversizeGirthCM   int64 // or the girth exceeds it
}

// Validate checks every rule above, naming each problem by its JSON path.
func (c RateCard) Validate() error {
	errs := fault.FieldErrors{}
	c.validate(errs)
	return errs.Err()
}

func (c RateCard) validate(errs fault.FieldErrors) {
	switch {
	case c.Currency == "":
		errs.Add("currency", "is required")
	case !carrier.IsCurrencyCode(c.Currency):
		errs.Add("currency", "must be an ISO 4217 currency code")
	}
	switch {
	case len(c.Zones) == 0:
		errs.Add("zones", "must name at least one zone")
	case len(c.Zones) > MaxRateCardZones:
		errs.Add("zones", "must be at most "+strconv.Itoa(MaxRateCardZones)+" zones")
		return
	}
	names := map[string]int{}
	for i, z := range c.Zones {
		p := "zones." + strconv.Itoa(i)
		if z.Name == "" {
			errs.Add(p+".name", "is required")
		} else if j, ok := names[z.Name]; ok {
			errs.Add(p+".name", "repeats the name of zones."+strconv.Itoa(j))
		} else {
			names[z.Name] = i
		}
		validateZone(errs, p, z)
	}
	areas := 0
	for _, z := range c.Zones {
		areas += len(z.Postal)
	}
	if areas > MaxCardAreas {
		errs.Add("zones", "must hold at most "+strconv.Itoa(MaxCardAreas)+" postal areas in all")
	} else {
		validateOverlaps(errs, c.Zones)
	}
	s := c.Surcharges
	amount(errs, "surcharges.cod_fee", s.CODMinor)
	amount(errs, "surcharges.pickup_point_fee", s.PickupPointMinor)
	amount(errs, "surcharges.oversize.fee", s.OversizeMinor)
	if s.FuelBasisPoints < 0 || s.FuelBasisPoints > 10000 {
		errs.Add("surcharges.fuel_percent", "must be between 0 and 100")
	}
	if s.OversizeLongestCM < 0 {
		errs.Add("surcharges.oversize.longest_side_cm_over", "must not be negative")
	}
	if s.OversizeGirthCM < 0 {
		errs.Add("surcharges.oversize.girth_cm_over", "must not be negative")
	}
	if s.OversizeMinor > 0 && s.OversizeLongestCM == 0 && s.OversizeGirthCM == 0 {
		errs.Add("surcharges.oversize", "a fee needs a longest side or girth limit")
	}
}

func amount(errs fault.FieldErrors, path string, minor int64) {
	switch {
	case minor < 0:
		errs.Add(path, "must not be negative")
	case minor > MaxAmountMinor:
		errs.Add(path, "is too large")
	}
}

func validateZone(errs fault.FieldErrors, p string, z Zone) {
	if len(z.Countries) == 0 && len(z.Postal) == 0 {
		errs.Add(p, "must name countries or postal codes")
	}
	for i, cc := range z.Countries {
		if !carrier.IsCountryCode(cc) {
			errs.Add(p+".countries."+strconv.Itoa(i), "must be an ISO 3166-1 alpha-2 country code")
		}
	}
	for i, a := range z.Postal {
		ap := p + ".postal_codes." + strconv.Itoa(i)
		if !carrier.IsCountryCode(a.Country) {
			errs.Add(ap+".country", "must be an ISO 3166-1 alpha-2 country code")
		}
		switch {
		case a.Prefix != "" && (a.From != "" || a.To != ""):
			errs.Add(ap, "must be a prefix or a from/to range, not both")
		case a.Prefix != "":
			postalCode(errs, ap+".prefix", a.Prefix)
		case a.From == "" || a.To == "":
			errs.Add(ap, "needs a prefix or both from and to")
		default:
			postalCode(errs, ap+".from", a.From)
			postalCode(errs, ap+".to", a.To)
			if len(a.From) != len(a.To) {
				errs.Add(ap+".to", "must be as long as from")
			} else if a.From > a.To {
				errs.Add(ap+".to", "must not be before from")
			}
		}
	}
	if z.Per != PerParcel && z.Per != PerShipment {
		errs.Add(p+".per", "must be parcel or shipment")
	}
	switch {
	case len(z.Bands) == 0:
		errs.Add(p+".bands", "must hold at least one weight band")
	case len(z.Bands) > MaxZoneBands:
		errs.Add(p+".bands", "must be at most "+strconv.Itoa(MaxZoneBands)+" bands")
		return
	}
	var prev int64
	for i, b := range z.Bands {
		bp := p + ".bands." + strconv.Itoa(i)
		switch {
		case b.FromGrams < 0:
			errs.Add(bp+".from_kg", "must not be negative")
		case i == 0 && b.FromGrams != 0:
			errs.Add(bp+".from_kg", "must be 0: the first band starts at zero")
		case b.FromGrams > prev:
			errs.Add(bp+".from_kg", "leaves a gap after the previous band (until "+kg(prev)+" kg)")
		case b.FromGrams < prev:
			errs.Add(bp+".from_kg", "overlaps the previous band (until "+kg(prev)+" kg)")
		}
		switch {
		case b.UntilGrams <= b.FromGrams:
			errs.Add(bp+".until_kg", "must be more than from_kg")
		case b.UntilGrams > MaxBandGrams:
			errs.Add(bp+".until_kg", "must be at most "+kg(MaxBandGrams)+" kg")
		}
		amount(errs, bp+".price", b.PriceMinor)
		prev = b.UntilGrams
	}
}

// postalCode requires a code already in the form Price compares.
func postalCode(errs fault.FieldErrors, path, code string) {
	if code == "" || len(code) > MaxPostalCodeChars || NormalizePostalCode(code) != code {
		errs.Add(path, "must be 1 to "+strconv.Itoa(MaxPostalCodeChars)+" upper-case letters and digits")
	}
}

// NormalizePostalCode upper-cases a postal code and drops spaces and
// hyphens ("04 001" and "04-001" are "04001"); any other character is kept,
// so it matches no area (areas hold letters and digits only).
func NormalizePostalCode(code string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(code) {
		if r == ' ' || r == '-' {
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') {
			return s + "\x00" // keeps it unequal to any valid area
		}
	}
	return s
}

// validateOverlaps refuses two zones (or one zone twice) claiming the same
// country, or postal areas of one country that share a code.
func validateOverlaps(errs fault.FieldErrors, zones []Zone) {
	country := map[string]string{}
	type area struct {
		path string
		a    PostalArea
	}
	byCountry := map[string][]area{}
	for i, z := range zones {
		p := "zones." + strconv.Itoa(i)
		for j, cc := range z.Countries {
			cp := p + ".countries." + strconv.Itoa(j)
			if first, ok := country[cc]; ok {
				errs.Add(cp, "overlaps "+first+": "+cc+" is in two zones")
				continue
			}
			country[cc] = cp
		}
		for j, a := range z.Postal {
			ap := p + ".postal_codes." + strconv.Itoa(j)
			for _, o := range byCountry[a.Country] {
				if areasOverlap(a, o.a) {
					errs.Add(ap, "overlaps "+o.path)
					break
				}
			}
			byCountry[a.Country] = append(byCountry[a.Country], area{ap, a})
		}
	}
}

// areasOverlap reports whether some postal code lies in both areas. The
// codes of one length with a given prefix are the interval
// [prefix+"000…", prefix+"ZZZ…"] in byte order.
func areasOverlap(a, b PostalArea) bool {
	switch {
	case a.Prefix != "" && b.Prefix != "":
		return strings.HasPrefix(a.Prefix, b.Prefix) || strings.HasPrefix(b.Prefix, a.Prefix)
	case a.Prefix != "":
		return prefixMeetsRange(a.Prefix, b)
	case b.Prefix != "":
		return prefixMeetsRange(b.Prefix, a)
	default:
		return len(a.From) == len(b.From) && a.From <= b.To && b.From <= a.To
	}
}

func prefixMeetsRange(prefix string, r PostalArea) bool {
	n := len(r.From)
	if len(prefix) > n {
		return false
	}
	lo := prefix + strings.Repeat("0", n-len(prefix))
	hi := prefix + strings.Repeat("Z", n-len(prefix))
	return lo <= r.To && r.From <= hi
}

func (a PostalArea) covers(code string) bool {
	if a.Prefix != "" {
		return strings.HasPrefix(code, a.Prefix)
	}
	return len(code) == len(a.From) && a.From <= code && code <= a.To
}

// kg formats grams as the shortest decimal of kilograms: 5000 → "5", 31500 → "31.5".
func kg(grams int64) string {
	return fixed(grams, 3)
}

// fixed formats an integer of digits decimals without trailing zeros.
func fixed(v int64, digits int) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	if digits > 0 {
		for len(s) <= digits {
			s = "0" + s
		}
		s = s[:len(s)-digits] + "." + s[len(s)-digits:]
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// parseFixed reads a plain decimal ("12", "12.5", "-3") into an integer of
// digits decimals, refusing exponents, NaN, signs other than a leading minus,
// thousands separators and more decimals than digits.
func parseFixed(s string, digits int) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || len(frac) > digits || len(whole) > 15 {
		return 0, false
	}
	for _, r := range whole + frac {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	frac += strings.Repeat("0", digits-len(frac))
	v, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || v > 1<<53 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
