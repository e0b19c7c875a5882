// Package memory is the tracking module's driven side in memory: the
// repository, the check queue and the list read model, for tests of the app
// layer that need no database (the channels facade is channelstest's). Each
// keeps the contract its PostgreSQL counterpart keeps (not found as
// fault.NotFound, a number tracked twice through a channel as a validation
// fault (passed over by AddAll), Update, UpdateAll and AddAll applying
// their changes as one, a recorded check releasing its lease); what only
// SQL can do (row locks, the outbox) is not modelled.
package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"shipd/modules/tracking/domain"
	"shipd/platform/fault"
	"shipd/platform/memrepo"
)

// Repository keeps tracking parcels in memory as the PostgreSQL repository
// keeps them: each one's state as JSON, so a state that does not survive
// the round trip fails here as it would there, and its status updates
// beside it, one per carrier event (fingerprint).
type Repository struct {
	book    memrepo.Book[domain.Event]
	rows    map[string]*row
	numbers map[number]string // the parcels' unique key: a number per account and channel
}

type number struct{ account, channel, trackingNumber string }

func numberOf(st domain.Stored) number { return number{st.AccountID, st.ChannelID, st.TrackingNumber} }

type row struct {
	state      []byte
	updates    []domain.StatusUpdate // by time, then id, as loaded
	nextCheck  *time.Time            // the column the check queue reads
	leaseUntil *time.Time
}

// NewRepository returns an empty repository.
func NewRepository() *Repository {
	return &Repository{rows: map[string]*row{}, numbers: map[number]string{}}
}

var _ domain.Repository = (*Repository)(nil)

// Interfere makes the repository fail as a database might: before each call
// f is asked with the operation ("Add", "AddAll", "Get", "GetStored",
// "TrackedThrough", "Update", "UpdateAll", "Delete") and the ids of the
// parcels it touches (the channel's id for TrackedThrough); an error it
// returns is the call's answer and nothing changes. nil stops interfering.
func (r *Repository) Interfere(f func(op string, ids []string) error) { r.book.InterfereAll(f) }

// Published returns every event published so far, in order.
func (r *Repository) Published() []domain.Event { return r.book.Published() }

// Add inserts the parcel and publishes events; a number the account
// already tracks through the channel is refused on tracking_number.
func (r *Repository) Add(_ context.Context, p *domain.Parcel, events ...domain.Event) error {
	st := p.Stored()
	return memrepo.Add(&r.book, st.ID, func() error {
		tracking, err := r.insert(st)
		if tracking != "" {
			return fault.Field("tracking_number", "is already tracked through this shipping channel as "+tracking)
		}
		return err
	}, events)
}

// AddAll inserts the run's parcels in order, passing over (and returning)
// each whose number is tracked already, an earlier one of the run's
// included, and publishes the events of those it made; all or none.
func (r *Repository) AddAll(_ context.Context, additions []domain.Addition) ([]*domain.Parcel, error) {
	r.book.Lock()
	defer r.book.Unlock()
	ids := make([]string, len(additions))
	for i, a := range additions {
		ids[i] = a.Parcel.ID()
	}
	if err := r.book.Interfered("AddAll", ids...); err != nil {
		return nil, err
	}
	rows, numbers := maps.Clone(r.rows), maps.Clone(r.numbers)
	var kept []*domain.Parcel
	var events []domain.Event
	for _, a := range additions {
		tracking, err := r.insert(a.Parcel.Stored())
		if err != nil {
			r.rows, r.numbers = rows, numbers // none of the run is kept
			return nil, err
		}
		if tracking != "" {
			kept = append(kept, a.Parcel)
			continue
		}
		events = append(events, a.Events...)
	}
	r.book.Publish(events...)
	return kept, nil
}

// insert stores a new parcel unless the account tracks its number through
// the channel already: then it stores nothing and names the parcel that
// does. The caller holds the lock.
func (r *Repository) insert(st domain.Stored) (tracking string, err error) {
	if _, ok := r.rows[st.ID]; ok {
		// The primary key's violation: an error, not a fault.
		return "", fmt.Errorf("inserting tracking parcel: duplicate key %s", st.ID)
	}
	if id, ok := r.numbers[numberOf(st)]; ok {
		return id, nil
	}
	rw := &row{}
	if err := rw.save(st); err != nil {
		return "", err
	}
	r.rows[st.ID] = rw
	r.numbers[numberOf(st)] = st.ID
	return "", nil
}

func decode(id string, rw *row) (domain.Stored, error) {
	var st domain.Stored
	if err := json.Unmarshal(rw.state, &st); err != nil {
		return st, fmt.Errorf("tracking parcel %s state: %w", id, err)
	}
	return st, nil
}

func (rw *row) save(st domain.Stored) error {
	state, err := json.Marshal(st)
	if err != nil {
		return err
	}
	rw.state, rw.nextCheck = state, st.NextCheckAt
	return nil
}

// Get loads one parcel with its status updates.
func (r *Repository) Get(_ context.Context, id string) (*domain.Parcel, error) {
	return memrepo.Get(&r.book, "Get", id, r.load)
}

func (r *Repository) load(id string) (*domain.Parcel, error) {
	rw, ok := r.rows[id]
	if !ok {
		return nil, fault.NotFound("Tracking parcel")
	}
	st, err := decode(id, rw)
	if err != nil {
		return nil, err
	}
	return domain.Restore(st, slices.Clone(rw.updates)), nil
}

// GetStored loads one parcel's state alone.
func (r *Repository) GetStored(_ context.Context, id string) (domain.Stored, error) {
	return memrepo.Get(&r.book, "GetStored", id, func(id string) (domain.Stored, error) {
		rw, ok := r.rows[id]
		if !ok {
			return domain.Stored{}, fault.NotFound("Tracking parcel")
		}
		return decode(id, rw)
	})
}

// TrackedThrough lists, by id, the account's parcels of the channel whose
// checks go on.
func (r *Repository) TrackedThrough(_ context.Context, accountID, channelID string) ([]string, error) {
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("TrackedThrough", channelID); err != nil {
		return nil, err
	}
	var ids []string
	for id, rw := range r.rows {
		st, err := decode(id, rw)
		if err != nil {
			return nil, err
		}
		if st.AccountID == accountID && st.ChannelID == channelID && rw.nextCheck != nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Update lets fn change the parcel, then saves it with its new status
// updates and releases its check lease; when fn fails nothing changes.
func (r *Repository) Update(_ context.Context, id string, fn func(p *domain.Parcel) ([]domain.Event, error)) (*domain.Parcel, error) {
	return memrepo.Update(&r.book, id, r.load, fn, func(p *domain.Parcel, _ []domain.Event) error { return r.store(p) })
}

// store saves a loaded parcel: its state, its new status updates (one per
// fingerprint, as the table's unique key keeps them) and no lease.
func (r *Repository) store(p *domain.Parcel) error {
	rw := r.rows[p.ID()]
	next := &row{updates: slices.Clone(rw.updates)}
	if err := next.save(p.Stored()); err != nil {
		return err
	}
	for _, u := range p.TakeAdded() {
		if !slices.ContainsFunc(next.updates, func(known domain.StatusUpdate) bool { return known.Fingerprint == u.Fingerprint }) {
			next.updates = append(next.updates, u)
		}
	}
	slices.SortStableFunc(next.updates, func(a, b domain.StatusUpdate) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID))
	})
	r.rows[p.ID()] = next
	return nil
}

// UpdateAll applies changes in the order given, all or none; a parcel that
// no longer exists is skipped.
func (r *Repository) UpdateAll(_ context.Context, changes []domain.Change) error {
	r.book.Lock()
	defer r.book.Unlock()
	ids := make([]string, 0, len(changes))
	for _, c := range changes {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if err := r.book.Interfered("UpdateAll", ids...); err != nil {
		return err
	}
	parcels := map[string]*domain.Parcel{}
	for _, id := range ids {
		p, err := r.load(id)
		if fault.Is(err, fault.KindNotFound) {
			continue // gone since: nothing to record
		}
		if err != nil {
			return err
		}
		parcels[id] = p
	}
	var events []domain.Event
	for _, c := range changes {
		if p, ok := parcels[c.ID]; ok {
			events = append(events, c.Apply(p)...)
		}
	}
	saved := make(map[string]*row, len(parcels))
	for id, rw := range r.rows {
		saved[id] = rw
	}
	for _, p := range parcels {
		if err := r.store(p); err != nil {
			r.rows = saved // none of the batch is kept
			return err
		}
	}
	r.book.Publish(events...)
	return nil
}

// Delete lets fn veto, then deletes the parcel with its status updates.
func (r *Repository) Delete(_ context.Context, id string, fn func(p *domain.Parcel) ([]domain.Event, error)) error {
	return memrepo.Delete(&r.book, id, r.load, fn, func(p *domain.Parcel) {
		delete(r.rows, id)
		delete(r.numbers, numberOf(p.Stored()))
	})
}

// states returns every stored parcel's state.
func (r *Repository) states() ([]domain.Stored, error) {
	r.book.Lock()
	defer r.book.Unlock()
	out := make([]domain.Stored, 0, len(r.rows))
	for id, rw := range r.rows {
		st, err := decode(id, rw)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
