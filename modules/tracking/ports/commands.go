package ports

import (
	"context"
	"errors"

	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
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

// Register subscribes the handlers to the module's command stream. A
// shipment's parcels are tracked a subscriber transaction's run of commands
// at a time, written in that transaction (shipmentParcelsBatch): at the
// rate shipments are booked, a transaction and a durable commit per command
// fell minutes behind. A deleted channel's parcels are stopped a command
// at a time, each parcel in a short transaction of its own (ADR 0019):
// channels are deleted seldom. The names are the consumer groups' in the
// offsets tables: renamed, a group would start over from the stream's start.
func (h CommandHandlers) Register(bus *messaging.Bus) error {
	return errors.Join(
		messaging.SubscribeCommandBatches[contract.TrackShipmentParcels](bus, "tracking.track_shipment_parcels", h.newShipmentParcelsBatch),
		messaging.OnCommand(bus, "tracking.stop_tracking_channel", h.stopTrackingChannel),
	)
}

func (h CommandHandlers) stopTrackingChannel(ctx context.Context, c *contract.StopTrackingChannel) error {
	return h.app.Commands.StopTrackingChannel.Handle(ctx, command.StopTrackingChannel{AccountID: c.AccountID, ChannelID: c.ChannelID})
}
