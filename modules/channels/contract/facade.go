package contract

import (
	"context"
	"net/url"

	"shipd/platform/fault"
)

// ChannelAccess is what another module may know of a channel in order to
// call its carrier: the provider and the decrypted settings, which carry
// the channel's carrier.CredentialKeeper (WithKeeper). It must never be
// shown or logged.
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
	// RenewCredential keeps a credential the channel's carrier renewed on
	// its own (carrier.CredentialKeeper.Renew; ADR 0042).
	RenewCredential(ctx context.Context, r CredentialRenewal) error
}

// ActiveChannel is the account's channel for new work (a shipment, a
// tracking parcel), or the answer the API gives on shipping_channel_id when
// it is not one of the account's channels or not active. Other failures of
// the facade (another account's channel, channels unavailable) pass through.
func ActiveChannel(ctx context.Context, channels Channels, accountID, channelID string) (ChannelAccess, error) {
	ch, err := channels.ChannelForUse(ctx, accountID, channelID)
	if fault.Is(err, fault.KindNotFound) {
		return ch, fault.Field("shipping_channel_id", "does not name a shipping channel of this account")
	}
	if err != nil {
		return ch, err
	}
	if !ch.Active() {
		return ch, fault.Field("shipping_channel_id", "must be an active shipping channel (this one is "+ch.Status+"; validate it first)")
	}
	return ch, nil
}

// SealedChannelAccess is ChannelAccess as the channels process sends it to
// another shipd process (GET /internal/channels/{id}/access, ADR 0033):
// the settings sealed with the secret key every process shares, so carrier
// credentials cross the network encrypted, as they rest.
type SealedChannelAccess struct {
	ID             string `json:"id"`
	AccountID      string `json:"account_id"`
	Name           string `json:"name"`
	Provider       string `json:"provider"`
	Status         string `json:"status"`
	SealedSettings string `json:"sealed_settings"`
}

// InternalAccessRoute is the route of a channel's access on the channels
// process, under /internal; InternalAccessPath fills it in.
const InternalAccessRoute = "/channels/{id}/access"

// InternalAccessPath is the path of a channel's access, under /internal.
func InternalAccessPath(channelID string) string {
	return "/channels/" + url.PathEscape(channelID) + "/access"
}
