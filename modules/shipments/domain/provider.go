package domain

import (
	"fmt"
	"math"
	"strconv"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// productType is the channel's product, else the default the provider
// publishes for the setting (the one its adapter books), else its first.
func productType(info carrier.ProviderInfo, settings carrier.Settings) string {
	if p := settings.String("productType"); p != "" {
		return p
	}
	for _, s := range info.Settings {
		if d, ok := s.Default.(string); ok && s.Key == "productType" && d != "" {
			return d
		}
	}
	if len(info.ProductTypes) > 0 {
		return info.ProductTypes[0].Code
	}
	return ""
}

// parcelCount says why n parcels are too many for product of the provider,
// "" when they are not: the limit GET /v1/providers publishes, the same
// number the carrier's adapter refuses past.
func parcelCount(info carrier.ProviderInfo, product string, n int) string {
	limit := info.ParcelLimit(product)
	if n <= limit {
		return ""
	}
	noun := "parcels"
	if limit == 1 {
		noun = "parcel"
	}
	if limit != info.MaxParcels {
		return fmt.Sprintf("product %s of provider %s takes at most %d %s per shipment; this shipment has %d", product, info.Code, limit, noun, n)
	}
	return fmt.Sprintf("provider %s takes at most %d %s per shipment; this shipment has %d", info.Code, limit, noun, n)
}

// parcelWeights names each parcel heavier than product of the provider
// takes: the limit GET /v1/providers publishes, the same number the
// carrier's adapter refuses past. A provider that publishes none leaves
// the weight to its carrier.
func parcelWeights(errs fault.FieldErrors, info carrier.ProviderInfo, product string, parcels []Parcel) {
	limit := info.ParcelWeightLimitKG(product)
	if limit <= 0 {
		return
	}
	for i, p := range parcels {
		kg := carrier.Parcel{Weight: p.WeightAmount, WeightUnit: p.WeightUnit}.WeightKG()
		if kg <= limit {
			continue
		}
		whose := "provider " + info.Code
		if limit != info.MaxParcelWeightKG {
			whose = "product " + product + " of provider " + info.Code
		}
		errs.Add("parcels."+strconv.Itoa(i)+".weight_amount", fmt.Sprintf("%s takes parcels of at most %g kg; this one weighs %g kg", whose, limit, math.Round(kg*1000)/1000))
	}
}

// codProduct returns the product that carries cash on delivery for product,
// or why there is none.
func codProduct(info carrier.ProviderInfo, product string) (string, string) {
	if !info.SupportsCOD {
		return product, "provider " + info.Code + " does not support cash on delivery"
	}
	for _, p := range info.ProductTypes {
		if p.Code != product {
			continue
		}
		switch {
		case p.CODProduct != "":
			return p.CODProduct, ""
		case p.SupportsCOD:
			return product, ""
		default:
			return product, "product " + product + " of provider " + info.Code + " does not support cash on delivery"
		}
	}
	return product, ""
}
