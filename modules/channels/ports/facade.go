package ports

import (
	"context"

	"shipd/modules/channels/app"
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

// ChannelForUse returns a channel with its decrypted settings.
func (f *Facade) ChannelForUse(ctx context.Context, accountID, channelID string) (contract.ChannelAccess, error) {
	return f.app.Queries.ChannelForUse.Handle(ctx, query.ChannelForUse{AccountID: accountID, ChannelID: channelID})
}
