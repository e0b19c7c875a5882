package command

import (
	"context"

	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
)

// UpdateSubscription changes a subscription; pausing it (Active false)
// cancels its pending retries.
type UpdateSubscription struct {
	AccountID string
	ID        string
	Change    domain.Change
}

// UpdateSubscriptionHandler applies updates.
type UpdateSubscriptionHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewUpdateSubscriptionHandler returns the handler.
func NewUpdateSubscriptionHandler(repo domain.Repository, clk clock.Clock) UpdateSubscriptionHandler {
	return UpdateSubscriptionHandler{repo: repo, clock: clk}
}

// Handle updates the subscription and returns it.
func (h UpdateSubscriptionHandler) Handle(ctx context.Context, cmd UpdateSubscription) (contract.Subscription, error) {
	s, err := h.repo.Update(ctx, cmd.ID, func(s *domain.Subscription) error {
		if !s.BelongsTo(cmd.AccountID) {
			return NotYours()
		}
		s.Apply(cmd.Change, h.clock.Now())
		return nil
	})
	if err != nil {
		return contract.Subscription{}, err
	}
	return Record(s), nil
}

// DeleteSubscription removes a subscription and cancels its pending retries.
type DeleteSubscription struct {
	AccountID string
	ID        string
}

// DeleteSubscriptionHandler deletes subscriptions.
type DeleteSubscriptionHandler struct {
	repo domain.Repository
}

// NewDeleteSubscriptionHandler returns the handler.
func NewDeleteSubscriptionHandler(repo domain.Repository) DeleteSubscriptionHandler {
	return DeleteSubscriptionHandler{repo: repo}
}

// Handle deletes the subscription.
func (h DeleteSubscriptionHandler) Handle(ctx context.Context, cmd DeleteSubscription) error {
	return h.repo.Delete(ctx, cmd.ID, func(s *domain.Subscription) error {
		if !s.BelongsTo(cmd.AccountID) {
			return NotYours()
		}
		return nil
	})
}
