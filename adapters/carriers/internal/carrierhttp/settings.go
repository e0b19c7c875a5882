package carrierhttp

import "shipd/platform/carrier"

// BaseURL is sandbox or production, as the settings' sandboxMode chooses.
func BaseURL(s carrier.Settings, production, sandbox string) string {
	if s.SandboxMode() {
		return sandbox
	}
	return production
}
