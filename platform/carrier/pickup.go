package carrier

import (
	"fmt"
	"strings"
)

// PickupPointField is the shipment field naming the carrier's pickup point
// (API `pickup_point_id`); a carrier's refusal of the point blames it.
const PickupPointField = "pickup_point_id"

// PickupPointUse says whether a product delivers to a pickup point (a parcel
// locker, a parcel shop) named per shipment.
type PickupPointUse string

// The ways a product uses a pickup point; GET /v1/providers publishes one
// for every product.
const (
	// PickupPointNone: the product delivers to the address; a shipment
	// naming a point is refused.
	PickupPointNone PickupPointUse = "none"
	// PickupPointOptional: the shipment may name a point; without one the
	// carrier delivers to the address (or a point the channel's settings
	// name).
	PickupPointOptional PickupPointUse = "optional"
	// PickupPointRequired: the product delivers only to a pickup point; a
	// shipment must name one (unless the channel's settings name a
	// default the adapter falls back to: see DefaultPickupPoint).
	PickupPointRequired PickupPointUse = "required"
)

// DefaultPickupPointSetting is the setting by which a channel may name the
// pickup point of shipments that name none. InPost channels named it
// targetPoint before points were named per shipment (legacyPickupPointSetting);
// their stored settings are encrypted, so the old name is read, not migrated.
const (
	DefaultPickupPointSetting = "defaultPickupPoint"
	legacyPickupPointSetting  = "targetPoint"
)

// PickupPoint is the one rule of a shipment's pickup point: the requested
// point, else the channel's DefaultPickupPointSetting, white space
// trimmed. Adapters that take a point apply it when they book.
func (s Settings) PickupPoint(requested string) string {
	if p := strings.TrimSpace(requested); p != "" {
		return p
	}
	if p := strings.TrimSpace(s.String(DefaultPickupPointSetting)); p != "" {
		return p
	}
	return strings.TrimSpace(s.String(legacyPickupPointSetting))
}

// PickupPointUse is how product uses a pickup point; a product the provider
// does not publish uses none.
func (p ProviderInfo) PickupPointUse(product string) PickupPointUse {
	for _, pt := range p.ProductTypes {
		if pt.Code == product && pt.PickupPoint != "" {
			return pt.PickupPoint
		}
	}
	return PickupPointNone
}

// CheckPickupPoint says why point does not suit product of the provider on a
// channel with settings, "" when it does: a point where the product takes
// none, or no point (nor a channel default) where it needs one.
func (p ProviderInfo) CheckPickupPoint(product string, settings Settings, point string) string {
	use := p.PickupPointUse(product)
	switch {
	case use == PickupPointNone && strings.TrimSpace(point) != "":
		return fmt.Sprintf("product %s of provider %s delivers to the address and takes no pickup point", product, p.Code)
	case use == PickupPointRequired && settings.PickupPoint(point) == "":
		return fmt.Sprintf("product %s of provider %s delivers only to a pickup point: name the carrier's point id", product, p.Code)
	}
	return ""
}
