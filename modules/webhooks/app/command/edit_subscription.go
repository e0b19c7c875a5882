package command

import (
	"context"

	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
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

// NewUpdateSubscriptionHandler builds the change of subscriptions.
func NewUpdateSubscriptionHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[UpdateSubscription] {
	return usecase.Command(UpdateSubscriptionHandler{repo: repo, clock: clk}, obs)
}

// Handle updates the subscription. A change with problems of its own is
// refused before the subscription is looked up, whoever's it is.
func (h UpdateSubscriptionHandler) Handle(ctx context.Context, cmd UpdateSubscription) error {
	if err := cmd.Change.Check(EventTypes); err != nil {
		return err
	}
	_, err := h.repo.Update(ctx, cmd.ID, func(s *domain.Subscription) error {
		if !s.BelongsTo(cmd.AccountID) {
			return NotYours()
		}
		return s.Apply(cmd.Change, EventTypes, h.clock.Now())
	})
	return err
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

// NewDeleteSubscriptionHandler builds the deletion of subscriptions.
func NewDeleteSubscriptionHandler(repo domain.Repository, obs usecase.Observer) usecase.CommandHandler[DeleteSubscription] {
	return usecase.Command(DeleteSubscriptionHandler{repo: repo}, obs)
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
