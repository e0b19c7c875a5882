package query

import (
	"context"
	"strconv"
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
// date (at the channel's usual address: its newest shipment's origin), for
// the shipments of ShipmentIDs where the carrier answers per shipment
// (Allegro).
type PickupAvailability struct {
	AccountID   string
	ChannelID   string
	Date        string
	ShipmentIDs []string
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
	shipments, err := h.named(ctx, q)
	if err != nil {
		return Availability{}, err
	}
	address := latest.Origin
	carried := make([]carrier.DispatchShipment, len(shipments))
	for i, sh := range shipments {
		carried[i] = sh.Carried()
		if i == 0 {
			address = sh.Origin
		}
	}
	windows, source, err := ch.Windows(ctx, h.timeout, date, address, carried)
	if err != nil {
		return Availability{}, err
	}
	return Availability{ShippingChannelID: q.ChannelID, Date: q.Date, Source: source, Windows: windows}, nil
}

// named are the shipments of q.ShipmentIDs, each of the channel and
// created at the carrier, in their order: the problems of those that are
// not, on shipment_ids.N.
func (h PickupAvailabilityHandler) named(ctx context.Context, q PickupAvailability) ([]domain.Shipment, error) {
	if len(q.ShipmentIDs) == 0 {
		return nil, nil
	}
	known, err := h.shipments.Find(ctx, q.ShipmentIDs)
	if err != nil {
		return nil, err
	}
	errs := fault.FieldErrors{}
	out := make([]domain.Shipment, 0, len(q.ShipmentIDs))
	for i, id := range q.ShipmentIDs {
		sh, ok := known[id]
		path := "shipment_ids." + strconv.Itoa(i)
		switch {
		case !ok:
			errs.Add(path, "does not name a shipment this module knows")
		case sh.DispatchProblem(q.AccountID, q.ChannelID) != "":
			errs.Add(path, sh.DispatchProblem(q.AccountID, q.ChannelID))
		default:
			out = append(out, sh)
		}
	}
	return out, errs.Err()
}
