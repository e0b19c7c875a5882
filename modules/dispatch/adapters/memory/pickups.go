package memory

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/fault"
	"shipd/platform/memrepo"
)

// Pickups keeps pickups in memory as the PostgreSQL repository keeps them:
// each one's state, and which pickup holds each shipment (a cancelled one
// holds none).
type Pickups struct {
	book memrepo.Book[domain.Event]
	rows map[string]pickup.Stored
	held map[string]string // shipment id → pickup id
}

// NewPickups returns an empty repository.
func NewPickups() *Pickups {
	return &Pickups{rows: map[string]pickup.Stored{}, held: map[string]string{}}
}

var _ pickup.Repository = (*Pickups)(nil)

// Interfere makes the repository fail as a database might: before each
// call f is asked with the operation ("Add", "Get", "Update", "Record",
// "Forget" or "Stale") and the pickup's id ("" for Stale); an error it
// returns is the call's answer and nothing changes. nil stops interfering.
func (r *Pickups) Interfere(f func(op, id string) error) { r.book.Interfere(f) }

// Published returns every event published so far, in order.
func (r *Pickups) Published() []domain.Event { return r.book.Published() }

// Add stores a pickup being ordered, refusing shipments another active
// pickup holds (each on its index, before anything else), then a second
// active pickup of the channel's date; a taken id is the primary key's
// error, no fault.
func (r *Pickups) Add(_ context.Context, p *pickup.Pickup) error {
	s := p.Stored()
	return memrepo.Add(&r.book, s.ID, func() error {
		errs := fault.FieldErrors{}
		for i, id := range s.ShipmentIDs {
			if other, ok := r.held[id]; ok {
				errs.Add("shipment_ids."+strconv.Itoa(i), "is on pickup "+other+" already (cancel that one first)")
			}
		}
		if err := errs.Err(); err != nil {
			return err
		}
		if _, taken := r.rows[s.ID]; taken {
			return fmt.Errorf("inserting pickup: duplicate key %s", s.ID)
		}
		for _, other := range r.rows {
			if other.ChannelID == s.ChannelID && other.Date == s.Date && other.Status.Active() {
				return fault.Field("date", "the channel has a pickup on "+s.Date+" already ("+other.ID+"); cancel it to order another")
			}
		}
		r.store(s)
		for _, id := range s.ShipmentIDs {
			r.held[id] = s.ID
		}
		return nil
	}, nil)
}

// Get loads one pickup.
func (r *Pickups) Get(_ context.Context, id string) (*pickup.Pickup, error) {
	return memrepo.Get(&r.book, "Get", id, r.load)
}

// Update lets fn change the pickup and saves it with the events fn names,
// or nothing when fn fails; a cancelled pickup lets its shipments and its
// date go.
func (r *Pickups) Update(_ context.Context, id string, fn func(p *pickup.Pickup) ([]domain.Event, error)) (*pickup.Pickup, error) {
	return memrepo.Update(&r.book, id, r.load, fn, func(p *pickup.Pickup, _ []domain.Event) error {
		r.save(p)
		return nil
	})
}

// Record is Update with no event (PostgreSQL commits it in a transaction
// of its own, which memory has no need of).
func (r *Pickups) Record(_ context.Context, id string, fn func(p *pickup.Pickup) error) error {
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("Record", id); err != nil {
		return err
	}
	p, err := r.load(id)
	if err != nil {
		return err
	}
	if err := fn(p); err != nil {
		return err
	}
	r.save(p)
	return nil
}

// Forget removes a pickup being ordered and lets its shipments go; a
// pickup in any other status, or none, is left as it is.
func (r *Pickups) Forget(_ context.Context, id string) error {
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("Forget", id); err != nil {
		return err
	}
	if s, ok := r.rows[id]; !ok || s.Status != pickup.StatusOrdering {
		return nil
	}
	delete(r.rows, id)
	r.release(id)
	return nil
}

// Stale are the pickups being ordered since before (last changed earlier),
// the longest waiting first, at most limit.
func (r *Pickups) Stale(_ context.Context, before time.Time, limit int) ([]string, error) {
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("Stale", ""); err != nil {
		return nil, err
	}
	return longestWaiting(r.rows, before, limit, func(s pickup.Stored) (time.Time, bool) {
		return s.UpdatedAt, s.Status == pickup.StatusOrdering
	}), nil
}

// save stores p's state over its old one; a cancelled pickup holds no
// shipments.
func (r *Pickups) save(p *pickup.Pickup) {
	s := p.Stored()
	r.store(s)
	if !s.Status.Active() {
		r.release(s.ID)
	}
}

// store keeps s as a round trip through its columns leaves it.
func (r *Pickups) store(s pickup.Stored) {
	s.ShipmentIDs = ids(s.ShipmentIDs)
	s.CreatedAt, s.UpdatedAt, s.CancelledAt = stamp(s.CreatedAt), stamp(s.UpdatedAt), stampPtr(s.CancelledAt)
	r.rows[s.ID] = s
}

// release lets the shipments pickup holds go.
func (r *Pickups) release(pickupID string) {
	for shipment, holder := range r.held {
		if holder == pickupID {
			delete(r.held, shipment)
		}
	}
}

func (r *Pickups) load(id string) (*pickup.Pickup, error) {
	s, ok := r.rows[id]
	if !ok {
		return nil, fault.NotFound("Pickup")
	}
	s.ShipmentIDs = ids(s.ShipmentIDs)
	s.CancelledAt = stampPtr(s.CancelledAt)
	return pickup.Restore(s), nil
}
