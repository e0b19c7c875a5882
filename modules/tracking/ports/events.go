package ports

import (
	"context"

	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/domain"
	"shipd/platform/messaging"

	shipments "shipd/modules/shipments/contract"
)

// EventHandlers are the module's handlers of other modules' events.
type EventHandlers struct {
	app app.Application
}

// NewEventHandlers returns the handlers.
func NewEventHandlers(application app.Application) EventHandlers {
	return EventHandlers{app: application}
}

// Register subscribes the handlers.
func (h EventHandlers) Register(bus *messaging.Bus) error {
	return messaging.OnEvent(bus, "tracking.on_shipment_created", h.onShipmentCreated)
}

// onShipmentCreated starts tracking every parcel of a shipment the carrier
// created, when the shipment asks for tracking.
func (h EventHandlers) onShipmentCreated(ctx context.Context, e *shipments.ShipmentCreated) error {
	sh := e.Shipment
	if !sh.EnableTracking {
		return nil
	}
	cmd := command.TrackShipmentParcels{AccountID: e.AccountID, ShipmentID: sh.ID, ChannelID: sh.ShippingChannelID, Provider: sh.Provider,
		Recipient:      domain.Recipient{Name: recipientName(sh.RecipientContact), Email: sh.RecipientContact.EmailAddress, Phone: sh.RecipientContact.PhoneNumber},
		CashOnDelivery: sh.CashOnDelivery != nil}
	for _, p := range sh.Parcels {
		if p.TrackingNumber != nil {
			cmd.TrackingNumbers = append(cmd.TrackingNumbers, *p.TrackingNumber)
		}
	}
	return h.app.Commands.TrackShipmentParcels.Handle(ctx, cmd)
}

func recipientName(c shipments.Contact) string {
	name := c.FirstName
	if c.LastName != "" {
		if name != "" {
			name += " "
		}
		name += c.LastName
	}
	if name == "" {
		return c.CompanyName
	}
	return name
}
