package command

import (
	"context"
	"time"

	"shipd/modules/webhooks/domain"
)

// OutboundEvent is one event of another module, rendered as the body every
// subscription to its type receives.
type OutboundEvent struct {
	ID         string
	Type       string
	AccountID  string
	CreatedAt  time.Time
	ResourceID string // the channel, shipment or tracking parcel it is about; empty for none
	Body       []byte
}

// DeliveriesDue is the signal (messaging.Wakeup.Next) a fan-out that made
// deliveries sends with its commit, so delivery workers claim them at once.
const DeliveriesDue = "webhooks.deliveries"

// Deliveries keeps the deliveries owed to subscriptions and their logs.
type Deliveries interface {
	// FanOut stores, for each event of the run, one delivery due now for
	// each active subscription of the account that takes its type, in a
	// few statements however long the run. Seeing an event again, in a
	// later run or the same one, adds nothing. Each delivery's place in its
	// resource's order is taken here: the deliveries' ids rise in the run's
	// order (then by subscription), and a later run's are higher, so the
	// events of one resource must come in the order they happened. When it
	// stored any, it signals DeliveriesDue, delivered with the commit of
	// the transaction it writes in. It returns how many it stored.
	FanOut(ctx context.Context, run []OutboundEvent, now time.Time) (int64, error)
	// Claim leases up to limit due deliveries for lease, the longest
	// overdue first, skipping those another worker holds, each with where
	// and how its subscription wants it sent. A first attempt is claimed
	// only once every earlier event of the same resource to the same
	// subscription has had its first attempt recorded (or was cancelled):
	// first attempts go in event order; retries keep their schedule.
	Claim(ctx context.Context, limit int, lease time.Duration) ([]DueDelivery, error)
	// Release gives back claims never attempted (shutdown); a delivery whose
	// lease has changed since (another worker's claim) is left alone.
	Release(ctx context.Context, claims []DueDelivery) error
	// Due counts the deliveries whose attempt is due now, claimed or not.
	Due(ctx context.Context) (int, error)
	// Record saves an attempt made on a claimed delivery: fn changes the
	// delivery and returns the log entry to keep (when keep is true). fn is
	// first applied to the delivery as claimed, its subscription active, and
	// saved only if the stored delivery is still pending with the claimed
	// attempts; otherwise (a pause or delete cancelled it, another worker
	// recorded it) fn is applied again to the stored delivery, loaded locked
	// with whether its subscription is still active. A pause or delete that
	// comes after cancels what is recorded. Record may return before the
	// attempt is written, to free the caller for the next delivery; an
	// attempt a crash keeps from being written is made again when its lease
	// runs out.
	Record(ctx context.Context, claimed domain.Delivery, fn func(d *domain.Delivery, subscriptionActive bool) (entry domain.LogEntry, keep bool)) error
	// FirstAttemptsRecorded signals, coalesced and never blocking, when
	// first attempts of deliveries with a resource have been written: the
	// next events of those resources may be claimed now, not at the next
	// poll.
	FirstAttemptsRecorded() <-chan struct{}
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
	LeaseUntil         time.Time // the claim's lease, which tells this claim from a later one
}

// Sender makes one signed POST and reports what came back. It never
// returns an error: every way an attempt can fail is a Response.Failure.
type Sender interface {
	Send(ctx context.Context, r domain.Request) domain.Response
}
