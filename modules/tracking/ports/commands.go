package ports

import (
	"context"
	"errors"

	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/messaging"
)

// CommandHandlers take the commands other modules send the tracking module
// over the command bus.
type CommandHandlers struct {
	app app.Application
}

// NewCommandHandlers turns the commands other modules send on the tracking
// command stream into the module's own.
func NewCommandHandlers(application app.Application) CommandHandlers {
	return CommandHandlers{app: application}
}

// Register subscribes the handlers to the module's command stream.
func (h CommandHandlers) Register(bus *messaging.Bus) error {
	return errors.Join(
		messaging.OnCommand(bus, "tracking.track_shipment_parcels", h.trackShipmentParcels),
		messaging.OnCommand(bus, "tracking.stop_tracking_channel", h.stopTrackingChannel),
	)
}

func (h CommandHandlers) trackShipmentParcels(ctx context.Context, c *contract.TrackShipmentParcels) error {
	return h.app.Commands.TrackShipmentParcels.Handle(ctx, command.TrackShipmentParcels{
		AccountID: c.AccountID, ShipmentID: c.ShipmentID, ChannelID: c.ChannelID, Provider: c.Provider,
		TrackingNumbers: c.TrackingNumbers, CashOnDelivery: c.CashOnDelivery,
		Recipient: domain.Recipient{Name: c.Recipient.Name, Email: c.Recipient.Email, Phone: c.Recipient.Phone}})
}

func (h CommandHandlers) stopTrackingChannel(ctx context.Context, c *contract.StopTrackingChannel) error {
	return h.app.Commands.StopTrackingChannel.Handle(ctx, command.StopTrackingChannel{AccountID: c.AccountID, ChannelID: c.ChannelID})
}
