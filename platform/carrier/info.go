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

// ProductType is a carrier product; COD names the product that carries cash
// on delivery when the carrier needs a separate one.
type ProductType struct {
	Code        string `json:"code"`
	Name        string `json:"name"`
	CODProduct  string `json:"cod_product,omitempty"`
	SupportsCOD bool   `json:"supports_cod"`
}

// ProviderInfo is what GET /v1/providers publishes about a provider.
type ProviderInfo struct {
	Code         string        `json:"code"`
	Name         string        `json:"name"`
	Settings     []Setting     `json:"settings"`
	ProductTypes []ProductType `json:"product_types"`
	LabelFormats []string      `json:"label_formats"`
	SupportsCOD  bool          `json:"supports_cod"`
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
