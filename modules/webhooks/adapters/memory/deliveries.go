package memory

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
)

// FanOut stores each event of the run in turn, as if fanned out one after
// the other: its body once and one delivery, due now, for each active
// subscription of the account that takes its type, by subscription id. An
// event seen before, in the run or earlier, adds nothing: its body is
// stored already. A run that stored any signals once.
func (s *Store) FanOut(_ context.Context, run []command.OutboundEvent, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range run {
		if err := s.interfered("FanOut", e.ID); err != nil {
			return 0, err
		}
	}
	var n int64
	for _, e := range run {
		n += s.fanOut(e, now)
	}
	if n > 0 {
		s.signals++
	}
	return n, nil
}

func (s *Store) fanOut(e command.OutboundEvent, now time.Time) int64 {
	var takers []domain.Stored
	for _, sub := range s.subscriptions {
		st := sub.stored
		if sub.deletedAt == nil && st.Active && st.AccountID == e.AccountID && slices.Contains(st.Events, e.Type) {
			takers = append(takers, st)
		}
	}
	if _, seen := s.bodies[e.ID]; seen || len(takers) == 0 {
		return 0
	}
	s.bodies[e.ID] = body{data: slices.Clone(e.Body), createdAt: now}
	slices.SortFunc(takers, func(a, b domain.Stored) int { return cmp.Compare(a.ID, b.ID) })
	var n int64
	for _, st := range takers {
		if s.find(e.ID, st.ID) != nil {
			continue // (event, subscription) is unique
		}
		s.lastID++
		due := now
		s.deliveries[s.lastID] = &delivery{createdAt: now, d: domain.Delivery{ID: s.lastID, SubscriptionID: st.ID, AccountID: st.AccountID,
			EventID: e.ID, EventType: e.Type, ResourceID: e.ResourceID, NextAttemptAt: &due, Outcome: domain.OutcomePending}}
		n++
	}
	return n
}

func (s *Store) find(eventID, subscriptionID string) *delivery {
	for _, d := range s.deliveries {
		if d.d.EventID == eventID && d.d.SubscriptionID == subscriptionID {
			return d
		}
	}
	return nil
}

// Claim leases up to limit due deliveries, the longest overdue first. A
// first attempt waits while an earlier delivery of the same subscription
// and resource has no attempt recorded and is not finished.
func (s *Store) Claim(_ context.Context, limit int, lease time.Duration) ([]command.DueDelivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Claim", ""); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	until := now.Add(lease)
	var due []*delivery
	for _, d := range s.deliveries {
		next := d.d.NextAttemptAt
		if next == nil || next.After(now) || d.leaseUntil != nil && !d.leaseUntil.Before(now) || s.waits(d) {
			continue
		}
		due = append(due, d)
	}
	slices.SortFunc(due, func(a, b *delivery) int {
		if c := a.d.NextAttemptAt.Compare(*b.d.NextAttemptAt); c != 0 {
			return c
		}
		return cmp.Compare(a.d.ID, b.d.ID)
	})
	var out []command.DueDelivery
	for _, d := range window(due, 0, limit) {
		lease := until
		d.leaseUntil = &lease
		sub, ok := s.subscriptions[d.d.SubscriptionID]
		b, hasBody := s.bodies[d.d.EventID]
		if !ok || !hasBody {
			continue // the claim's joins find neither
		}
		claimed := s.copyOf(d)
		claimed.Body = slices.Clone(b.data)
		out = append(out, command.DueDelivery{Delivery: claimed, URL: sub.stored.URL, Secret: sub.stored.Secret,
			SubscriptionActive: sub.stored.Active && sub.deletedAt == nil, LeaseUntil: until})
	}
	return out, nil
}

// waits reports whether d is a first attempt that must wait for an
// earlier event of its resource to the same subscription.
func (s *Store) waits(d *delivery) bool {
	if d.d.Attempts > 0 || d.d.ResourceID == "" {
		return false
	}
	for _, e := range s.deliveries {
		if e.d.SubscriptionID == d.d.SubscriptionID && e.d.ResourceID == d.d.ResourceID && e.d.ID < d.d.ID &&
			e.d.Attempts == 0 && e.d.NextAttemptAt != nil {
			return true
		}
	}
	return false
}

// Release gives back the leases of claims never attempted; a delivery
// leased again since is left alone.
func (s *Store) Release(_ context.Context, claims []command.DueDelivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Release", ""); err != nil {
		return err
	}
	for _, c := range claims {
		if d, ok := s.deliveries[c.ID]; ok && d.leaseUntil != nil && d.leaseUntil.Equal(c.LeaseUntil) {
			d.leaseUntil = nil
		}
	}
	return nil
}

// Due counts the deliveries whose attempt is due now, claimed or not.
func (s *Store) Due(context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Due", ""); err != nil {
		return 0, err
	}
	now := s.clock.Now()
	n := 0
	for _, d := range s.deliveries {
		if d.d.NextAttemptAt != nil && !d.d.NextAttemptAt.After(now) {
			n++
		}
	}
	return n, nil
}

// Record applies the attempt to the delivery as claimed, its subscription
// active, when the stored delivery is still pending with the claimed
// attempts; otherwise to the delivery as stored, with whether its
// subscription is active now (or, when it is gone, to the claimed one
// finished, with the subscription inactive: the attempt is logged and
// schedules nothing). It writes at once, where PostgreSQL's group commit
// may return first.
func (s *Store) Record(_ context.Context, claimed domain.Delivery, fn func(d *domain.Delivery, subscriptionActive bool) (domain.LogEntry, bool)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Record", strconv.FormatInt(claimed.ID, 10)); err != nil {
		return err
	}
	stored, ok := s.deliveries[claimed.ID]
	switch {
	case ok && stored.d.Outcome == domain.OutcomePending && stored.d.Attempts == claimed.Attempts:
		d := claimed
		entry, keep := fn(&d, true)
		s.write(stored, d, entry, keep)
	case !ok:
		gone := claimed
		gone.NextAttemptAt = nil
		if entry, keep := fn(&gone, false); keep {
			s.log(entry)
		}
	default:
		d := s.copyOf(stored)
		sub, found := s.subscriptions[d.SubscriptionID]
		entry, keep := fn(&d, found && sub.stored.Active && sub.deletedAt == nil)
		if stored.d.Outcome == domain.OutcomePending {
			s.write(stored, d, entry, keep)
		} else if keep {
			s.log(entry)
		}
	}
	if claimed.Attempts == 0 && claimed.ResourceID != "" {
		select {
		case s.firstAttempts <- struct{}{}:
		default: // a signal is already waiting
		}
	}
	return nil
}

// write saves d over stored, deleting it when it succeeded, and logs the
// entry when it is kept.
func (s *Store) write(stored *delivery, d domain.Delivery, entry domain.LogEntry, keep bool) {
	if d.Outcome == domain.OutcomeSuccess {
		delete(s.deliveries, d.ID)
	} else {
		d.Body = nil
		d.FirstFailedAt, d.NextAttemptAt = copyTime(d.FirstFailedAt), copyTime(d.NextAttemptAt)
		stored.d = d
		stored.leaseUntil = nil
		if keep && (stored.lastAttemptAt == nil || entry.CreatedAt.After(*stored.lastAttemptAt)) {
			at := entry.CreatedAt
			stored.lastAttemptAt = &at
		}
	}
	if keep {
		s.log(entry)
	}
}

func (s *Store) log(e domain.LogEntry) {
	e.RequestHeaders = slices.Clone(e.RequestHeaders)
	s.logs = append(s.logs, e)
}

// FirstAttemptsRecorded signals when a first attempt of a delivery with a
// resource was recorded.
func (s *Store) FirstAttemptsRecorded() <-chan struct{} { return s.firstAttempts }

// Purge deletes logs made before before, finished deliveries whose last
// attempt (or creation, without one) came before it, the bodies of events
// older than it that no delivery and no log is left of, and subscriptions
// deleted before it. It returns how many went.
func (s *Store) Purge(_ context.Context, before time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("Purge", ""); err != nil {
		return 0, err
	}
	var n int64
	kept := s.logs[:0]
	for _, l := range s.logs {
		if l.CreatedAt.Before(before) {
			n++
			continue
		}
		kept = append(kept, l)
	}
	s.logs = kept
	for id, d := range s.deliveries {
		last := d.createdAt
		if d.lastAttemptAt != nil {
			last = *d.lastAttemptAt
		}
		if d.d.NextAttemptAt == nil && last.Before(before) {
			delete(s.deliveries, id)
			n++
		}
	}
	for eventID, b := range s.bodies {
		if b.createdAt.Before(before) && !s.eventInUse(eventID) {
			delete(s.bodies, eventID)
			n++
		}
	}
	for id, sub := range s.subscriptions {
		if sub.deletedAt != nil && sub.deletedAt.Before(before) {
			delete(s.subscriptions, id)
			n++
		}
	}
	return n, nil
}

func (s *Store) eventInUse(eventID string) bool {
	for _, d := range s.deliveries {
		if d.d.EventID == eventID {
			return true
		}
	}
	return slices.ContainsFunc(s.logs, func(l domain.LogEntry) bool { return l.EventID == eventID })
}

// Deliveries returns every delivery kept, by id, each with its body: what
// a test may look at after the use cases ran.
func (s *Store) Deliveries() []domain.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]domain.Delivery, 0, len(s.deliveries))
	for _, d := range s.deliveries {
		c := s.copyOf(d)
		c.Body = slices.Clone(s.bodies[c.EventID].data)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b domain.Delivery) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// copyOf is the stored delivery as a value of the caller's own.
func (s *Store) copyOf(d *delivery) domain.Delivery {
	c := d.d
	c.FirstFailedAt = copyTime(c.FirstFailedAt)
	c.NextAttemptAt = copyTime(c.NextAttemptAt)
	return c
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
