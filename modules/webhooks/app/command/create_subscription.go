package command

import (
	"context"

	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// CreateSubscription subscribes a URL of the account to event types, under
// the id the caller chose (it reads the subscription back by it). Fields
// carry the secret: the client's, or one the caller generated to show once.
type CreateSubscription struct {
	AccountID      string
	SubscriptionID string
	Fields         domain.Fields
}

// CreateSubscriptionHandler stores new subscriptions.
type CreateSubscriptionHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewCreateSubscriptionHandler builds the subscription of new URLs.
func NewCreateSubscriptionHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[CreateSubscription] {
	return usecase.Command(CreateSubscriptionHandler{repo: repo, clock: clk}, obs)
}

// Handle stores the subscription, if its fields keep the rules.
func (h CreateSubscriptionHandler) Handle(ctx context.Context, cmd CreateSubscription) error {
	sub, err := domain.NewSubscription(cmd.SubscriptionID, cmd.AccountID, cmd.Fields, EventTypes, h.clock.Now())
	if err != nil {
		return err
	}
	return h.repo.Add(ctx, sub)
}
