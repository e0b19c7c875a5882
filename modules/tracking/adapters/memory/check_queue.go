package memory

import (
	"context"
	"slices"
	"time"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
)

// CheckQueue hands out a Repository's parcels whose check is due, each
// leased as the PostgreSQL queue leases it: until the check is recorded
// (Update, UpdateAll), given back (Release) or the lease runs out.
type CheckQueue struct {
	repo  *Repository
	clock clock.Clock
}

// NewCheckQueue works on repo's parcels; clk says when a check is due and
// when a lease ends.
func NewCheckQueue(repo *Repository, clk clock.Clock) *CheckQueue {
	return &CheckQueue{repo: repo, clock: clk}
}

var _ command.CheckQueue = (*CheckQueue)(nil)

// Claim leases up to limit due parcels, the longest overdue first.
func (q *CheckQueue) Claim(_ context.Context, limit int, lease time.Duration) ([]domain.Stored, error) {
	r := q.repo
	r.book.Lock()
	defer r.book.Unlock()
	now := q.clock.Now()
	var due []string
	for id, rw := range r.rows {
		if rw.nextCheck != nil && !rw.nextCheck.After(now) && (rw.leaseUntil == nil || rw.leaseUntil.Before(now)) {
			due = append(due, id)
		}
	}
	if err := r.book.Interfered("Claim", due...); err != nil {
		return nil, err
	}
	slices.SortFunc(due, func(a, b string) int { return r.rows[a].nextCheck.Compare(*r.rows[b].nextCheck) })
	due = due[:min(len(due), limit)]
	until := now.Add(lease)
	states := make([]domain.Stored, 0, len(due))
	for _, id := range due {
		st, err := decode(id, r.rows[id])
		if err != nil {
			return nil, err
		}
		r.rows[id].leaseUntil = &until
		states = append(states, st)
	}
	return states, nil
}

// Release gives back the leases of parcels never checked.
func (q *CheckQueue) Release(_ context.Context, ids []string) error {
	r := q.repo
	r.book.Lock()
	defer r.book.Unlock()
	if err := r.book.Interfered("Release", ids...); err != nil {
		return err
	}
	for _, id := range ids {
		if rw, ok := r.rows[id]; ok {
			rw.leaseUntil = nil
		}
	}
	return nil
}

// Due counts the parcels whose check is due now, claimed or not.
func (q *CheckQueue) Due(context.Context) (int, error) {
	r := q.repo
	r.book.Lock()
	defer r.book.Unlock()
	now := q.clock.Now()
	n := 0
	for _, rw := range r.rows {
		if rw.nextCheck != nil && !rw.nextCheck.After(now) {
			n++
		}
	}
	return n, nil
}

// Leased reports whether the parcel's check is leased (claimed, and
// neither recorded nor given back since).
func (q *CheckQueue) Leased(id string) bool {
	r := q.repo
	r.book.Lock()
	defer r.book.Unlock()
	rw, ok := r.rows[id]
	return ok && rw.leaseUntil != nil
}

// ScheduledBeyond lists the tracked parcels of provider whose next check is
// later than now plus their check delay divided by scale, but those leased.
func (q *CheckQueue) ScheduledBeyond(_ context.Context, provider string, scale float64) ([]string, error) {
	r := q.repo
	r.book.Lock()
	defer r.book.Unlock()
	now := q.clock.Now()
	var ids []string
	for id, rw := range r.rows {
		st, err := decode(id, rw)
		if err != nil {
			return nil, err
		}
		latest := now.Add(time.Duration(float64(time.Duration(st.CheckDelayHours)*time.Hour) / scale))
		leased := rw.leaseUntil != nil && !rw.leaseUntil.Before(now)
		if rw.nextCheck != nil && st.Provider == provider && rw.nextCheck.After(latest) && !leased {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
