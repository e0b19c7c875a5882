package query

import (
	"context"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/dispatch/app/dispatching"
	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// PickupAvailability asks which windows a channel's carrier offers on a
// date (at the channel's usual address: its newest shipment's origin).
type PickupAvailability struct {
	AccountID string
	ChannelID string
	Date      string
}

// Availability is the answer: the windows, and where they come from
// (carrier, or channel_defaults).
type Availability struct {
	ShippingChannelID string                 `json:"shipping_channel_id"`
	Date              string                 `json:"date"`
	Source            string                 `json:"source"`
	Windows           []carrier.PickupWindow `json:"windows"`
}

// PickupAvailabilityHandler asks the carrier, or answers shipd's defaults.
type PickupAvailabilityHandler struct {
	shipments domain.Shipments
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
	timeout   time.Duration
}

// NewPickupAvailabilityHandler bounds each carrier call by timeout.
func NewPickupAvailabilityHandler(shipments domain.Shipments, ch channels.Channels, providers *carrier.Registry, clk clock.Clock,
	timeout time.Duration, obs usecase.Observer) usecase.QueryHandler[PickupAvailability, Availability] {
	return usecase.Query(PickupAvailabilityHandler{shipments: shipments, channels: ch, providers: providers, clock: clk, timeout: timeout}, obs)
}

// Handle answers the channel in the path first (404, 403, not active: 409),
// then refuses a date that is no date, past or too far ahead, and a
// channel whose carrier takes no pickups; a carrier that asks for the
// address hears the channel's newest shipment's origin.
func (h PickupAvailabilityHandler) Handle(ctx context.Context, q PickupAvailability) (Availability, error) {
	ch, err := dispatching.OpenPathChannel(ctx, h.channels, h.providers, q.AccountID, q.ChannelID)
	if err != nil {
		return Availability{}, err
	}
	errs := fault.FieldErrors{}
	date := domain.CheckDate(errs, "date", q.Date, h.clock.Now())
	if err := errs.Err(); err != nil {
		return Availability{}, err
	}
	if !ch.Info.Dispatch.Pickups {
		return Availability{}, fault.Field("shipping_channel_id", "uses provider "+ch.Access.Provider+", which takes no courier pickups through its API")
	}
	latest, _, err := h.shipments.Latest(ctx, q.AccountID, q.ChannelID)
	if err != nil {
		return Availability{}, err
	}
	windows, source, err := ch.Windows(ctx, h.timeout, date, latest.Origin, nil)
	if err != nil {
		return Availability{}, err
	}
	return Availability{ShippingChannelID: q.ChannelID, Date: q.Date, Source: source, Windows: windows}, nil
}
