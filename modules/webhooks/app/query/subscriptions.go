// Package query holds the webhooks module's read use cases.
package query

import (
	"context"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/usecase"
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

// NewGetSubscriptionHandler reads subscriptions from the repository.
func NewGetSubscriptionHandler(repo domain.Repository, obs usecase.Observer) usecase.QueryHandler[GetSubscription, contract.Subscription] {
	return usecase.Query(GetSubscriptionHandler{repo: repo}, obs)
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
type SubscriptionPage = usecase.Page[contract.Subscription]

// SubscriptionList reads subscriptions for lists.
type SubscriptionList interface {
	ListSubscriptions(ctx context.Context, q ListSubscriptions) (SubscriptionPage, error)
}

// ListSubscriptionsHandler reads the list.
type ListSubscriptionsHandler struct {
	list SubscriptionList
}

// NewListSubscriptionsHandler reads pages of subscriptions.
func NewListSubscriptionsHandler(list SubscriptionList, obs usecase.Observer) usecase.QueryHandler[ListSubscriptions, SubscriptionPage] {
	return usecase.Query(ListSubscriptionsHandler{list: list}, obs)
}

// Handle returns the page.
func (h ListSubscriptionsHandler) Handle(ctx context.Context, q ListSubscriptions) (SubscriptionPage, error) {
	return h.list.ListSubscriptions(ctx, q)
}
