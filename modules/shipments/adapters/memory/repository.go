// Package memory is the shipments module's driven side in memory: the
// repository and the list read model, for tests of the app layer that need
// no database (the channels facade is channelstest's). Each keeps the
// contract its PostgreSQL counterpart keeps (repositorytest holds both to
// it: not found as fault.NotFound, Update applying fn as one change,
// nothing saved when fn fails, a change without an event saved only when
// it changed what is stored, the tracking a shipment asks for sent with the
// change, UpdateAll as Update one change after another); what only SQL can
// do (row locks, the outbox, booking leases) is not modelled.
package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"shipd/modules/shipments/domain"
	"shipd/platform/fault"
	"shipd/platform/memrepo"
)

// Repository keeps shipments in memory as the PostgreSQL repository keeps
// them: each one's state as JSON, so a state that does not survive the
// round trip fails here as it would there.
type Repository struct {
	book   memrepo.Book[domain.Event]
	rows   map[string]row
	seq    int // order of insertion, the list's newest first
	labels map[string]domain.Label
	parts  map[string]domain.LabelParts
	asked  []domain.TrackingRequest
}

type row struct {
	state []byte
	seq   int
}

// NewRepository returns an empty repository.
func NewRepository() *Repository {
	return &Repository{rows: map[string]row{}, labels: map[string]domain.Label{}, parts: map[string]domain.LabelParts{}}
}

var _ domain.Repository = (*Repository)(nil)

// Interfere makes the repository fail as a database might: before each
// call f is asked with the operation ("Add", "Get", "Update", "UpdateAll",
// "Delete" or "Label") and the shipment's id (UpdateAll's first in id
// order); an error it returns is the call's answer and nothing changes. nil
// stops interfering.
func (r *Repository) Interfere(f func(op, id string) error) { r.book.Interfere(f) }

// Published returns every event published so far, in order.
func (r *Repository) Published() []domain.Event { return r.book.Published() }

// TrackingRequests returns every tracking request sent so far (the
// PostgreSQL repository sends each as a tracking command), in order.
func (r *Repository) TrackingRequests() []domain.TrackingRequest {
	r.book.Lock()
	defer r.book.Unlock()
	return slices.Clone(r.asked)
}

// send records the tracking sh asks for, with the change that saves it.
func (r *Repository) send(sh *domain.Shipment) {
	if req := sh.TakeTrackingRequest(); req != nil {
		r.asked = append(r.asked, *req)
	}
}

// Add inserts the shipment and publishes events.
func (r *Repository) Add(_ context.Context, sh *domain.Shipment, events ...domain.Event) error {
	return memrepo.Add(&r.book, sh.ID(), func() error {
		if _, ok := r.rows[sh.ID()]; ok {
			// The primary key's violation: an error, not a fault.
			return fmt.Errorf("inserting shipment: duplicate key %s", sh.ID())
		}
		state, err := json.Marshal(sh.Stored())
		if err != nil {
			return err
		}
		r.seq++
		r.rows[sh.ID()] = row{state: state, seq: r.seq}
		r.send(sh)
		return nil
	}, events)
}

// Get loads one shipment.
func (r *Repository) Get(_ context.Context, id string) (*domain.Shipment, error) {
	return memrepo.Get(&r.book, "Get", id, r.load)
}

func (r *Repository) load(id string) (*domain.Shipment, error) {
	rw, ok := r.rows[id]
	if !ok {
		return nil, fault.NotFound("Shipment")
	}
	var st domain.Stored
	if err := json.Unmarshal(rw.state, &st); err != nil {
		return nil, fmt.Errorf("shipment %s state: %w", id, err)
	}
	return domain.Restore(st), nil
}

// Update lets fn change the shipment; as in PostgreSQL, the change is saved
// (with a label Booked recorded, the events and the tracking it asks for)
// when fn succeeds and names an event or changed what is stored (a
// booking's handle is saved without one).
func (r *Repository) Update(_ context.Context, id string, fn func(sh *domain.Shipment) ([]domain.Event, error)) (*domain.Shipment, error) {
	return memrepo.Update(&r.book, id, r.load, fn, func(sh *domain.Shipment, events []domain.Event) error {
		state, err := json.Marshal(sh.Stored())
		if err != nil {
			return err
		}
		parts := sh.TakeLabelPartsChange()
		if len(events) == 0 && bytes.Equal(state, r.rows[id].state) && parts == nil {
			return nil
		}
		r.rows[id] = row{state: state, seq: r.rows[id].seq}
		if parts != nil {
			r.parts[id] = domain.LabelParts{Format: parts.Format, Parts: clonedParts(parts.Parts)}
		}
		if l := sh.TakeNewLabel(); l != nil {
			r.labels[id] = *l
		}
		r.send(sh)
		return nil
	})
}

// UpdateAll applies changes in their order as PostgreSQL does: each
// shipment found is changed in turn and saved once, when a change named
// events or changed what is stored, the events published in the order the
// changes named them; shipments not found are skipped, and one left
// holding more than its record fails the call with nothing saved.
func (r *Repository) UpdateAll(_ context.Context, changes []domain.Change) error {
	if len(changes) == 0 {
		return nil
	}
	ids := domain.ChangedIDs(changes)
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("UpdateAll", ids...); err != nil {
		return err
	}
	found := map[string]*domain.Shipment{}
	for _, id := range ids {
		if _, ok := r.rows[id]; ok {
			sh, err := r.load(id)
			if err != nil {
				return err
			}
			found[id] = sh
		}
	}
	events, named := domain.ApplyInTurn(changes, found)
	// Every shipment is judged before any is stored: the call saves all
	// or nothing, as a transaction does.
	changed := map[string][]byte{}
	for id, sh := range found {
		if sh.HoldsMoreThanItsRecord() {
			return fmt.Errorf("shipment %s: a label or a tracking request is saved by Update, not UpdateAll", id)
		}
		state, err := json.Marshal(sh.Stored())
		if err != nil {
			return err
		}
		if named[id] || !bytes.Equal(state, r.rows[id].state) {
			changed[id] = state
		}
	}
	for id, state := range changed {
		r.rows[id] = row{state: state, seq: r.rows[id].seq}
	}
	r.book.Publish(events...)
	return nil
}

// Delete lets fn veto, then deletes the shipment and its label.
func (r *Repository) Delete(_ context.Context, id string, fn func(sh *domain.Shipment) ([]domain.Event, error)) error {
	return memrepo.Delete(&r.book, id, r.load, fn, func(*domain.Shipment) {
		delete(r.rows, id)
		delete(r.labels, id) // the labels table's foreign key cascades
		delete(r.parts, id)
	})
}

// Label returns the stored merged label, or nil.
func (r *Repository) Label(_ context.Context, id string) (*domain.Label, error) {
	return memrepo.Get(&r.book, "Label", id, func(id string) (*domain.Label, error) {
		l, ok := r.labels[id]
		if !ok {
			return nil, nil
		}
		l.Data = slices.Clone(l.Data)
		return &l, nil
	})
}

// LabelParts returns the kept label parts, as PostgreSQL does.
func (r *Repository) LabelParts(_ context.Context, id string) (domain.LabelParts, error) {
	p, err := memrepo.Get(&r.book, "LabelParts", id, func(id string) (*domain.LabelParts, error) {
		p := r.parts[id]
		return &domain.LabelParts{Format: p.Format, Parts: clonedParts(p.Parts)}, nil
	})
	if err != nil {
		return domain.LabelParts{}, err
	}
	if len(p.Parts) == 0 {
		return domain.LabelParts{}, nil
	}
	return *p, nil
}

func clonedParts(parts [][]byte) [][]byte {
	if len(parts) == 0 {
		return nil
	}
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = slices.Clone(p)
	}
	return out
}

// states returns every stored shipment's state, oldest first.
func (r *Repository) states() ([]domain.Stored, error) {
	r.book.Lock()
	defer r.book.Unlock()
	ids := make([]string, 0, len(r.rows))
	for id := range r.rows {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return r.rows[a].seq - r.rows[b].seq })
	out := make([]domain.Stored, len(ids))
	for i, id := range ids {
		sh, err := r.load(id)
		if err != nil {
			return nil, err
		}
		out[i] = sh.Stored()
	}
	return out, nil
}
