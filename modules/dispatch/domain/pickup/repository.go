package pickup

import (
	"context"
	"time"

	"shipd/modules/dispatch/domain"
)

// Repository keeps pickups. Each method is one short transaction that also
// publishes the given events (transactional outbox).
type Repository interface {
	// Add stores a pickup being ordered, before its carrier is asked (the
	// recovery point). A shipment on another active pickup is a field fault
	// on shipment_ids.N; another active pickup of the channel on the date
	// a conflict naming it.
	Add(ctx context.Context, p *Pickup) error
	// Get loads a pickup; a missing one is a not-found fault.
	Get(ctx context.Context, id string) (*Pickup, error)
	// Update loads the pickup locked, lets fn change it and name the events
	// to publish, and saves it; a cancelled pickup frees its shipments and
	// its date. fn must do no I/O.
	Update(ctx context.Context, id string, fn func(p *Pickup) ([]domain.Event, error)) (*Pickup, error)
	// Record is Update in a transaction of its own, committed even under
	// a request's scope: what a carrier accepted an order under must outlive
	// the request, and the carrier is still being asked (ADR 0041).
	Record(ctx context.Context, id string, fn func(p *Pickup) error) error
	// Forget removes a pickup being ordered that its carrier refused or
	// could not be asked for: nothing of it stays.
	Forget(ctx context.Context, id string) error
	// Stale are the pickups being ordered since before, at most limit: an
	// order whose process ended while it asked the carrier.
	Stale(ctx context.Context, before time.Time, limit int) ([]string, error)
}
