package command

import (
	"context"
	"log/slog"
	"sync"

	"shipd/modules/tracking/domain"
)

// outcomeLog records the outcomes of scheduled checks in group commits. The
// first check to finish writes every queued outcome, batch after batch,
// until none is left; the others queue theirs and return at once, so their
// worker slot takes the next parcel instead of waiting for a commit. Only
// when more than maxQueuedOutcomes wait does a check wait for its commit,
// which bounds what a crash can lose: an outcome not yet written leaves its
// parcel leased, and when the lease runs out the parcel is checked again,
// as after any crash mid-check. A write that fails is logged and its
// parcels given back here, once for all the checks in it.
type outcomeLog struct {
	repo  domain.Repository
	queue CheckQueue

	mu      sync.Mutex // guards waiting and writing
	waiting []*queuedOutcome
	writing bool // a check is writing batches
}

// queuedOutcome is one check's outcome waiting to be written.
type queuedOutcome struct {
	change domain.Change
	done   chan struct{} // closed once written or given back
}

// maxOutcomeBatch bounds one group commit (its transaction holds the row
// locks of that many parcels); maxQueuedOutcomes bounds the checks made but
// not yet written.
const (
	maxOutcomeBatch   = 256
	maxQueuedOutcomes = 1024
)

func (l *outcomeLog) record(ctx context.Context, c domain.Change) {
	o := &queuedOutcome{change: c, done: make(chan struct{})}
	l.mu.Lock()
	l.waiting = append(l.waiting, o)
	if l.writing {
		full := len(l.waiting) > maxQueuedOutcomes
		l.mu.Unlock()
		if full {
			<-o.done
		}
		return
	}
	l.writing = true
	for {
		batch := l.waiting[:min(len(l.waiting), maxOutcomeBatch)]
		l.waiting = l.waiting[len(batch):]
		l.mu.Unlock()
		// Outcomes of other checks are in the batch: shutting down must
		// not cancel their write.
		l.write(context.WithoutCancel(ctx), batch)
		l.mu.Lock()
		if len(l.waiting) == 0 {
			l.writing = false
			l.mu.Unlock()
			return
		}
	}
}

// write records a batch in one transaction. When that fails, each outcome
// is tried alone, so one the database refuses (a carrier text PostgreSQL
// cannot store, say) fails only its own parcel. A parcel whose outcome
// could not be written is given back, to be checked again at the next poll
// rather than when its lease runs out.
func (l *outcomeLog) write(ctx context.Context, batch []*queuedOutcome) {
	changes := make([]domain.Change, len(batch))
	for i, o := range batch {
		changes[i] = o.change
	}
	err := l.repo.UpdateAll(ctx, changes)
	if err == nil || len(batch) == 1 {
		l.finish(ctx, batch, err)
		return
	}
	slog.WarnContext(ctx, "recording a batch of tracking checks failed; recording them one by one", "checks", len(batch), "err", err)
	for _, o := range batch {
		l.finish(ctx, []*queuedOutcome{o}, l.repo.UpdateAll(ctx, []domain.Change{o.change}))
	}
}

func (l *outcomeLog) finish(ctx context.Context, batch []*queuedOutcome, err error) {
	if err != nil {
		ids := make([]string, len(batch))
		for i, o := range batch {
			ids[i] = o.change.ID
		}
		slog.ErrorContext(ctx, "recording tracking checks; the parcels are checked again", "tracking_parcel_ids", ids, "err", err)
		if err := l.queue.Release(ctx, ids); err != nil {
			slog.WarnContext(ctx, "giving tracking checks back; they are made again when their leases run out", "tracking_parcel_ids", ids, "err", err)
		}
	}
	for _, o := range batch {
		close(o.done)
	}
}
