package contract

import (
	"context"
	"net/url"

	"shipd/platform/carrier"
)

// CredentialRenewal asks the channels module to store Renewed as the
// channel's secret setting Key if the value stored is one of Retired: a
// credential the carrier renewed on its own, kept for every process
// without an event or a change a client sees (ADR 0042).
type CredentialRenewal struct {
	AccountID string
	ChannelID string
	Key       string
	Retired   []string
	Renewed   string
}

// WithKeeper hands access's carrier, with its settings, the channel's
// carrier.CredentialKeeper, answered by channels: every facade answers
// ChannelForUse through it, so a carrier adapter called by any module
// keeps what it renews.
func WithKeeper(channels Channels, access ChannelAccess) ChannelAccess {
	access.Settings = carrier.Settings(access.Settings).WithKeeper(keeper{channels: channels, accountID: access.AccountID, channelID: access.ID})
	return access
}

// keeper is one channel's carrier.CredentialKeeper over the facade.
type keeper struct {
	channels  Channels
	accountID string
	channelID string
}

// Stored asks for the channel again: another process may have renewed
// the value since the settings in hand were read.
func (k keeper) Stored(ctx context.Context, key string) (string, error) {
	ch, err := k.channels.ChannelForUse(ctx, k.accountID, k.channelID)
	if err != nil {
		return "", err
	}
	return carrier.Settings(ch.Settings).String(key), nil
}

// Renew asks the channels module to keep renewed.
func (k keeper) Renew(ctx context.Context, key string, retired []string, renewed string) error {
	return k.channels.RenewCredential(ctx, CredentialRenewal{AccountID: k.accountID, ChannelID: k.channelID,
		Key: key, Retired: retired, Renewed: renewed})
}

// SealedCredentialRenewal is a CredentialRenewal as another process sends
// it to the channels process (POST /internal/channels/{id}/credentials
// ?account_id=…): the values sealed with the secret key every process
// shares, as the settings of SealedChannelAccess are. Sealed opens to the
// JSON of CredentialValues.
type SealedCredentialRenewal struct {
	Key    string `json:"key"`
	Sealed string `json:"sealed"`
}

// CredentialValues are the secret part of a renewal, sealed on the wire.
type CredentialValues struct {
	Retired []string `json:"retired"`
	Renewed string   `json:"renewed"`
}

// InternalCredentialsRoute is the route of a channel's renewed credentials
// on the channels process, under /internal; InternalCredentialsPath fills
// it in.
const InternalCredentialsRoute = "/channels/{id}/credentials"

// InternalCredentialsPath is the path of a channel's renewed credentials,
// under /internal.
func InternalCredentialsPath(channelID string) string {
	return "/channels/" + url.PathEscape(channelID) + "/credentials"
}
