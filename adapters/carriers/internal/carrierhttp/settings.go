package carrierhttp

import (
	"strings"

	"shipd/platform/carrier"
)

// Sandbox reports whether the settings ask for the carrier's test host.
// Absent or not a boolean counts as true, the setting's default: a channel
// set up without choosing must never book real parcels.
func Sandbox(s carrier.Settings) bool {
	v, ok := s["sandboxMode"].(bool)
	return !ok || v
}

// BaseURL is sandbox or production, as Sandbox(s) chooses.
func BaseURL(s carrier.Settings, production, sandbox string) string {
	if Sandbox(s) {
		return sandbox
	}
	return production
}

// LabelFormat is the requested format, else the channel's
// defaultLabelFormat, else pdf, lower case: the port leaves the fallback to
// the adapter, and every carrier falls back alike.
func LabelFormat(requested string, s carrier.Settings) string {
	f := strings.ToLower(strings.TrimSpace(requested))
	if f == "" {
		f = strings.ToLower(strings.TrimSpace(s.String("defaultLabelFormat")))
	}
	if f == "" {
		f = "pdf"
	}
	return f
}
