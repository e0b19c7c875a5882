package ports

import (
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
)

// pickupRequest is the body of POST /v1/pickups; the domain checks it
// (pickup.New).
type pickupRequest struct {
	ShippingChannelID string            `json:"shipping_channel_id"`
	Date              string            `json:"date"`
	ReadyFrom         string            `json:"ready_from"`
	ReadyUntil        string            `json:"ready_until"`
	Address           *carrier.Address  `json:"address"`
	Contact           *contract.Contact `json:"contact"`
	ShipmentIDs       []string          `json:"shipment_ids"`
	ParcelCount       *int              `json:"parcel_count"`
	TotalWeightKG     *float64          `json:"total_weight_kg"`
	Note              string            `json:"note"`
}

func (r pickupRequest) domain() pickup.Request {
	out := pickup.Request{ChannelID: r.ShippingChannelID, Date: r.Date, ReadyFrom: r.ReadyFrom, ReadyUntil: r.ReadyUntil,
		Address: r.Address, ShipmentIDs: r.ShipmentIDs, ParcelCount: r.ParcelCount, TotalWeightKG: r.TotalWeightKG, Note: r.Note}
	if r.Contact != nil {
		c := r.Contact.Carrier()
		out.Contact = &c
	}
	return out
}

// manifestRequest is the body of POST /v1/manifests; shipment_ids left out
// (or null): every created shipment of the channel not yet on a manifest.
type manifestRequest struct {
	ShippingChannelID string   `json:"shipping_channel_id"`
	ShipmentIDs       []string `json:"shipment_ids"`
}

func (r manifestRequest) domain() manifest.Request {
	return manifest.Request{ChannelID: r.ShippingChannelID, ShipmentIDs: r.ShipmentIDs}
}
