package contract

import "context"

// ChannelAccess is what another module may know of a channel in order to
// call its carrier: the provider and the decrypted settings. It must never
// be shown or logged.
type ChannelAccess struct {
	ID        string
	AccountID string
	Name      string
	Provider  string
	Status    string
	Settings  map[string]any
}

// Active reports whether the channel may be used for shipments and tracking.
func (c ChannelAccess) Active() bool { return c.Status == "active" }

// Channels is the channels module's facade for synchronous reads by other
// modules (shipments opening a carrier session).
type Channels interface {
	// ChannelForUse returns the channel of accountID. A channel that does
	// not exist is a not-found fault; one of another account a forbidden
	// fault.
	ChannelForUse(ctx context.Context, accountID, channelID string) (ChannelAccess, error)
}
