package carrier

import "sort"

// Registry holds the providers this build of the service offers.
type Registry struct {
	providers map[string]Provider
}

// NewRegistry keys providers by their Info().Code; of two with one code, the
// later wins.
func NewRegistry(providers ...Provider) *Registry {
	r := &Registry{providers: map[string]Provider{}}
	for _, p := range providers {
		r.providers[p.Info().Code] = p
	}
	return r
}

// Get returns the provider with that code; false when this build offers none.
func (r *Registry) Get(code string) (Provider, bool) {
	p, ok := r.providers[code]
	return p, ok
}

// Codes returns every provider code, sorted.
func (r *Registry) Codes() []string {
	codes := make([]string, 0, len(r.providers))
	for c := range r.providers {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return codes
}

// Infos returns every provider's description, sorted by code.
func (r *Registry) Infos() []ProviderInfo {
	out := make([]ProviderInfo, 0, len(r.providers))
	for _, c := range r.Codes() {
		out = append(out, r.providers[c].Info())
	}
	return out
}
