package command

import (
	"context"
	"log/slog"

	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
	"shipd/platform/ids"
	"shipd/platform/usecase"
)

// TrackShipmentParcels starts tracking the parcels of shipments the carrier
// created: a run of the shipments module's requests, in the order it sent
// them (a subscriber transaction's commands, or one of them).
type TrackShipmentParcels struct {
	Shipments []ShipmentParcels
}

// ShipmentParcels is one shipment's request: the numbers its carrier gave
// its parcels and what tracking keeps of the shipment.
type ShipmentParcels struct {
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

// NewTrackShipmentParcelsHandler builds what tracks booked shipments' parcels.
func NewTrackShipmentParcelsHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[TrackShipmentParcels] {
	return usecase.Command(TrackShipmentParcelsHandler{repo: repo, clock: clk}, obs)
}

// Handle makes the parcels of the whole run with the default check
// settings and adds them at once, so a run costs a few statements however
// long it is. It comes to what the requests would one after another: a
// number the account already tracks through the channel, or one an earlier
// request of the run named, keeps its tracking parcel, and only the parcels
// made publish tracking_parcel.created. Applied again (a redelivery), it
// makes nothing.
func (h TrackShipmentParcelsHandler) Handle(ctx context.Context, cmd TrackShipmentParcels) error {
	now := h.clock.Now()
	var additions []domain.Addition
	for _, s := range cmd.Shipments {
		for _, tn := range s.TrackingNumbers {
			p := domain.NewForShipment(ids.NewAt(ids.TrackingParcel, now), s.AccountID, s.ChannelID, s.Provider, s.ShipmentID, tn,
				s.Recipient, s.CashOnDelivery, now)
			additions = append(additions, domain.Addition{Parcel: p,
				Events: []domain.Event{contract.TrackingParcelCreated{TrackingParcelEvent: parcelEvent(p, now)}}})
		}
	}
	if len(additions) == 0 {
		return nil
	}
	kept, err := h.repo.AddAll(ctx, additions)
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		// One line for the run, each as "<shipment>/<number>": a
		// redelivered run would otherwise log a line per parcel.
		tracked := make([]string, len(kept))
		for i, p := range kept {
			st := p.Stored()
			tracked[i] = st.ShipmentID + "/" + st.TrackingNumber
		}
		slog.InfoContext(ctx, "shipment parcels already tracked", "parcels", tracked)
	}
	return nil
}
