package domain

import "context"

// Event is something that happened to a channel, published with the change
// that caused it.
type Event interface {
	EventType() string
	EventStream() string
}

// Repository keeps channels. Each method is one short transaction that also
// publishes the given events (transactional outbox).
type Repository interface {
	// Add stores a new channel; a taken name is a validation fault on "name".
	Add(ctx context.Context, ch *Channel, events ...Event) error
	// Get loads a channel; a missing one is a not-found fault.
	Get(ctx context.Context, id string) (*Channel, error)
	// Update loads the channel locked, lets fn change it and name the events
	// to publish, and saves it. fn must do no I/O.
	Update(ctx context.Context, id string, fn func(ch *Channel) ([]Event, error)) (*Channel, error)
	// RenewSecrets loads the channel locked, lets fn renew its secret
	// settings (Channel.RenewSecret) and, when fn reports a change, saves
	// them alone: nothing else of the channel is written and no event is
	// published (ADR 0042). fn must do no I/O.
	RenewSecrets(ctx context.Context, id string, fn func(ch *Channel) (bool, error)) error
	// Delete loads the channel locked, lets fn veto it and name the events,
	// and deletes it.
	Delete(ctx context.Context, id string, fn func(ch *Channel) ([]Event, error)) error
}
