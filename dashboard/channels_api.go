package dashboard

import (
	"encoding/json"
	"strconv"
)

// The shipping channels and carriers of the /v1 API, as far as the pages
// show them.

// apiChannel is a shipping channel as the API answers it (secrets masked).
type apiChannel struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	Provider        string         `json:"provider"`
	Status          string         `json:"status"`
	Settings        map[string]any `json:"settings"`
	ValidationError *string        `json:"validation_error"`
	ValidatedAt     *string        `json:"validated_at"`
	CreatedAt       string         `json:"created_at"`
	UpdatedAt       string         `json:"updated_at"`
}

// Problem is what the carrier said at the last failed validation, "" when
// nothing.
func (c apiChannel) Problem() string {
	if c.ValidationError == nil {
		return ""
	}
	return *c.ValidationError
}

// Validated is when the carrier last accepted the settings, "" when never.
func (c apiChannel) Validated() string {
	if c.ValidatedAt == nil {
		return ""
	}
	return *c.ValidatedAt
}

// apiProvider is one carrier of GET /v1/providers.
type apiProvider struct {
	Code         string           `json:"code"`
	Name         string           `json:"name"`
	Settings     []apiSetting     `json:"settings"`
	ProductTypes []apiProductType `json:"product_types"`
	LabelFormats []string         `json:"label_formats"`
	SupportsCOD  bool             `json:"supports_cod"`
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
