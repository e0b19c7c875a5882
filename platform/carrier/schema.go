package carrier

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValidateSettings checks settings against the provider's schema: required
// keys present, types right, enum values known, no unknown keys. It returns
// messages per settings key (without the "settings." prefix).
func (p ProviderInfo) ValidateSettings(settings map[string]any) map[string][]string {
	errs := map[string][]string{}
	known := map[string]Setting{}
	for _, s := range p.Settings {
		known[s.Key] = s
		v, present := settings[s.Key]
		if !present || v == nil {
			if s.Required {
				errs[s.Key] = append(errs[s.Key], "is required")
			}
			continue
		}
		if msg := checkType(s, v); msg != "" {
			errs[s.Key] = append(errs[s.Key], msg)
		}
	}
	var unknown []string
	for k := range settings {
		if _, ok := known[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		errs[k] = append(errs[k], fmt.Sprintf("is not a setting of provider %s (known: %s)", p.Code, strings.Join(p.settingKeys(), ", ")))
	}
	return errs
}

func (p ProviderInfo) settingKeys() []string {
	keys := make([]string, 0, len(p.Settings))
	for _, s := range p.Settings {
		keys = append(keys, s.Key)
	}
	return keys
}

// MaxSettingLength bounds a string setting, secrets included, in
// characters: the longest credential a carrier we know issues (a JWT-like
// API token) is well under 2 KB, and a setting is stored encrypted, sent in
// every request to the carrier and shown in the dashboard.
const MaxSettingLength = 4096

func checkType(s Setting, v any) string {
	switch s.Type {
	case TypeString:
		str, ok := v.(string)
		if !ok {
			return "must be a string"
		}
		if s.Required && strings.TrimSpace(str) == "" {
			return "must not be empty"
		}
		if utf8.RuneCountInString(str) > MaxSettingLength {
			return "must be at most " + strconv.Itoa(MaxSettingLength) + " characters"
		}
		if p := TextProblem(str); p != "" {
			return p
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return "must be one of: " + strings.Join(s.Enum, ", ")
		}
	case TypeBoolean:
		if _, ok := v.(bool); !ok {
			return "must be a boolean"
		}
	case TypeInteger:
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return "must be an integer"
		}
	}
	return ""
}
