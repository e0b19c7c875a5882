package command

import (
	"context"
	"log/slog"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/dispatch/app/dispatching"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// ResolvePickups settles pickups left being ordered by a process that
// ended while it asked the carrier (or a carrier that confirms later and
// could not be reached): at most Limit of them.
type ResolvePickups struct {
	Limit int
}

// ResolvePickupsHandler resumes or gives up on such orders, never ordering
// anything again.
type ResolvePickupsHandler struct {
	pickups   pickup.Repository
	shipments domain.Shipments
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
	timeout   time.Duration
}

// NewResolvePickupsHandler takes an order as left behind once it is older
// than twice timeout, the longest a live request asks the carrier.
func NewResolvePickupsHandler(pickups pickup.Repository, shipments domain.Shipments, ch channels.Channels, providers *carrier.Registry,
	clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[ResolvePickups] {
	return usecase.Command(ResolvePickupsHandler{pickups: pickups, shipments: shipments, channels: ch, providers: providers,
		clock: clk, timeout: timeout}, obs)
}

// Handle takes each order left behind: one the carrier accepted under a
// handle is resumed from it (the adapter reads its outcome, never orders
// again) and scheduled with pickup.created, or forgotten when the carrier
// refused it in the end; one without a handle may or may not be at the
// carrier, and becomes unconfirmed with pickup.unconfirmed, for the
// merchant to check. A carrier that cannot be reached leaves the order for
// the next round.
func (h ResolvePickupsHandler) Handle(ctx context.Context, cmd ResolvePickups) error {
	stale, err := h.pickups.Stale(ctx, h.clock.Now().Add(-2*h.timeout), cmd.Limit)
	if err != nil {
		return err
	}
	for _, id := range stale {
		if err := h.resolve(ctx, id); err != nil && !fault.Is(err, fault.KindConflict) {
			slog.WarnContext(ctx, "a pickup left being ordered stays so for now", "pickup_id", id, "err", err)
		}
	}
	return nil
}

func (h ResolvePickupsHandler) resolve(ctx context.Context, id string) error {
	p, err := h.pickups.Get(ctx, id)
	if err != nil {
		return err
	}
	if p.OrderHandle() == "" {
		return h.record(ctx, id, unconfirmed)
	}
	s := p.Stored()
	ch, err := dispatching.OpenChannel(ctx, h.channels, h.providers, s.AccountID, s.ChannelID)
	if err != nil || ch.Dispatcher == nil {
		return h.record(ctx, id, unconfirmed)
	}
	known, err := h.shipments.Find(ctx, s.ShipmentIDs)
	if err != nil {
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	confirmed, err := ch.Dispatcher.OrderCourierPickup(callCtx, ch.Settings(), p.Order(carried(s.ShipmentIDs, known)))
	cancel()
	if _, refused := carrier.RefusalsOf(err); refused {
		slog.WarnContext(ctx, "the carrier refused a pickup it had accepted; the pickup is forgotten", "pickup_id", id, "err", err)
		return h.pickups.Forget(ctx, id)
	}
	if err != nil {
		return err
	}
	return h.record(ctx, id, func(p *pickup.Pickup, now time.Time) (domain.Event, error) {
		if err := p.Confirmed(confirmed, now); err != nil {
			return nil, err
		}
		return contract.PickupCreated{PickupEvent: pickupEvent(p, now)}, nil
	})
}

// record changes the pickup by change and publishes the event it built
// of the changed pickup.
func (h ResolvePickupsHandler) record(ctx context.Context, id string, change func(p *pickup.Pickup, now time.Time) (domain.Event, error)) error {
	_, err := h.pickups.Update(ctx, id, func(p *pickup.Pickup) ([]domain.Event, error) {
		e, err := change(p, h.clock.Now())
		if err != nil {
			return nil, err
		}
		return []domain.Event{e}, nil
	})
	return err
}

func unconfirmed(p *pickup.Pickup, now time.Time) (domain.Event, error) {
	if err := p.Unconfirmed(now); err != nil {
		return nil, err
	}
	return contract.PickupUnconfirmed{PickupEvent: pickupEvent(p, now)}, nil
}
