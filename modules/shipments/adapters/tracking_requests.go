package adapters

import (
	"shipd/modules/shipments/domain"

	tracking "shipd/modules/tracking/contract"
)

// TrackShipmentParcels is the command a shipment's tracking request
// (domain.Shipment.RequestTracking, which decides whether and what) goes
// to the tracking module as. It is sent in the transaction that records
// the booking, so a booking is never without its tracking, nor tracked
// twice.
func TrackShipmentParcels(req domain.TrackingRequest) tracking.TrackShipmentParcels {
	return tracking.TrackShipmentParcels{AccountID: req.AccountID, ShipmentID: req.ShipmentID, ChannelID: req.ChannelID,
		Provider: req.Provider, TrackingNumbers: req.TrackingNumbers, CashOnDelivery: req.CashOnDelivery,
		Recipient: tracking.Recipient{Name: req.Recipient.Name, Email: req.Recipient.Email, Phone: req.Recipient.Phone}}
}
