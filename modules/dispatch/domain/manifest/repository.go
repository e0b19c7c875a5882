package manifest

import (
	"context"
	"time"

	"shipd/modules/dispatch/domain"
)

// Repository keeps manifests and their documents. Each method is one short
// transaction that also publishes the given events.
type Repository interface {
	// Add stores a manifest being created, holding its shipments: one on
	// another manifest is a field fault on shipment_ids.N (or on
	// shipment_ids when the manifest took the channel's undispatched ones).
	Add(ctx context.Context, m *Manifest) error
	// Get loads a manifest; a missing one is a not-found fault.
	Get(ctx context.Context, id string) (*Manifest, error)
	// Complete loads the manifest locked, lets fn change it and name the
	// events, and saves it with its document (PDF).
	Complete(ctx context.Context, id string, document []byte, fn func(m *Manifest) ([]domain.Event, error)) (*Manifest, error)
	// Forget removes a manifest being created whose carrier refused or
	// could not be asked: its shipments are free again.
	Forget(ctx context.Context, id string) error
	// Stale are the manifests being created since before, at most limit:
	// a creation whose process ended on the way.
	Stale(ctx context.Context, before time.Time, limit int) ([]string, error)
	// Document is the manifest's document; a not-found fault until it has
	// one.
	Document(ctx context.Context, id string) ([]byte, error)
}
