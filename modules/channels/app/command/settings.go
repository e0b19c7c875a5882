package command

import (
	"maps"

	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

var errForeign = fault.Forbidden("This shipping channel belongs to another account.")

// provider finds the provider a channel names, as a field error on "provider".
func provider(reg *carrier.Registry, code string, errs fault.FieldErrors) (carrier.Provider, bool) {
	if code == "" {
		errs.Add("provider", "is required")
		return nil, false
	}
	p, ok := reg.Get(code)
	if !ok {
		errs.Add("provider", "must be one of the providers of GET /v1/providers")
	}
	return p, ok
}

// checkSettings validates settings against the provider's schema, recording
// problems under "settings.<key>".
func checkSettings(info carrier.ProviderInfo, settings map[string]any, errs fault.FieldErrors) {
	errs.Merge("settings.", info.ValidateSettings(settings))
}

// keepMaskedSecrets lets a client send back the record it read: a secret
// whose value is still the mask keeps its stored value.
func keepMaskedSecrets(next, current map[string]any, secret map[string]bool) map[string]any {
	out := maps.Clone(next)
	for k, v := range next {
		if s, ok := v.(string); ok && s == domain.MaskedSecret && secret[k] {
			if cur, had := current[k]; had {
				out[k] = cur
			} else {
				delete(out, k)
			}
		}
	}
	return out
}

// mergeSettings applies a partial update: keys with null are removed.
func mergeSettings(current, patch map[string]any) map[string]any {
	out := maps.Clone(current)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}
