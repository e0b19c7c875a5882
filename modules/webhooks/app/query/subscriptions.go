// Package query holds the webhooks module's read use cases.
package query

import (
	"context"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
)

// GetSubscription asks for one of the account's subscriptions.
type GetSubscription struct {
	AccountID string
	ID        string
}

// GetSubscriptionHandler reads the write model.
type GetSubscriptionHandler struct {
	repo domain.Repository
}

// NewGetSubscriptionHandler returns the handler.
func NewGetSubscriptionHandler(repo domain.Repository) GetSubscriptionHandler {
	return GetSubscriptionHandler{repo: repo}
}

// Handle returns the subscription, secret masked.
func (h GetSubscriptionHandler) Handle(ctx context.Context, q GetSubscription) (contract.Subscription, error) {
	s, err := h.repo.Get(ctx, q.ID)
	if err != nil {
		return contract.Subscription{}, err
	}
	if !s.BelongsTo(q.AccountID) {
		return contract.Subscription{}, command.NotYours()
	}
	return command.Record(s), nil
}

// ListSubscriptions asks for one page of an account's subscriptions, newest first.
type ListSubscriptions struct {
	AccountID string
	Offset    int
	Limit     int
}

// SubscriptionPage is one page and the number of all subscriptions.
type SubscriptionPage struct {
	Records []contract.Subscription
	Total   int
}

// SubscriptionList reads subscriptions for lists.
type SubscriptionList interface {
	ListSubscriptions(ctx context.Context, q ListSubscriptions) (SubscriptionPage, error)
}

// ListSubscriptionsHandler reads the list.
type ListSubscriptionsHandler struct {
	list SubscriptionList
}

// NewListSubscriptionsHandler returns the handler.
func NewListSubscriptionsHandler(list SubscriptionList) ListSubscriptionsHandler {
	return ListSubscriptionsHandler{list: list}
}

// Handle returns the page.
func (h ListSubscriptionsHandler) Handle(ctx context.Context, q ListSubscriptions) (SubscriptionPage, error) {
	return h.list.ListSubscriptions(ctx, q)
}
