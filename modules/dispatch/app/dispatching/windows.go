package dispatching

import (
	"context"
	"errors"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
)

// The sources of a date's pickup windows, as the API names them.
const (
	SourceCarrier  = "carrier"
	SourceDefaults = "channel_defaults"
)

// Windows are the windows the channel's carrier offers on date at address
// (shipments for a carrier that answers per shipment), and where they come
// from: the carrier where it says, else shipd's defaults
// (domain.DefaultWindows). A carrier call that fails is CarrierFault's.
func (c Channel) Windows(ctx context.Context, timeout time.Duration, date time.Time, address carrier.Address,
	shipments []carrier.DispatchShipment) ([]carrier.PickupWindow, string, error) {
	if c.Dispatcher != nil && c.Info.Dispatch.PickupAvailability == carrier.AvailabilityCarrier {
		callCtx, cancel := context.WithTimeout(ctx, timeout)
		windows, err := c.Dispatcher.CourierPickupWindows(callCtx, c.Settings(), carrier.PickupWindowsRequest{
			Date: date.Format(domain.DateLayout), Address: address, Shipments: shipments})
		cancel()
		if err == nil {
			if windows == nil {
				windows = []carrier.PickupWindow{}
			}
			return windows, SourceCarrier, nil
		}
		if !errors.Is(err, carrier.ErrNotOffered) {
			return nil, "", CarrierFault(ctx, c.Access.Provider, "pickup availability", "no window was read.", err)
		}
	}
	out := []carrier.PickupWindow{}
	for _, w := range domain.DefaultWindows(date) {
		out = append(out, carrier.PickupWindow{From: w.From.String(), Until: w.Until.String()})
	}
	return out, SourceDefaults, nil
}

// DomainWindows are windows as the domain compares them; one whose times
// a carrier wrote in another form is left out.
func DomainWindows(windows []carrier.PickupWindow) []domain.Window {
	var out []domain.Window
	for _, w := range windows {
		f, okF := domain.ParseTimeOfDay(w.From)
		u, okU := domain.ParseTimeOfDay(w.Until)
		if okF && okU && f < u {
			out = append(out, domain.Window{From: f, Until: u})
		}
	}
	return out
}
