package ports

import (
	"context"

	"github.com/jmoiron/sqlx"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/messaging"
	"shipd/platform/usecase"
)

// shipmentParcelsBatch is a subscriber transaction's run of
// TrackShipmentParcels commands: Add collects them in stream order, Write
// has the run tracked in one go. Write gets the group's transaction in its
// context (postgres.Within), so the use case's repository writes in it,
// before the acknowledgement, and the run commits with it or not at all.
// Should it fail, each command of the run comes again as a run of one.
type shipmentParcelsBatch struct {
	track usecase.CommandHandler[command.TrackShipmentParcels]
	run   command.TrackShipmentParcels
}

func (h CommandHandlers) newShipmentParcelsBatch() messaging.CommandBatch {
	return &shipmentParcelsBatch{track: h.app.Commands.TrackShipmentParcels}
}

func (b *shipmentParcelsBatch) Add(c messaging.Command) {
	m := c.(*contract.TrackShipmentParcels)
	b.run.Shipments = append(b.run.Shipments, command.ShipmentParcels{
		AccountID: m.AccountID, ShipmentID: m.ShipmentID, ChannelID: m.ChannelID, Provider: m.Provider,
		TrackingNumbers: m.TrackingNumbers, CashOnDelivery: m.CashOnDelivery,
		Recipient: domain.Recipient{Name: m.Recipient.Name, Email: m.Recipient.Email, Phone: m.Recipient.Phone}})
}

func (b *shipmentParcelsBatch) Write(ctx context.Context, _ *sqlx.Tx) error {
	return b.track.Handle(ctx, b.run)
}
