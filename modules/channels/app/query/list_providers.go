package query

import "shipd/platform/carrier"

// ListProvidersHandler describes the carriers this service offers.
type ListProvidersHandler struct {
	providers *carrier.Registry
}

// NewListProvidersHandler returns the handler.
func NewListProvidersHandler(providers *carrier.Registry) ListProvidersHandler {
	return ListProvidersHandler{providers: providers}
}

// Handle returns every provider's settings schema, products, label formats
// and COD support.
func (h ListProvidersHandler) Handle() []carrier.ProviderInfo {
	return h.providers.Infos()
}
