package carrier

// SettingType is the JSON type a setting must have.
type SettingType string

// The setting types a schema can ask for.
const (
	TypeString  SettingType = "string"
	TypeBoolean SettingType = "boolean"
	TypeInteger SettingType = "integer"
)

// Setting is one key of a provider's settings schema.
type Setting struct {
	Key         string      `json:"key"`
	Type        SettingType `json:"type"`
	Required    bool        `json:"required"`
	Secret      bool        `json:"secret"`
	Enum        []string    `json:"enum,omitempty"`
	Default     any         `json:"default,omitempty"`
	Description string      `json:"description"`
}

// MaxParcelsPerShipment is the most parcels any provider takes in one
// shipment (InPost's courier services); a create request with more is
// refused before its channel is looked at. Every provider's own limit is at
// most this (a test holds them to it).
const MaxParcelsPerShipment = 1000

// ProductType is a carrier product; COD names the product that carries cash
// on delivery when the carrier needs a separate one. MaxParcels, when not 0,
// is the product's own parcel limit, tighter than its provider's.
// PickupPoint is how the product uses a pickup point named per shipment
// (every adapter publishes one for every product; a test of the
// composition root holds them to it). MaxParcelWeightKG, when not 0, is the
// product's own weight limit per parcel, tighter than its provider's.
type ProductType struct {
	Code              string         `json:"code"`
	Name              string         `json:"name"`
	CODProduct        string         `json:"cod_product,omitempty"`
	SupportsCOD       bool           `json:"supports_cod"`
	MaxParcels        int            `json:"max_parcels_per_shipment,omitempty"`
	MaxParcelWeightKG float64        `json:"max_parcel_weight_kg,omitempty"`
	PickupPoint       PickupPointUse `json:"pickup_point"`
}

// ProviderInfo is what GET /v1/providers publishes about a provider.
// MaxParcels is the most parcels one shipment may have, as the carrier's
// documentation says (the adapter's package documentation says where it
// chose one the vendor does not document); the adapter refuses more with
// the same number. MaxParcelWeightKG is the heaviest parcel the carrier
// takes where its adapter knows one (0: none known, the carrier judges),
// refused by the adapter past the same number; a product may publish a
// tighter one.
type ProviderInfo struct {
	Code              string        `json:"code"`
	Name              string        `json:"name"`
	Settings          []Setting     `json:"settings"`
	ProductTypes      []ProductType `json:"product_types"`
	LabelFormats      []string      `json:"label_formats"`
	SupportsCOD       bool          `json:"supports_cod"`
	MaxParcels        int           `json:"max_parcels_per_shipment"`
	MaxParcelWeightKG float64       `json:"max_parcel_weight_kg,omitempty"`
	// Dispatch is what the provider offers of courier pickups and
	// manifests (dispatch.go).
	Dispatch DispatchInfo `json:"dispatch"`
}

// ParcelWeightLimitKG is the heaviest parcel a shipment of product may
// have: the product's own limit where it has one, else the provider's; 0
// when neither is known.
func (p ProviderInfo) ParcelWeightLimitKG(product string) float64 {
	for _, pt := range p.ProductTypes {
		if pt.Code == product && pt.MaxParcelWeightKG > 0 {
			return pt.MaxParcelWeightKG
		}
	}
	return p.MaxParcelWeightKG
}

// ParcelLimit is the most parcels a shipment of product may have: the
// product's own limit where it has one, else the provider's.
func (p ProviderInfo) ParcelLimit(product string) int {
	for _, pt := range p.ProductTypes {
		if pt.Code == product && pt.MaxParcels > 0 {
			return pt.MaxParcels
		}
	}
	return p.MaxParcels
}

// SecretKeys returns the keys whose values must be encrypted and masked.
func (p ProviderInfo) SecretKeys() map[string]bool {
	keys := map[string]bool{}
	for _, s := range p.Settings {
		if s.Secret {
			keys[s.Key] = true
		}
	}
	return keys
}

// ProductCodes are the codes of products, in their order: the enum of a
// provider's productType setting.
func ProductCodes(products []ProductType) []string {
	codes := make([]string, len(products))
	for i, p := range products {
		codes[i] = p.Code
	}
	return codes
}
