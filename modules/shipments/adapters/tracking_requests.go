package adapters

import (
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/messaging"

	tracking "shipd/modules/tracking/contract"
)

// trackingRequests are the commands that go to the tracking module with
// events: a shipment the carrier created, with tracking asked for, has its
// parcels tracked. They are sent in the transaction that records the
// booking, so a booking is never without its tracking, nor tracked twice.
func trackingRequests(events []domain.Event) []messaging.Command {
	var out []messaging.Command
	for _, e := range events {
		created, ok := e.(contract.ShipmentCreated)
		if !ok || !created.Shipment.EnableTracking {
			continue
		}
		sh := created.Shipment
		cmd := tracking.TrackShipmentParcels{AccountID: created.AccountID, ShipmentID: sh.ID, ChannelID: sh.ShippingChannelID, Provider: sh.Provider,
			Recipient:      tracking.Recipient{Name: recipientName(sh.RecipientContact), Email: sh.RecipientContact.EmailAddress, Phone: sh.RecipientContact.PhoneNumber},
			CashOnDelivery: sh.CashOnDelivery != nil}
		for _, p := range sh.Parcels {
			if p.TrackingNumber != nil {
				cmd.TrackingNumbers = append(cmd.TrackingNumbers, *p.TrackingNumber)
			}
		}
		if len(cmd.TrackingNumbers) > 0 {
			out = append(out, cmd)
		}
	}
	return out
}

// recipientName is the person's name, else the company's.
func recipientName(c contract.Contact) string {
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
