package command

import (
	"context"
	"errors"
	"log/slog"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// CancelShipment asks the carrier to cancel a created shipment.
type CancelShipment struct {
	AccountID string
	ID        string
}

// CancelShipmentHandler cancels shipments with their carrier.
type CancelShipmentHandler struct {
	repo      domain.Repository
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
	timeout   time.Duration // of one carrier call
}

// NewCancelShipmentHandler needs the carrier's channel (through the
// channels facade) and the time one carrier call may take.
func NewCancelShipmentHandler(repo domain.Repository, ch channels.Channels, providers *carrier.Registry, clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[CancelShipment] {
	return usecase.Command(CancelShipmentHandler{repo: repo, channels: ch, providers: providers, clock: clk, timeout: timeout}, obs)
}

// Handle calls the carrier outside any transaction, then records the
// cancellation: status cancelled, shipment.updated and status_changed.
func (h CancelShipmentHandler) Handle(ctx context.Context, cmd CancelShipment) error {
	sh, err := h.repo.Get(ctx, cmd.ID)
	if err != nil {
		return err
	}
	if !sh.BelongsTo(cmd.AccountID) {
		return errForeign
	}
	if err := sh.CheckCancel(); err != nil {
		return err
	}
	st := sh.Stored()
	ch, err := h.channels.ChannelForUse(ctx, st.AccountID, st.ChannelID)
	if fault.Is(err, fault.KindUnavailable) {
		return err // 503: the channels process cannot be asked now
	}
	if err != nil {
		return fault.Field("shipping_channel_id", "the shipment's channel is gone; it cannot be cancelled through shipd")
	}
	p, _ := h.providers.Get(ch.Provider)
	shipper, ok := p.(carrier.Shipper)
	if !ok {
		return fault.Field("shipping_channel_id", "provider "+ch.Provider+" cannot cancel shipments")
	}
	if err := sh.CheckCancelAfterManifest(p.Info().Dispatch); err != nil {
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	err = shipper.CancelShipment(callCtx, carrier.Settings(ch.Settings), carrier.ShipmentRef{ProviderShipmentID: st.ProviderShipmentID, TrackingNumbers: trackingNumbers(st)})
	if errors.Is(err, carrier.ErrAlreadyCancelled) {
		err = nil // an earlier cancel worked; this one records it
	}
	var rejection *carrier.Rejection
	if errors.As(err, &rejection) {
		return fault.Field("status", "the carrier refused to cancel: "+rejection.Message)
	}
	if err != nil {
		slog.WarnContext(ctx, "carrier unavailable during cancel", "shipment_id", st.ID, "provider", ch.Provider, "err", err)
		return fault.Unavailable("The carrier " + ch.Provider + " could not be reached; the shipment was not cancelled. Try again later.")
	}
	return h.recordCancelled(ctx, st)
}

// recordCancelled records a cancel the carrier accepted, trying a few times
// over a few seconds when the database fails: the carrier's side is done and
// must not be lost. When it still fails, the client hears so, and its
// retried cancel is recorded (the carrier answers ErrAlreadyCancelled).
func (h CancelShipmentHandler) recordCancelled(ctx context.Context, st domain.Stored) error {
	var err error
	for attempt, pause := 0, 50*time.Millisecond; attempt < 5; attempt, pause = attempt+1, pause*2 {
		now := h.clock.Now()
		_, err = h.repo.Update(ctx, st.ID, func(sh *domain.Shipment) ([]domain.Event, error) {
			if sh.Status() == domain.StatusCancelled {
				return nil, nil // recorded by an earlier try
			}
			before := sh.Status()
			if err := sh.Cancelled(now); err != nil {
				return nil, err
			}
			events := []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}
			return withStatusChange(events, sh, before, now), nil
		})
		if err == nil || verdict(err) || ctx.Err() != nil {
			break // done, or a verdict on the shipment, not a failure to record
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
	if err != nil && !verdict(err) {
		slog.ErrorContext(ctx, "the carrier cancelled a shipment; recording it failed", "shipment_id", st.ID,
			"provider_shipment_id", st.ProviderShipmentID, "err", err)
		return fault.Unavailable("The carrier cancelled the shipment, but shipd could not record it yet; send the cancel again to record it.")
	}
	return err
}

func trackingNumbers(st domain.Stored) []string {
	var out []string
	for _, p := range st.Parcels {
		if p.TrackingNumber != nil {
			out = append(out, *p.TrackingNumber)
		}
	}
	return out
}

// verdict reports whether err is the domain's answer about the shipment (a
// rule, a conflict, gone), not a database that failed to record.
func verdict(err error) bool {
	_, isFault := fault.As(err)
	return isFault && !fault.Is(err, fault.KindUnavailable)
}
