package projection

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// Stage is what a rebuild is doing.
type Stage string

// The stages, in order; a rebuild may go back to CatchingUp when the swap
// could not get its locks in time.
const (
	Replaying  Stage = "replaying"   // the events committed before it started
	Indexing   Stage = "indexing"    // the shadow tables' other indexes
	CatchingUp Stage = "catching up" // the events committed since
	Swapping   Stage = "swapping"    // live writes wait; readers go on
)

// Progress hears how a rebuild advances: done of total events applied so
// far. total grows while the rebuild catches up.
type Progress func(stage Stage, done, total int64)

// Report says what a rebuild did.
type Report struct {
	Name     string
	Events   int64         // events applied, catch-up included
	CaughtUp int64         // events committed while the rebuild ran
	Locked   time.Duration // how long live writes of the read model waited for the swap
	Took     time.Duration
}

// Options tune a rebuild; zero fields get defaults.
type Options struct {
	// BatchSize is how many events are read at once and written as one
	// batch, in a transaction of a few statements: while it is open, no
	// event subscriber of the cluster sees events committed after it began
	// (they read below the oldest running transaction).
	BatchSize int
	// LockTimeout bounds the swap's wait for the live tables; the swap is
	// then tried again after another catch-up. The default stays under
	// PostgreSQL's deadlock_timeout (1 s): a reader that locked one of the
	// tables and queued behind the swap for another would otherwise be the
	// one a deadlock check cancels (a 500 to a list request); this way the
	// swap gives way first.
	LockTimeout time.Duration
	// SwapAttempts is how many times the swap is tried.
	SwapAttempts int

	// beforeSwapCommit runs in the swap's transaction just before it
	// commits; tests hold the swap there (export_test.go).
	beforeSwapCommit func()
}

func (o Options) withDefaults() Options {
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 500 * time.Millisecond
	}
	if o.SwapAttempts <= 0 {
		o.SwapAttempts = 10
	}
	return o
}

// Catch-up rounds run before the swap until one finds at most
// fewFollowingEvents, so the swap's own catch-up, under its lock, has about
// as few; at most maxCatchUpRounds when events keep coming faster than a
// round applies them.
const (
	fewFollowingEvents = 50
	maxCatchUpRounds   = 10
)

// rebuilding is one rebuild's state.
type rebuilding struct {
	db       *sqlx.DB
	p        Projection
	o        Options
	topics   []string // the sources that exist
	shadows  []*shadow
	tables   Tables // the shadows
	progress Progress
	done     int64
	total    int64
}

func rebuild(ctx context.Context, db *sqlx.DB, p Projection, o Options, progress Progress) (Report, error) {
	started := time.Now()
	if progress == nil {
		progress = func(Stage, int64, int64) {}
	}
	sources, err := messaging.ExistingTopics(ctx, db, p.Sources())
	if err != nil {
		return Report{}, err
	}
	r := &rebuilding{db: db, p: p, o: o, topics: sources, progress: progress}
	names := map[string]string{}
	for _, live := range p.Tables {
		s, err := describeShadow(ctx, db, live)
		if err != nil {
			return Report{}, err
		}
		r.shadows = append(r.shadows, s)
		names[live] = s.name
	}
	r.tables = renamed(names)
	report, err := r.run(ctx)
	if err != nil {
		// The live tables are untouched; only the shadows go. Cancelled
		// (Ctrl-C) too, so nothing is left behind.
		for _, s := range r.shadows {
			if dropErr := s.drop(context.WithoutCancel(ctx), db); dropErr != nil {
				err = errors.Join(err, dropErr)
			}
		}
		return Report{}, fmt.Errorf("rebuilding %s: %w", p.Name, err)
	}
	report.Name, report.Took = p.Name, time.Since(started)
	return report, nil
}

func (r *rebuilding) run(ctx context.Context) (Report, error) {
	for _, s := range r.shadows {
		if err := s.create(ctx, r.db); err != nil {
			return Report{}, err
		}
	}
	// The horizon: every event committed before it is replayed, every one
	// after it caught up. Transactions running at this moment fall after.
	horizon, err := messaging.TakeSnapshot(ctx, r.db)
	if err != nil {
		return Report{}, err
	}
	replayed, err := r.applyCommitted(ctx, Replaying, messaging.Window{Upto: horizon})
	if err != nil {
		return Report{}, err
	}
	r.progress(Indexing, r.done, r.total)
	for _, s := range r.shadows {
		if err := s.index(ctx, r.db); err != nil {
			return Report{}, err
		}
	}
	// Catch up outside any lock until a round finds little, so the swap
	// holds its lock only for the last few events.
	for round := 0; ; round++ {
		n, next, err := r.catchUp(ctx, horizon)
		if err != nil {
			return Report{}, err
		}
		horizon = next
		if n <= fewFollowingEvents || round == maxCatchUpRounds {
			break
		}
	}
	for attempt := 1; ; attempt++ {
		done, total := r.done, r.total
		locked, err := r.swap(ctx, horizon)
		if err == nil {
			return Report{Events: r.done, CaughtUp: r.done - replayed, Locked: locked}, nil
		}
		r.done, r.total = done, total // the swap's catch-up was rolled back
		if !isLockContention(err) || attempt == r.o.SwapAttempts {
			return Report{}, err
		}
		if _, horizon, err = r.catchUp(ctx, horizon); err != nil {
			return Report{}, err
		}
	}
}

// catchUp applies the events committed since horizon and returns how many
// and the new horizon.
func (r *rebuilding) catchUp(ctx context.Context, horizon messaging.Snapshot) (int64, messaging.Snapshot, error) {
	next, err := messaging.TakeSnapshot(ctx, r.db)
	if err != nil {
		return 0, horizon, err
	}
	n, err := r.applyCommitted(ctx, CatchingUp, messaging.Window{After: horizon, Upto: next})
	return n, next, err
}

// applyCommitted applies the events in w, each batch in a short transaction
// of its own: a long one would hold back every event subscriber in the
// cluster (ADR 0001).
func (r *rebuilding) applyCommitted(ctx context.Context, stage Stage, w messaging.Window) (int64, error) {
	return r.apply(ctx, stage, r.db, w, func(fn func(*sqlx.Tx) error) error { return postgres.InTx(ctx, r.db, fn) })
}

// apply reads the events in w through q and applies them a batch at a time,
// each batch's writes run by inTx.
func (r *rebuilding) apply(ctx context.Context, stage Stage, q sqlx.QueryerContext, w messaging.Window, inTx func(func(*sqlx.Tx) error) error) (int64, error) {
	n, err := messaging.CountStored(ctx, q, r.topics, w)
	if err != nil {
		return 0, err
	}
	r.total += n
	r.progress(stage, r.done, r.total)
	var (
		cur     messaging.Cursor
		applied int64
	)
	for {
		batch, _, err := messaging.ReadStored(ctx, q, r.topics, w, cur, r.o.BatchSize)
		if err != nil || len(batch) == 0 {
			return applied, err
		}
		if err := inTx(func(tx *sqlx.Tx) error { return r.p.Apply(ctx, tx, r.tables, batch...) }); err != nil {
			return applied, err
		}
		cur = cur.Past(batch[len(batch)-1])
		n := len(batch)
		applied += int64(n)
		r.done += int64(n)
		if r.done > r.total {
			r.total = r.done // events committed between the count and the read
		}
		r.progress(stage, r.done, r.total)
	}
}

// swap replaces the live tables by the shadows in one short transaction.
// EXCLUSIVE mode stops the live handlers' writes while the last events are
// caught up, but not readers; dropping the live tables then takes ACCESS
// EXCLUSIVE for the few milliseconds to the commit. A statement that waited
// for a lock on a table renamed or dropped meanwhile looks its name up again
// once it gets the lock, so blocked handlers and readers go on against the
// new tables (platform/projection's swap test shows it).
func (r *rebuilding) swap(ctx context.Context, horizon messaging.Snapshot) (time.Duration, error) {
	r.progress(Swapping, r.done, r.total)
	var lockedAt time.Time
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = %d`, r.o.LockTimeout.Milliseconds())); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `LOCK TABLE `+strings.Join(r.p.Tables, ", ")+` IN EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("locking %s: %w", strings.Join(r.p.Tables, ", "), err)
		}
		lockedAt = time.Now()
		// Everything committed and not in the horizon: no live write of the
		// read model can commit now, so none is missed; the live handlers
		// apply whatever commits later to the new tables.
		if _, err := r.apply(ctx, Swapping, tx, messaging.Window{After: horizon},
			func(fn func(*sqlx.Tx) error) error { return fn(tx) }); err != nil {
			return err
		}
		for _, s := range r.shadows {
			if err := s.replace(ctx, tx); err != nil {
				return err
			}
		}
		if r.o.beforeSwapCommit != nil {
			r.o.beforeSwapCommit()
		}
		return nil
	})
	if lockedAt.IsZero() {
		return 0, err
	}
	return time.Since(lockedAt), err
}

// isLockContention reports a swap that lost to live writers: its lock
// timeout ran out (55P03), or PostgreSQL broke a deadlock with a live
// projection batch by cancelling the swap (40P01). A batch holds the
// tables' row locks until it commits and takes them in the order its
// events need, so a swap taking them in the projection's order can meet
// one halfway. Either way the swap's transaction is rolled back whole and
// tried again after another catch-up.
func isLockContention(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && (pqErr.Code == "55P03" || pqErr.Code == "40P01")
}
