// Package memory is the webhooks module's driven side in memory: one Store
// is the repository of subscriptions, the subscription list, the delivery
// store and the log reader, as the PostgreSQL adapters are over one
// database, for tests of the app layer that need no database. It keeps
// their contract (a missing subscription is fault.NotFound, a deleted one
// is gone from the API but owns its logs until they expire, pausing or
// deleting cancels pending deliveries, a redelivered event adds nothing, a
// first attempt waits for its resource's earlier events, Record applies an
// attempt to the delivery as stored when it changed since its claim, a
// success deletes its delivery); what only SQL does (row locks, group
// commits, sealing secrets, waking other processes) is not modelled.
package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
)

// Store keeps subscriptions, deliveries, event bodies and attempt logs.
type Store struct {
	clock clock.Clock

	mu            sync.Mutex
	subscriptions map[string]*subscription
	deliveries    map[int64]*delivery
	lastID        int64 // the deliveries' sequence
	bodies        map[string]body
	logs          []domain.LogEntry
	signals       int // fan-out runs that signalled command.DeliveriesDue
	interfere     func(op, id string) error
	firstAttempts chan struct{}
}

type subscription struct {
	stored    domain.Stored
	deletedAt *time.Time
}

type delivery struct {
	d             domain.Delivery // Body empty: it is the event's, in bodies
	leaseUntil    *time.Time
	lastAttemptAt *time.Time
	createdAt     time.Time
}

type body struct {
	data      []byte
	createdAt time.Time
}

// NewStore returns an empty store whose clock says which deliveries are
// due and stamps deletions.
func NewStore(clk clock.Clock) *Store {
	return &Store{clock: clk, subscriptions: map[string]*subscription{}, deliveries: map[int64]*delivery{},
		bodies: map[string]body{}, firstAttempts: make(chan struct{}, 1)}
}

var (
	_ domain.Repository      = (*Store)(nil)
	_ query.SubscriptionList = (*Store)(nil)
	_ query.DeliveryLogs     = (*Store)(nil)
	_ command.Deliveries     = (*Store)(nil)
)

// Interfere makes the store fail as a database might: before each call f
// is asked with the operation (the method's name) and the id it is about
// (a subscription's, an event's, a delivery's as a number, or ""); an
// error it returns is the call's answer and nothing changes. nil stops
// interfering.
func (s *Store) Interfere(f func(op, id string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interfere = f
}

func (s *Store) interfered(op, id string) error {
	if s.interfere == nil {
		return nil
	}
	return s.interfere(op, id)
}

// Add inserts the subscription.
func (s *Store) Add(_ context.Context, sub *domain.Subscription) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Add", sub.ID()); err != nil {
		return err
	}
	if _, ok := s.subscriptions[sub.ID()]; ok {
		return fmt.Errorf("inserting webhook subscription: duplicate key %s", sub.ID())
	}
	s.subscriptions[sub.ID()] = &subscription{stored: sub.Stored()}
	return nil
}

// Get loads a subscription that was not deleted.
func (s *Store) Get(_ context.Context, id string) (*domain.Subscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Get", id); err != nil {
		return nil, err
	}
	return s.load(id)
}

func (s *Store) load(id string) (*domain.Subscription, error) {
	sub, ok := s.subscriptions[id]
	if !ok || sub.deletedAt != nil {
		return nil, fault.NotFound("Webhook subscription")
	}
	st := sub.stored
	st.Events = slices.Clone(st.Events)
	return domain.Restore(st), nil
}

// Update lets fn change the subscription and saves it; one left inactive
// has its pending deliveries cancelled with the change.
func (s *Store) Update(_ context.Context, id string, fn func(sub *domain.Subscription) error) (*domain.Subscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Update", id); err != nil {
		return nil, err
	}
	sub, err := s.load(id)
	if err != nil {
		return nil, err
	}
	if err := fn(sub); err != nil {
		return nil, err
	}
	s.subscriptions[id].stored = sub.Stored()
	if !sub.Active() {
		s.cancelPending(id)
	}
	return sub, nil
}

// Delete lets fn veto, then leaves a tombstone (its logs stay readable)
// and cancels the pending deliveries.
func (s *Store) Delete(_ context.Context, id string, fn func(sub *domain.Subscription) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Delete", id); err != nil {
		return err
	}
	sub, err := s.load(id)
	if err != nil {
		return err
	}
	if err := fn(sub); err != nil {
		return err
	}
	now := s.clock.Now()
	row := s.subscriptions[id]
	row.deletedAt = &now
	row.stored.Active = false
	s.cancelPending(id)
	return nil
}

func (s *Store) cancelPending(subscriptionID string) {
	for _, d := range s.deliveries {
		if d.d.SubscriptionID == subscriptionID && d.d.NextAttemptAt != nil {
			d.d.NextAttemptAt = nil
			d.d.Outcome = domain.OutcomeCancelled
		}
	}
}

// ListSubscriptions returns one page of the account's subscriptions,
// newest first (then by id, highest first), secrets masked.
func (s *Store) ListSubscriptions(_ context.Context, q query.ListSubscriptions) (query.SubscriptionPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("ListSubscriptions", ""); err != nil {
		return query.SubscriptionPage{}, err
	}
	var matches []domain.Stored
	for _, sub := range s.subscriptions {
		if sub.deletedAt == nil && sub.stored.AccountID == q.AccountID {
			matches = append(matches, sub.stored)
		}
	}
	slices.SortFunc(matches, func(a, b domain.Stored) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	page := query.SubscriptionPage{Total: len(matches), Records: []contract.Subscription{}}
	for _, st := range window(matches, q.Offset, q.Limit) {
		page.Records = append(page.Records, contract.Subscription{ID: st.ID, Name: st.Name, URL: st.URL, Events: slices.Clone(st.Events),
			Secret: contract.MaskedSecret, Active: st.Active, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt})
	}
	return page, nil
}

// window is the page of items at offset, at most limit long (SQL's OFFSET
// and LIMIT).
func window[T any](items []T, offset, limit int) []T {
	start := min(max(offset, 0), len(items))
	return items[start:min(start+max(limit, 0), len(items))]
}

// Signals counts the fan-out runs that stored deliveries and so signalled
// command.DeliveriesDue to the delivery workers (once a run).
func (s *Store) Signals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signals
}
