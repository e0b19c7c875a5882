package shipd

import (
	"testing"

	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/metrics"
)

// Every carrier this build offers publishes a parcel limit within the
// bound a create request meets before its channel is known, a product's own
// limit is tighter than its provider's, and the bound is no looser than the
// most generous provider needs.
func TestEveryProviderPublishesAParcelLimitWithinTheBound(t *testing.T) {
	reg := carriers(config.Config{SandboxTimeScale: 1}, clock.Real{}, metrics.NewCarrierCalls(metrics.NewRegistry()))
	most := 0
	for _, info := range reg.Infos() {
		if info.MaxParcels < 1 || info.MaxParcels > carrier.MaxParcelsPerShipment {
			t.Errorf("%s publishes %d parcels per shipment, want 1..%d", info.Code, info.MaxParcels, carrier.MaxParcelsPerShipment)
		}
		for _, p := range info.ProductTypes {
			if p.MaxParcels != 0 && (p.MaxParcels < 1 || p.MaxParcels >= info.MaxParcels) {
				t.Errorf("%s product %s: own limit %d, not tighter than the provider's %d", info.Code, p.Code, p.MaxParcels, info.MaxParcels)
			}
		}
		most = max(most, info.MaxParcels)
	}
	if most != carrier.MaxParcelsPerShipment {
		t.Errorf("the most generous provider takes %d parcels, the bound is %d", most, carrier.MaxParcelsPerShipment)
	}
}
