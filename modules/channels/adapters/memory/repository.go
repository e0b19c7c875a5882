// Package memory is the channels module's driven side in memory: the
// repository of the write model and the list read model, for tests of the
// app layer that need no database. Each keeps the contract its PostgreSQL
// counterpart keeps (a missing channel is fault.NotFound, a name taken in
// the account is a fault on "name", Update applies fn as one change and
// saves nothing when fn fails or names no event, the events are published
// with the change that caused them, and a deletion's stop of its parcels'
// tracking is sent with it; repositorytest holds both to it); what only SQL
// does (row locks, the outbox's delivery, sealing secrets) is not modelled.
package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"shipd/modules/channels/domain"
	"shipd/platform/fault"
	"shipd/platform/memrepo"
)

// errNameTaken is the PostgreSQL repository's answer to a unique violation
// of (account_id, name).
var errNameTaken = fault.Field("name", "has already been taken by another channel of this account")

// Repository keeps channels in memory as the PostgreSQL repository keeps
// them. Settings are kept as JSON, so a value read back is what a database
// round trip gives (numbers as float64, maps of their own).
type Repository struct {
	book    memrepo.Book[domain.Event]
	rows    map[string]row
	stopped []StoppedTracking
}

// StoppedTracking is a channel whose parcels' tracking a change asked to
// stop.
type StoppedTracking struct{ AccountID, ChannelID string }

type row struct {
	stored   domain.Stored // Settings nil: they are in settings
	settings []byte
}

// NewRepository returns an empty repository.
func NewRepository() *Repository { return &Repository{rows: map[string]row{}} }

var _ domain.Repository = (*Repository)(nil)

// Interfere makes the repository fail as a database might: before each
// call f is asked with the operation ("Add", "Get", "Update" (also of RenewSecrets) or "Delete") and the channel's id; an error it returns is
// the call's answer and nothing changes. nil stops interfering.
func (r *Repository) Interfere(f func(op, id string) error) { r.book.Interfere(f) }

// Published returns every event published so far, in order.
func (r *Repository) Published() []domain.Event { return r.book.Published() }

// TrackingStopped returns the channels whose parcels' tracking a change
// asked to stop (the PostgreSQL repository sends each as
// tracking.stop_tracking_channel), in order.
func (r *Repository) TrackingStopped() []StoppedTracking {
	r.book.Lock()
	defer r.book.Unlock()
	return slices.Clone(r.stopped)
}

// send records what ch's change asked of the tracking module.
func (r *Repository) send(ch *domain.Channel) {
	if ch.TakeTrackingStop() {
		r.stopped = append(r.stopped, StoppedTracking{AccountID: ch.AccountID(), ChannelID: ch.ID()})
	}
}

// Add inserts the channel and publishes events.
func (r *Repository) Add(_ context.Context, ch *domain.Channel, events ...domain.Event) error {
	return memrepo.Add(&r.book, ch.ID(), func() error {
		if _, ok := r.rows[ch.ID()]; ok {
			// The primary key's violation: an error, not a fault.
			return fmt.Errorf("inserting channel: duplicate key %s", ch.ID())
		}
		if err := r.save(ch); err != nil {
			return err
		}
		r.send(ch)
		return nil
	}, events)
}

// Get loads one channel.
func (r *Repository) Get(_ context.Context, id string) (*domain.Channel, error) {
	return memrepo.Get(&r.book, "Get", id, r.load)
}

// Update lets fn change the channel; the change is saved, with the events,
// only when fn succeeds and names at least one event (the PostgreSQL
// repository writes no row for an update that publishes nothing).
func (r *Repository) Update(_ context.Context, id string, fn func(ch *domain.Channel) ([]domain.Event, error)) (*domain.Channel, error) {
	return memrepo.Update(&r.book, id, r.load, fn, func(ch *domain.Channel, events []domain.Event) error {
		if len(events) == 0 {
			return nil
		}
		if err := r.save(ch); err != nil {
			return err
		}
		r.send(ch)
		return nil
	})
}

// RenewSecrets lets fn renew the channel's secrets; they are saved only
// when fn reports a change, and nothing is published.
func (r *Repository) RenewSecrets(_ context.Context, id string, fn func(ch *domain.Channel) (bool, error)) error {
	_, err := memrepo.Update(&r.book, id, r.load, func(ch *domain.Channel) ([]domain.Event, error) {
		renewed, err := fn(ch)
		if err != nil || !renewed {
			return nil, errUnchanged{err}
		}
		return nil, nil
	}, func(ch *domain.Channel, _ []domain.Event) error { return r.save(ch) })
	if u, ok := err.(errUnchanged); ok {
		return u.err
	}
	return err
}

// errUnchanged ends an Update that renewed nothing before it stores.
type errUnchanged struct{ err error }

func (e errUnchanged) Error() string { return fmt.Sprint(e.err) }

// Delete lets fn veto, then deletes the channel and publishes the events.
func (r *Repository) Delete(_ context.Context, id string, fn func(ch *domain.Channel) ([]domain.Event, error)) error {
	return memrepo.Delete(&r.book, id, r.load, fn, func(ch *domain.Channel) {
		delete(r.rows, id)
		r.send(ch)
	})
}

// save stores ch (a new row or over its old one), refusing a name another
// channel of the account has.
func (r *Repository) save(ch *domain.Channel) error {
	st := ch.Stored()
	for id, other := range r.rows {
		if id != st.ID && other.stored.AccountID == st.AccountID && other.stored.Name == st.Name {
			return errNameTaken
		}
	}
	if st.Settings == nil {
		st.Settings = map[string]any{} // as PostgreSQL keeps none: an empty object
	}
	settings, err := json.Marshal(st.Settings)
	if err != nil {
		return fmt.Errorf("channel %s settings: %w", st.ID, err)
	}
	st.Settings = nil
	st.SecretKeys = maps.Clone(st.SecretKeys)
	st.ValidatedAt = copyTime(st.ValidatedAt)
	r.rows[st.ID] = row{stored: st, settings: settings}
	return nil
}

func (r *Repository) load(id string) (*domain.Channel, error) {
	rw, ok := r.rows[id]
	if !ok {
		return nil, fault.NotFound("Shipping channel")
	}
	st := rw.stored
	st.Settings = map[string]any{}
	if err := json.Unmarshal(rw.settings, &st.Settings); err != nil {
		return nil, fmt.Errorf("channel %s settings: %w", id, err)
	}
	st.SecretKeys = maps.Clone(st.SecretKeys)
	if st.SecretKeys == nil {
		st.SecretKeys = map[string]bool{}
	}
	st.ValidatedAt = copyTime(st.ValidatedAt)
	return domain.Restore(st), nil
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
