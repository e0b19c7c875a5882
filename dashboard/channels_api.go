package dashboard

import (
	"encoding/json"
	"strconv"

	"shipd/platform/carrier"
)

// The carriers of GET /v1/providers, as far as the pages show them. A
// channel is read into the channels module's own record
// (channelscontract.ShippingChannel).

// apiProvider is one carrier of GET /v1/providers.
type apiProvider struct {
	Code         string           `json:"code"`
	Name         string           `json:"name"`
	Settings     []apiSetting     `json:"settings"`
	ProductTypes []apiProductType `json:"product_types"`
	LabelFormats []string         `json:"label_formats"`
	SupportsCOD  bool             `json:"supports_cod"`
	// Dispatch is what the carrier takes of pickups and manifests: the
	// pickup form asks for a parcel count only where it takes one.
	Dispatch carrier.DispatchInfo `json:"dispatch"`
}

// apiSetting is one key of a provider's settings.
type apiSetting struct {
	Key         string   `json:"key"`
	Type        string   `json:"type"` // string, boolean or integer
	Required    bool     `json:"required"`
	Secret      bool     `json:"secret"`
	Enum        []string `json:"enum"`
	Default     any      `json:"default"`
	Description string   `json:"description"`
}

// DefaultText is the setting's default as text, "" when it has none.
func (s apiSetting) DefaultText() string { return shownValue(s.Default) }

// apiProductType is one carrier product.
type apiProductType struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// shownValue is a setting's value as a page shows it: what the API sent, secrets
// masked by the API (the page never has more), "" when unset.
func shownValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(raw)
}
