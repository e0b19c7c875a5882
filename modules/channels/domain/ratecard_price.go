package domain

import (
	"errors"
	"math"
	"slices"

	"shipd/platform/carrier"
)

// Why a card cannot price a shipment: a quote's reason, not a failure.
var (
	ErrNoZone       = errors.New("no zone of the rate card covers the destination")
	ErrTooHeavy     = errors.New("heavier than every weight band of the zone")
	ErrBadPriceItem = errors.New("the shipment cannot be priced")
)

// PriceRequest is what pricing needs of a shipment.
type PriceRequest struct {
	Country     string // ISO 3166-1 alpha-2
	PostalCode  string
	Parcels     []PricedParcel
	COD         bool
	PickupPoint bool
}

// PricedParcel is a parcel's weight (kg) and sides (cm; zero when unknown).
type PricedParcel struct {
	WeightKG                    float64
	LengthCM, WidthCM, HeightCM float64
}

// Quote is a card's price with its lines, so a user can check the sum.
type Quote struct {
	Zone                                         string
	Total                                        carrier.Money
	Base, Fuel, Oversize, CODFee, PickupPointFee int64 // minor units
}

// Price prices req with a valid card (see the file comment of ratecard.go
// for the rules), or says why it cannot: ErrNoZone, ErrTooHeavy or
// ErrBadPriceItem, wrapped with the detail.
func (c RateCard) Price(req PriceRequest) (Quote, error) {
	if len(req.Parcels) == 0 || len(req.Parcels) > MaxPricedParcels {
		return Quote{}, wrap(ErrBadPriceItem, "a shipment has 1 to 1000 parcels")
	}
	z, ok := c.zoneFor(req.Country, req.PostalCode)
	if !ok {
		return Quote{}, wrap(ErrNoZone, req.Country+" "+req.PostalCode)
	}
	q := Quote{Zone: z.Name}
	var total int64
	for _, p := range req.Parcels {
		g, ok := parcelGrams(p.WeightKG)
		if !ok {
			return Quote{}, wrap(ErrBadPriceItem, "a parcel's weight must be more than 0 kg")
		}
		total += g
		if z.Per == PerParcel {
			price, ok := z.band(g)
			if !ok {
				return Quote{}, wrap(ErrTooHeavy, "a parcel of "+kg(g)+" kg in zone "+z.Name)
			}
			q.Base += price
		}
		if c.oversize(p) {
			q.Oversize += c.Surcharges.OversizeMinor
		}
	}
	if z.Per == PerShipment {
		price, ok := z.band(total)
		if !ok {
			return Quote{}, wrap(ErrTooHeavy, "a shipment of "+kg(total)+" kg in zone "+z.Name)
		}
		q.Base = price
	}
	// Half up: amounts are never negative, so adding half the divisor does it.
	q.Fuel = (q.Base*c.Surcharges.FuelBasisPoints + 5000) / 10000
	if req.COD {
		q.CODFee = c.Surcharges.CODMinor
	}
	if req.PickupPoint {
		q.PickupPointFee = c.Surcharges.PickupPointMinor
	}
	q.Total = carrier.Money{Minor: q.Base + q.Fuel + q.Oversize + q.CODFee + q.PickupPointFee, Currency: c.Currency}
	return q, nil
}

type reason struct {
	kind   error
	detail string
}

func (r reason) Error() string { return r.kind.Error() + ": " + r.detail }
func (r reason) Unwrap() error { return r.kind }

func wrap(kind error, detail string) error { return reason{kind, detail} }

// zoneFor finds the zone of a postal area covering the code, else the zone
// naming the whole country; a valid card has at most one of each.
func (c RateCard) zoneFor(country, postal string) (Zone, bool) {
	code := NormalizePostalCode(postal)
	var byCountry *Zone
	for i := range c.Zones {
		z := &c.Zones[i]
		if code != "" {
			for _, a := range z.Postal {
				if a.Country == country && a.covers(code) {
					return *z, true
				}
			}
		}
		if byCountry == nil && slices.Contains(z.Countries, country) {
			byCountry = z
		}
	}
	if byCountry == nil {
		return Zone{}, false
	}
	return *byCountry, true
}

// band finds the price of (from, until] holding g grams.
func (z Zone) band(g int64) (int64, bool) {
	for _, b := range z.Bands {
		if g > b.FromGrams && g <= b.UntilGrams {
			return b.PriceMinor, true
		}
	}
	return 0, false
}

// parcelGrams counts a weight in whole grams, a fraction rounding up, so
// 5.0004 kg is over a 5 kg band's limit; the tolerance absorbs float noise
// such as 0.1+0.2.
func parcelGrams(w float64) (int64, bool) {
	if !(w > 0) { // also NaN
		return 0, false
	}
	if w > float64(MaxBandGrams)/1000 { // also +Inf: past every band
		return MaxBandGrams + 1, true
	}
	return int64(math.Ceil(w*1000 - 1e-6)), true
}

func (c RateCard) oversize(p PricedParcel) bool {
	s := c.Surcharges
	if s.OversizeMinor == 0 {
		return false
	}
	sides := []float64{p.LengthCM, p.WidthCM, p.HeightCM}
	slices.Sort(sides)
	longest := sides[2]
	girth := longest + 2*sides[0] + 2*sides[1]
	return s.OversizeLongestCM > 0 && longest > float64(s.OversizeLongestCM) ||
		s.OversizeGirthCM > 0 && girth > float64(s.OversizeGirthCM)
}
