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

// The dashboard calls a channel's label format without a setting of its own
// the provider's default: true only while every provider publishes as the
// default of that setting the format the rule falls back to.
func TestEveryProviderDefaultsToTheLabelFormatTheRuleFallsBackTo(t *testing.T) {
	reg := carriers(config.Config{SandboxTimeScale: 1}, clock.Real{}, metrics.NewCarrierCalls(metrics.NewRegistry()))
	for _, info := range reg.Infos() {
		found := false
		for _, s := range info.Settings {
			if s.Key == carrier.LabelFormatSetting {
				found = true
				if s.Default != carrier.DefaultLabelFormat {
					t.Errorf("%s: %s defaults to %v, the rule to %s", info.Code, s.Key, s.Default, carrier.DefaultLabelFormat)
				}
			}
		}
		if !found {
			t.Errorf("%s has no %s setting", info.Code, carrier.LabelFormatSetting)
		}
	}
}

// Every product says how it uses a pickup point, which the shipments module
// checks a shipment's pickup_point_id against before any booking.
func TestEveryProductSaysHowItUsesAPickupPoint(t *testing.T) {
	reg := carriers(config.Config{SandboxTimeScale: 1}, clock.Real{}, metrics.NewCarrierCalls(metrics.NewRegistry()))
	for _, info := range reg.Infos() {
		for _, p := range info.ProductTypes {
			switch p.PickupPoint {
			case carrier.PickupPointNone, carrier.PickupPointOptional, carrier.PickupPointRequired:
			default:
				t.Errorf("%s product %s: pickup_point %q, want none, optional or required", info.Code, p.Code, p.PickupPoint)
			}
		}
	}
}
