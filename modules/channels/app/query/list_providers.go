package query

import (
	"context"

	"shipd/platform/carrier"
	"shipd/platform/usecase"
)

// ListProviders asks what carriers this service offers.
type ListProviders struct{}

// ListProvidersHandler describes the carriers this service offers.
type ListProvidersHandler struct {
	providers *carrier.Registry
}

// NewListProvidersHandler reads the carrier registry.
func NewListProvidersHandler(providers *carrier.Registry, obs usecase.Observer) usecase.QueryHandler[ListProviders, []carrier.ProviderInfo] {
	return usecase.Query(ListProvidersHandler{providers: providers}, obs)
}

// Handle returns every provider's settings schema, products, label formats
// and COD support.
func (h ListProvidersHandler) Handle(context.Context, ListProviders) ([]carrier.ProviderInfo, error) {
	return h.providers.Infos(), nil
}
