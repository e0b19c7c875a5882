package command

import (
	"context"
	"errors"
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

// CancelPickup cancels a pickup of the account.
type CancelPickup struct {
	AccountID string
	ID        string
}

// CancelPickupHandler cancels pickups at their carriers.
type CancelPickupHandler struct {
	pickups   pickup.Repository
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
	timeout   time.Duration
}

// NewCancelPickupHandler bounds each carrier call by timeout.
func NewCancelPickupHandler(pickups pickup.Repository, ch channels.Channels, providers *carrier.Registry, clk clock.Clock,
	timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[CancelPickup] {
	return usecase.Command(CancelPickupHandler{pickups: pickups, channels: ch, providers: providers, clock: clk, timeout: timeout}, obs)
}

// Handle asks the carrier to cancel a scheduled pickup (refused with the
// reason where the carrier takes no cancel through its API, or no longer
// takes this one), then records it cancelled with pickup.cancelled, which
// frees its date and shipments. An unconfirmed pickup is cancelled here
// only: shipd has no number to cancel it by at the carrier.
func (h CancelPickupHandler) Handle(ctx context.Context, cmd CancelPickup) error {
	p, err := h.pickups.Get(ctx, cmd.ID)
	if err != nil {
		return err
	}
	if !p.BelongsTo(cmd.AccountID) {
		return NotYourPickup()
	}
	s := p.Stored()
	provider, ok := h.providers.Get(s.Provider)
	if !ok {
		return fault.Conflict("provider_gone", "The provider "+s.Provider+" is no longer offered; cancel the pickup with the carrier.")
	}
	info := provider.Info().Dispatch
	if err := p.CancelProblem(info); err != nil {
		return err
	}
	if p.AsksCarrierToCancel() {
		ch, err := dispatching.OpenChannel(ctx, h.channels, h.providers, cmd.AccountID, s.ChannelID)
		if err != nil {
			return err
		}
		callCtx, cancel := context.WithTimeout(ctx, h.timeout)
		err = ch.Dispatcher.CancelCourierPickup(callCtx, ch.Settings(), p.Ordered())
		cancel()
		if err != nil && !errors.Is(err, carrier.ErrAlreadyCancelled) {
			if refusals, refused := carrier.RefusalsOf(err); refused {
				return fault.Conflict("pickup_not_cancellable", "The carrier "+s.Provider+" refused to cancel the pickup: "+refusals[0].Message)
			}
			return dispatching.CarrierFault(ctx, s.Provider, "pickup cancellation", "the pickup was not cancelled.", err)
		}
	}
	_, err = h.pickups.Update(ctx, cmd.ID, func(p *pickup.Pickup) ([]domain.Event, error) {
		now := h.clock.Now()
		if err := p.Cancel(info, now); err != nil {
			return nil, err
		}
		return []domain.Event{contract.PickupCancelled{PickupEvent: pickupEvent(p, now)}}, nil
	})
	return err
}

// NotYourPickup is the answer to touching another account's pickup.
func NotYourPickup() error { return fault.Forbidden("This pickup belongs to another account.") }
