package domain

import (
	"bytes"
	"encoding/json"
	"strconv"

	"shipd/platform/fault"
)

// The card's JSON: amounts in minor units (integers, as carrier.Money),
// weights in kg and the fuel percentage as JSON numbers read exactly
// (weights to the gram, percent to two decimals), never through a float.
type rateCardJSON struct {
	Currency   string         `json:"currency"`
	Zones      []zoneJSON     `json:"zones"`
	Surcharges surchargesJSON `json:"surcharges"`
}

type zoneJSON struct {
	Name        string           `json:"name"`
	Countries   []string         `json:"countries,omitempty"`
	PostalCodes []postalAreaJSON `json:"postal_codes,omitempty"`
	Per         string           `json:"per"`
	Bands       []bandJSON       `json:"bands"`
}

type postalAreaJSON struct {
	Country string `json:"country"`
	Prefix  string `json:"prefix,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
}

type bandJSON struct {
	FromKG  json.Number `json:"from_kg"`
	UntilKG json.Number `json:"until_kg"`
	Price   int64       `json:"price"`
}

type surchargesJSON struct {
	CODFee         int64        `json:"cod_fee,omitempty"`
	PickupPointFee int64        `json:"pickup_point_fee,omitempty"`
	FuelPercent    json.Number  `json:"fuel_percent,omitempty"`
	Oversize       oversizeJSON `json:"oversize"`
}

type oversizeJSON struct {
	Fee               int64 `json:"fee,omitempty"`
	LongestSideCMOver int64 `json:"longest_side_cm_over,omitempty"`
	GirthCMOver       int64 `json:"girth_cm_over,omitempty"`
}

// ParseRateCard reads and validates a JSON card; every problem is a
// fault.FieldErrors entry naming its JSON path (zones.2.bands.1.until_kg).
// Unknown members are refused, so a misspelt surcharge is not silently free.
func ParseRateCard(data []byte) (RateCard, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in rateCardJSON
	if err := dec.Decode(&in); err != nil {
		return RateCard{}, fault.Field("rate_card", "is not a valid rate card: "+err.Error())
	}
	if dec.More() {
		return RateCard{}, fault.Field("rate_card", "must be one JSON object")
	}
	errs := fault.FieldErrors{}
	c := RateCard{Currency: in.Currency, Surcharges: Surcharges{
		CODMinor: in.Surcharges.CODFee, PickupPointMinor: in.Surcharges.PickupPointFee,
		OversizeMinor: in.Surcharges.Oversize.Fee, OversizeLongestCM: in.Surcharges.Oversize.LongestSideCMOver,
		OversizeGirthCM: in.Surcharges.Oversize.GirthCMOver,
	}}
	if in.Surcharges.FuelPercent != "" {
		v, ok := parseFixed(string(in.Surcharges.FuelPercent), 2)
		if !ok {
			errs.Add("surcharges.fuel_percent", "must be a percentage with at most two decimals")
		}
		c.Surcharges.FuelBasisPoints = v
	}
	for i, z := range in.Zones {
		p := "zones." + strconv.Itoa(i)
		zone := Zone{Name: z.Name, Countries: z.Countries, Per: z.Per}
		for _, a := range z.PostalCodes {
			zone.Postal = append(zone.Postal, PostalArea(a))
		}
		for j, b := range z.Bands {
			bp := p + ".bands." + strconv.Itoa(j)
			zone.Bands = append(zone.Bands, Band{
				FromGrams: grams(errs, bp+".from_kg", b.FromKG), UntilGrams: grams(errs, bp+".until_kg", b.UntilKG),
				PriceMinor: b.Price,
			})
		}
		c.Zones = append(c.Zones, zone)
	}
	if len(errs) > 0 { // a band misread would add misleading gap errors
		return RateCard{}, errs.Err()
	}
	if err := c.Validate(); err != nil {
		return RateCard{}, err
	}
	return c, nil
}

func grams(errs fault.FieldErrors, path string, n json.Number) int64 {
	if n == "" {
		errs.Add(path, "is required")
		return 0
	}
	v, ok := parseFixed(string(n), 3)
	if !ok {
		errs.Add(path, "must be kilograms with at most three decimals")
	}
	return v
}

// MarshalJSON writes the card as ParseRateCard reads it.
func (c RateCard) MarshalJSON() ([]byte, error) {
	out := rateCardJSON{Currency: c.Currency, Zones: []zoneJSON{}, Surcharges: surchargesJSON{
		CODFee: c.Surcharges.CODMinor, PickupPointFee: c.Surcharges.PickupPointMinor,
		Oversize: oversizeJSON{Fee: c.Surcharges.OversizeMinor, LongestSideCMOver: c.Surcharges.OversizeLongestCM,
			GirthCMOver: c.Surcharges.OversizeGirthCM},
	}}
	if c.Surcharges.FuelBasisPoints != 0 {
		out.Surcharges.FuelPercent = json.Number(fixed(c.Surcharges.FuelBasisPoints, 2))
	}
	for _, z := range c.Zones {
		zj := zoneJSON{Name: z.Name, Countries: z.Countries, Per: z.Per, Bands: []bandJSON{}}
		for _, a := range z.Postal {
			zj.PostalCodes = append(zj.PostalCodes, postalAreaJSON(a))
		}
		for _, b := range z.Bands {
			zj.Bands = append(zj.Bands, bandJSON{FromKG: json.Number(kg(b.FromGrams)), UntilKG: json.Number(kg(b.UntilGrams)), Price: b.PriceMinor})
		}
		out.Zones = append(out.Zones, zj)
	}
	return json.Marshal(out)
}
