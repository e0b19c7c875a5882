package command

import (
	"context"

	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
)

// CreateSubscription subscribes a URL of the account to event types.
type CreateSubscription struct {
	AccountID string
	Fields    domain.Fields
}

// CreateSubscriptionHandler stores new subscriptions.
type CreateSubscriptionHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewCreateSubscriptionHandler returns the handler.
func NewCreateSubscriptionHandler(repo domain.Repository, clk clock.Clock) CreateSubscriptionHandler {
	return CreateSubscriptionHandler{repo: repo, clock: clk}
}

// Handle stores the subscription. generated is the secret shipd made when
// the client sent none; it is shown this once and never again.
func (h CreateSubscriptionHandler) Handle(ctx context.Context, cmd CreateSubscription) (sub contract.Subscription, generated string, err error) {
	s, generated := domain.NewSubscription(cmd.AccountID, cmd.Fields, h.clock.Now())
	if err := h.repo.Add(ctx, s); err != nil {
		return contract.Subscription{}, "", err
	}
	return Record(s), generated, nil
}
