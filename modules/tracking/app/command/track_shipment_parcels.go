package command

import (
	"context"
	"log/slog"

	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/usecase"
)

// TrackShipmentParcels starts tracking the parcels of a shipment the
// carrier created.
type TrackShipmentParcels struct {
	AccountID       string
	ShipmentID      string
	ChannelID       string
	Provider        string
	TrackingNumbers []string
	Recipient       domain.Recipient
	CashOnDelivery  bool
}

// TrackShipmentParcelsHandler makes one internal tracking parcel per parcel.
type TrackShipmentParcelsHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewTrackShipmentParcelsHandler builds what tracks a booked shipment's parcels.
func NewTrackShipmentParcelsHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[TrackShipmentParcels] {
	return usecase.Command(TrackShipmentParcelsHandler{repo: repo, clock: clk}, obs)
}

// Handle creates the parcels with the default check settings. It runs in
// the message handler's transaction; a number the account already tracks
// through the channel keeps its existing tracking parcel.
func (h TrackShipmentParcelsHandler) Handle(ctx context.Context, cmd TrackShipmentParcels) error {
	now := h.clock.Now()
	for _, tn := range cmd.TrackingNumbers {
		p := domain.NewForShipment(ids.NewAt(ids.TrackingParcel, now), cmd.AccountID, cmd.ChannelID, cmd.Provider, cmd.ShipmentID, tn,
			cmd.Recipient, cmd.CashOnDelivery, now)
		err := h.repo.Add(ctx, p, contract.TrackingParcelCreated{TrackingParcelEvent: parcelEvent(p, now)})
		if fault.Is(err, fault.KindValidation) {
			slog.InfoContext(ctx, "shipment parcel already tracked", "shipment_id", cmd.ShipmentID, "tracking_number", tn)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
