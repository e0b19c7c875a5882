package contract

// CommandStream carries the commands other modules send the tracking module,
// handled in the order they were committed.
const CommandStream = "tracking.commands"

// TrackShipmentParcels asks tracking to follow the parcels of a shipment the
// carrier created; the shipments module sends it in the transaction that
// records the booking. A number the account already tracks through the
// channel keeps its tracking parcel.
type TrackShipmentParcels struct {
	AccountID       string    `json:"account_id"`
	ShipmentID      string    `json:"shipment_id"`
	ChannelID       string    `json:"shipping_channel_id"`
	Provider        string    `json:"provider"`
	TrackingNumbers []string  `json:"tracking_numbers"`
	Recipient       Recipient `json:"recipient"`
	CashOnDelivery  bool      `json:"cash_on_delivery"`
}

// Recipient is whom the parcels go to, as tracking keeps it.
type Recipient struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// StopTrackingChannel asks tracking to stop checking every parcel of a
// channel that was deleted; the channels module sends it in the delete's
// transaction.
type StopTrackingChannel struct {
	AccountID string `json:"account_id"`
	ChannelID string `json:"shipping_channel_id"`
}

func (TrackShipmentParcels) CommandName() string   { return "tracking.track_shipment_parcels" }
func (TrackShipmentParcels) CommandStream() string { return CommandStream }
func (StopTrackingChannel) CommandName() string    { return "tracking.stop_tracking_channel" }
func (StopTrackingChannel) CommandStream() string  { return CommandStream }

// PartitionKey is the aggregate a command is about: the shipment whose
// parcels to track, the channel whose parcels stop (messaging.Keyed).
func (c TrackShipmentParcels) PartitionKey() string { return c.ShipmentID }
func (c StopTrackingChannel) PartitionKey() string  { return c.ChannelID }
