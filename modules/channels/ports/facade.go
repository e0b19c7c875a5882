package ports

import (
	"context"

	"shipd/modules/channels/app"
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
)

// Facade answers other modules' synchronous questions (contract.Channels).
type Facade struct {
	app app.Application
}

// NewFacade answers in process, for shipments and tracking run in the
// same process (contract/remote answers across processes).
func NewFacade(application app.Application) *Facade { return &Facade{app: application} }

var _ contract.Channels = (*Facade)(nil)

// ChannelForUse returns a channel with its decrypted settings and the
// keeper of what its carrier renews.
func (f *Facade) ChannelForUse(ctx context.Context, accountID, channelID string) (contract.ChannelAccess, error) {
	ch, err := f.app.Queries.ChannelForUse.Handle(ctx, query.ChannelForUse{AccountID: accountID, ChannelID: channelID})
	if err != nil {
		return ch, err
	}
	return contract.WithKeeper(f, ch), nil
}

// RenewCredential keeps a credential the channel's carrier renewed.
func (f *Facade) RenewCredential(ctx context.Context, r contract.CredentialRenewal) error {
	return f.app.Commands.RenewCredential.Handle(ctx, command.RenewCredential{AccountID: r.AccountID, ChannelID: r.ChannelID,
		Key: r.Key, Retired: r.Retired, Renewed: r.Renewed})
}
