package domain

// TrackingRequest is what a shipment the carrier created asks of the
// tracking module: its parcels, by the numbers the carrier gave, tracked
// through its channel for its recipient.
type TrackingRequest struct {
	AccountID, ShipmentID, ChannelID, Provider string
	TrackingNumbers                            []string
	Recipient                                  TrackingRecipient
	// CashOnDelivery keeps the parcels checked past delivery until the
	// carrier reports the cash collected.
	CashOnDelivery bool
}

// TrackingRecipient is whom the parcels go to, as tracking names them.
type TrackingRecipient struct{ Name, Email, Phone string }

// RequestTracking decides what tracking a shipment the carrier has just
// created asks for, and keeps the request for the repository to send with
// the change that saves the shipment (TakeTrackingRequest), so it is sent
// once, with the booking, or not at all: nothing unless the shipment is
// created with tracking enabled, and then one request for the parcels that
// have a tracking number (none when no parcel has one), the recipient named
// as RecipientName says.
func (sh *Shipment) RequestTracking() {
	s := sh.s
	if s.Status != StatusCreated || !s.EnableTracking {
		return
	}
	req := TrackingRequest{AccountID: s.AccountID, ShipmentID: s.ID, ChannelID: s.ChannelID, Provider: s.Provider,
		Recipient:      TrackingRecipient{Name: s.Recipient.RecipientName(), Email: s.Recipient.EmailAddress, Phone: s.Recipient.PhoneNumber},
		CashOnDelivery: s.COD != nil}
	for _, p := range s.Parcels {
		if p.TrackingNumber != nil {
			req.TrackingNumbers = append(req.TrackingNumbers, *p.TrackingNumber)
		}
	}
	if len(req.TrackingNumbers) > 0 {
		sh.tracking = &req
	}
}

// TakeTrackingRequest returns the request RequestTracking kept, once; nil
// when there is none.
func (sh *Shipment) TakeTrackingRequest() *TrackingRequest {
	req := sh.tracking
	sh.tracking = nil
	return req
}

// RecipientName is how tracking names a contact: the person's first and
// last name, else the company's.
func (c Contact) RecipientName() string {
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
