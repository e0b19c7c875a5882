package command

import (
	"context"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/dispatch/app/dispatching"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/failpoint"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// OrderPickup orders a courier pickup under the id the port chose.
type OrderPickup struct {
	AccountID string
	PickupID  string
	Request   pickup.Request
}

// OrderPickupHandler orders pickups at their channels' carriers.
type OrderPickupHandler struct {
	pickups   pickup.Repository
	shipments domain.Shipments
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
	timeout   time.Duration
}

// NewOrderPickupHandler bounds each carrier call by timeout.
func NewOrderPickupHandler(pickups pickup.Repository, shipments domain.Shipments, ch channels.Channels, providers *carrier.Registry,
	clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[OrderPickup] {
	return usecase.Command(OrderPickupHandler{pickups: pickups, shipments: shipments, channels: ch, providers: providers,
		clock: clk, timeout: timeout}, obs)
}

// Handle answers the request's own problems first, then the channel's and
// the shipments', then the window against what the carrier offers, all
// before the order. The pickup is stored as being ordered before the
// carrier is called (the recovery point, ADR 0041), then recorded as
// scheduled with pickup.created. A carrier that refuses, or cannot be
// reached, leaves nothing stored: 422 with its reasons, or 503. One that
// accepted an order it confirms later and then could not be reached leaves
// the pickup being ordered, resumed by ResolvePickups.
func (h OrderPickupHandler) Handle(ctx context.Context, cmd OrderPickup) error {
	r := cmd.Request
	if err := r.Check(h.clock.Now()); err != nil {
		return err
	}
	ch, err := dispatching.OpenChannel(ctx, h.channels, h.providers, cmd.AccountID, r.ChannelID)
	if err != nil {
		return err
	}
	known, err := h.shipments.Find(ctx, r.ShipmentIDs)
	if err != nil {
		return err
	}
	c := pickup.Context{ID: cmd.PickupID, AccountID: cmd.AccountID, Provider: ch.Access.Provider, Dispatch: ch.Info.Dispatch,
		Shipments: known, Now: h.clock.Now()}
	if err := h.defaults(ctx, &c, r); err != nil {
		return err
	}
	if ch.Dispatcher != nil && ch.Info.Dispatch.Pickups {
		if err := h.windows(ctx, ch, &c, r); err != nil {
			return err
		}
	}
	p, err := pickup.New(r, c)
	if err != nil {
		return err
	}
	if err := h.pickups.Add(ctx, p); err != nil {
		return err
	}
	if err := failpoint.Hit(failpoint.PickupOrderingStored); err != nil {
		return err // stored as being ordered, never asked: ResolvePickups finds it
	}
	return h.order(ctx, ch, p, carried(p.Stored().ShipmentIDs, known))
}

// defaults are the address and contact of the first shipment named, else
// of the channel's newest shipment.
func (h OrderPickupHandler) defaults(ctx context.Context, c *pickup.Context, r pickup.Request) error {
	if r.Address != nil && r.Contact != nil {
		return nil
	}
	var from domain.Shipment
	found := false
	for _, id := range r.ShipmentIDs {
		if sh, ok := c.Shipments[id]; ok && sh.AccountID == c.AccountID {
			from, found = sh, true
			break
		}
	}
	if !found {
		latest, ok, err := h.shipments.Latest(ctx, c.AccountID, r.ChannelID)
		if err != nil {
			return err
		}
		from, found = latest, ok
	}
	if found {
		address, contact := from.Origin, from.Sender
		c.DefaultAddress, c.DefaultContact = &address, &contact
	}
	return nil
}

// windows asks the carrier (or shipd's defaults) which windows it offers
// on the date, when the request is otherwise whole enough to ask.
func (h OrderPickupHandler) windows(ctx context.Context, ch dispatching.Channel, c *pickup.Context, r pickup.Request) error {
	date, ok := domain.ParseDate(r.Date)
	address := r.Address
	if address == nil {
		address = c.DefaultAddress
	}
	if !ok || address == nil {
		return nil // New says what is missing
	}
	offered, _, err := ch.Windows(ctx, h.timeout, date, *address, carried(r.ShipmentIDs, c.Shipments))
	if err != nil {
		return err
	}
	c.Windows = dispatching.DomainWindows(offered)
	return nil
}

// order asks the carrier and records its answer.
func (h OrderPickupHandler) order(ctx context.Context, ch dispatching.Channel, p *pickup.Pickup, shipments []carrier.DispatchShipment) error {
	req := p.Order(shipments)
	accepted := false
	req.Booking.Accepted = func(ctx context.Context, handle string) error {
		err := h.pickups.Record(ctx, p.ID(), func(p *pickup.Pickup) error { return p.Accepted(handle, h.clock.Now()) })
		accepted = accepted || err == nil
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	confirmed, err := ch.Dispatcher.OrderCourierPickup(callCtx, ch.Settings(), req)
	cancel()
	if err != nil {
		_, refused := carrier.RefusalsOf(err)
		if accepted && !refused {
			return fault.Unavailable("The carrier " + ch.Access.Provider + " took the order of pickup " + p.ID() +
				" and has not confirmed it yet; GET /v1/pickups/" + p.ID() + " shows it once it does.")
		}
		if ferr := h.pickups.Forget(ctx, p.ID()); ferr != nil {
			return ferr
		}
		return dispatching.CarrierFault(ctx, ch.Access.Provider, "pickup", "no pickup was ordered.", err)
	}
	if err := failpoint.Hit(failpoint.PickupAfterCarrierAnswer); err != nil {
		return err // ordered at the carrier, its answer lost: ResolvePickups finds it
	}
	_, err = h.pickups.Update(ctx, p.ID(), func(p *pickup.Pickup) ([]domain.Event, error) {
		now := h.clock.Now()
		if err := p.Confirmed(confirmed, now); err != nil {
			return nil, err
		}
		return []domain.Event{contract.PickupCreated{PickupEvent: pickupEvent(p, now)}}, nil
	})
	return err
}

// carried are the shipments of ids, as a carrier's order names them.
func carried(ids []string, known map[string]domain.Shipment) []carrier.DispatchShipment {
	out := make([]carrier.DispatchShipment, 0, len(ids))
	for _, id := range ids {
		if sh, ok := known[id]; ok {
			out = append(out, sh.Carried())
		}
	}
	return out
}
