package command

import (
	"context"
	"time"

	"shipd/modules/webhooks/domain"
)

// OutboundEvent is one event of another module, rendered as the body every
// subscription to its type receives.
type OutboundEvent struct {
	ID        string
	Type      string
	AccountID string
	CreatedAt time.Time
	Body      []byte
}

// Deliveries keeps the deliveries owed to subscriptions and their logs.
type Deliveries interface {
	// FanOut stores one delivery of the event, due now, for each active
	// subscription of the account that takes its type. Seeing the same
	// event again adds nothing. It returns how many deliveries it stored.
	FanOut(ctx context.Context, e OutboundEvent, now time.Time) (int64, error)
	// Claim leases up to limit due deliveries for lease, the longest
	// overdue first, skipping those another worker holds, each with where
	// and how its subscription wants it sent.
	Claim(ctx context.Context, limit int, lease time.Duration) ([]DueDelivery, error)
	// Record loads the delivery locked, with whether its subscription is
	// still active, lets fn change it, and saves it with the log entry fn
	// returns when keep is true. A pause or delete either comes first (the
	// delivery is cancelled or the subscription inactive) or cancels what
	// is recorded.
	Record(ctx context.Context, id int64, fn func(d *domain.Delivery, subscriptionActive bool) (entry domain.LogEntry, keep bool)) error
	// Purge deletes logs, finished deliveries and deleted subscriptions
	// older than before.
	Purge(ctx context.Context, before time.Time) (int64, error)
}

// DueDelivery is a claimed delivery with its subscription's URL, secret and
// state as they were at the claim.
type DueDelivery struct {
	domain.Delivery
	URL                string
	Secret             string
	SubscriptionActive bool
}

// Sender makes one signed POST and reports what came back. It never
// returns an error: every way an attempt can fail is a Response.Failure.
type Sender interface {
	Send(ctx context.Context, r domain.Request) domain.Response
}
