package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/fault"
	"shipd/platform/memrepo"
)

// Manifests keeps manifests in memory as the PostgreSQL repository keeps
// them: each one's state, its document once it has one, and which manifest
// holds each shipment.
type Manifests struct {
	book      memrepo.Book[domain.Event]
	rows      map[string]manifest.Stored
	documents map[string][]byte
	held      map[string]string // shipment id → manifest id
}

// NewManifests returns an empty repository.
func NewManifests() *Manifests {
	return &Manifests{rows: map[string]manifest.Stored{}, documents: map[string][]byte{}, held: map[string]string{}}
}

var _ manifest.Repository = (*Manifests)(nil)

// Interfere makes the repository fail as a database might: before each
// call f is asked with the operation ("Add", "Get", "Complete", "Forget",
// "Stale" or "Document") and the manifest's id ("" for Stale); an error it
// returns is the call's answer and nothing changes. nil stops interfering.
func (r *Manifests) Interfere(f func(op, id string) error) { r.book.Interfere(f) }

// Published returns every event published so far, in order.
func (r *Manifests) Published() []domain.Event { return r.book.Published() }

// Add stores a manifest being created with its shipments held, refusing
// those another manifest holds, each on its index; a taken id is the
// primary key's error, no fault.
func (r *Manifests) Add(_ context.Context, m *manifest.Manifest) error {
	s := m.Stored()
	return memrepo.Add(&r.book, s.ID, func() error {
		errs := fault.FieldErrors{}
		for i, id := range s.ShipmentIDs {
			if _, ok := r.held[id]; ok {
				errs.Add("shipment_ids."+strconv.Itoa(i), "is on a manifest already")
			}
		}
		if err := errs.Err(); err != nil {
			return err
		}
		if _, taken := r.rows[s.ID]; taken {
			return fmt.Errorf("inserting manifest: duplicate key %s", s.ID)
		}
		r.store(s)
		for _, id := range s.ShipmentIDs {
			r.held[id] = s.ID
		}
		return nil
	}, nil)
}

// Get loads one manifest.
func (r *Manifests) Get(_ context.Context, id string) (*manifest.Manifest, error) {
	return memrepo.Get(&r.book, "Get", id, r.load)
}

// Complete lets fn change the manifest and saves it with document and the
// events fn names, or nothing when fn fails.
func (r *Manifests) Complete(_ context.Context, id string, document []byte, fn func(m *manifest.Manifest) ([]domain.Event, error)) (*manifest.Manifest, error) {
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("Complete", id); err != nil {
		return nil, err
	}
	m, err := r.load(id)
	if err != nil {
		return nil, err
	}
	events, err := fn(m)
	if err != nil {
		return nil, err
	}
	r.store(m.Stored())
	r.documents[id] = slices.Clone(document)
	r.book.Publish(events...)
	return m, nil
}

// Forget removes a manifest being created and lets its shipments go; a
// created one, or none, is left as it is.
func (r *Manifests) Forget(_ context.Context, id string) error {
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("Forget", id); err != nil {
		return err
	}
	if s, ok := r.rows[id]; !ok || s.Status != manifest.StatusCreating {
		return nil
	}
	delete(r.rows, id)
	delete(r.documents, id)
	for shipment, holder := range r.held {
		if holder == id {
			delete(r.held, shipment)
		}
	}
	return nil
}

// Stale are the manifests being created since before, the longest waiting
// first, at most limit.
func (r *Manifests) Stale(_ context.Context, before time.Time, limit int) ([]string, error) {
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("Stale", ""); err != nil {
		return nil, err
	}
	return longestWaiting(r.rows, before, limit, func(s manifest.Stored) (time.Time, bool) {
		return s.UpdatedAt, s.Status == manifest.StatusCreating
	}), nil
}

// Document is the manifest's document, not found until Complete stored one.
func (r *Manifests) Document(_ context.Context, id string) ([]byte, error) {
	return memrepo.Get(&r.book, "Document", id, func(id string) ([]byte, error) {
		d, ok := r.documents[id]
		if !ok {
			return nil, fault.NotFound("Manifest document")
		}
		return slices.Clone(d), nil
	})
}

// onManifest reports whether a manifest, being created or created, holds
// the shipment.
func (r *Manifests) onManifest(shipmentID string) bool {
	r.book.Lock()
	defer r.book.Unlock()
	_, ok := r.held[shipmentID]
	return ok
}

// store keeps s as a round trip through its columns leaves it.
func (r *Manifests) store(s manifest.Stored) {
	s.ShipmentIDs = slices.Clone(s.ShipmentIDs)
	s.CreatedAt, s.UpdatedAt = stamp(s.CreatedAt), stamp(s.UpdatedAt)
	r.rows[s.ID] = s
}

func (r *Manifests) load(id string) (*manifest.Manifest, error) {
	s, ok := r.rows[id]
	if !ok {
		return nil, fault.NotFound("Manifest")
	}
	s.ShipmentIDs = slices.Clone(s.ShipmentIDs)
	return manifest.Restore(s), nil
}
