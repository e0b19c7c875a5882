package domain

import "context"

// Repository keeps subscriptions. Each method is one short transaction.
type Repository interface {
	// Add inserts the subscription.
	Add(ctx context.Context, s *Subscription) error
	// Get loads a subscription that was not deleted.
	Get(ctx context.Context, id string) (*Subscription, error)
	// Update loads the subscription locked and lets fn change it. A
	// subscription left inactive has its pending deliveries cancelled in
	// the same transaction.
	Update(ctx context.Context, id string, fn func(s *Subscription) error) (*Subscription, error)
	// Delete loads the subscription locked, lets fn veto, removes it from
	// the API and cancels its pending deliveries. Its logs stay readable
	// until they expire.
	Delete(ctx context.Context, id string, fn func(s *Subscription) error) error
}
