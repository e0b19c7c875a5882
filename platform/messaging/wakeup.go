package messaging

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/platform/postgres"
)

// notifyChannel is the PostgreSQL channel a committing outbox notifies, the
// stream's name as payload; a module may signal work of its own on it.
const notifyChannel = "shipd_streams"

// Notify tells the Wakeups of every instance that something new is on
// stream, once q's transaction commits (at once outside one): a module's own
// signal of due work uses it with a name of its own (e.g.
// "webhooks.deliveries"). PostgreSQL drops it if the transaction rolls back
// and folds repeats in one transaction into one.
func Notify(ctx context.Context, q sqlx.ExecerContext, stream string) error {
	return notify(ctx, q, []string{stream})
}

func notify(ctx context.Context, q sqlx.ExecerContext, streams []string) error {
	for _, s := range streams {
		if _, err := q.ExecContext(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, s); err != nil {
			return err
		}
	}
	return nil
}

// Wakeup tells a stream's idle readers that something was committed on it.
// It is fed by LISTEN on its own connection; each notification bumps the
// stream's generation, which is what a reader compares (a notification that
// arrives while a reader queries is not lost: the generation moved).
type Wakeup struct {
	mu    sync.Mutex
	gen   map[string]uint64
	next  map[string]chan struct{} // closed at the stream's next bump
	close func() error
}

// NewWakeup listens for commits on dsn's database until Close. Without a
// listener (dsn empty) readers fall back to polling at their safety interval.
func NewWakeup(dsn string, logger *slog.Logger) (*Wakeup, error) {
	w := &Wakeup{gen: map[string]uint64{}, next: map[string]chan struct{}{}, close: func() error { return nil }}
	if dsn == "" {
		return w, nil
	}
	l := pq.NewListener(dsn, 100*time.Millisecond, 5*time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventReconnected:
			// Commits made while the connection was down sent nothing here.
			w.bumpAll()
		case pq.ListenerEventConnectionAttemptFailed:
			logger.Debug("event listener: connecting failed; readers poll meanwhile", "err", err)
		}
	})
	if err := l.Listen(notifyChannel); err != nil && !errors.Is(err, pq.ErrChannelAlreadyOpen) {
		l.Close()
		if !postgres.IsUnavailable(err) {
			return nil, err
		}
		// The listener keeps trying; the readers poll until it connects.
		logger.Warn("event listener: database unavailable; readers poll until it is back", "err", err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case n := <-l.Notify:
				if n == nil { // reconnected; handled by the event callback
					continue
				}
				w.bump(n.Extra)
			}
		}
	}()
	w.close = func() error { close(done); return l.Close() }
	return w, nil
}

// Close stops listening.
func (w *Wakeup) Close() error { return w.close() }

func (w *Wakeup) bump(stream string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen[stream]++
	if ch, ok := w.next[stream]; ok {
		close(ch)
		delete(w.next, stream)
	}
}

func (w *Wakeup) bumpAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen[""]++ // every stream's generation includes this
	for s, ch := range w.next {
		close(ch)
		delete(w.next, s)
	}
}

// generation is the stream's count of commits seen, and a channel closed at
// its next one.
func (w *Wakeup) generation(stream string) (uint64, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.next[stream]
	if !ok {
		ch = make(chan struct{})
		w.next[stream] = ch
	}
	return w.gen[stream] + w.gen[""], ch
}

// Next is closed at the next commit notified on stream (or on
// Notify(channel) for a channel of a module's own, such as due work).
func (w *Wakeup) Next(stream string) <-chan struct{} {
	_, ch := w.generation(stream)
	return ch
}

// Wait returns when stream's generation differs from seen, after safety, or
// when done closes; it returns the generation then.
func (w *Wakeup) Wait(stream string, seen uint64, safety time.Duration, done <-chan struct{}) uint64 {
	timer := time.NewTimer(safety)
	defer timer.Stop()
	for {
		gen, next := w.generation(stream)
		if gen != seen {
			return gen
		}
		select {
		case <-next:
		case <-timer.C:
			return gen
		case <-done:
			return gen
		}
	}
}

// readerBackoff decides when a subscriber queries its stream again
// (Watermill's BackoffManager): at once after a batch, at once after a
// commit on the stream was notified, else at the safety interval. A commit
// notified but not yet readable (Watermill reads only below the oldest
// running transaction) is asked for again after a short pause, growing to
// notReadablePause at most, for up to the safety interval after the last
// notification. Under load the horizon is held back by whichever short
// transaction is oldest, for milliseconds at a time: a pause that grew to
// the safety interval itself made the list lag by hundreds of milliseconds.
type readerBackoff struct {
	wake     *Wakeup
	stream   string
	safety   time.Duration
	retry    time.Duration
	done     <-chan struct{}
	seen     uint64        // generation when the last query began
	pending  time.Duration // pause while a notified commit is not readable yet
	waited   time.Duration // paused since the last notification
	errorLog *throttledLog
}

// notReadablePause is the longest pause before asking again for a commit
// that was notified but not readable yet.
const notReadablePause = 25 * time.Millisecond

func newReaderBackoff(wake *Wakeup, stream string, safety, retry time.Duration, done <-chan struct{}) *readerBackoff {
	b := &readerBackoff{wake: wake, stream: stream, safety: safety, retry: retry, done: done, errorLog: &throttledLog{every: time.Minute}}
	b.seen, _ = wake.generation(stream)
	return b
}

func (b *readerBackoff) HandleError(logger watermill.LoggerAdapter, noMsg bool, err error) time.Duration {
	if err != nil {
		if postgres.IsConflict(err) {
			return 0 // the other transaction went on; this one may read at once
		}
		if b.errorLog.due() {
			logger.Error("Reading the event stream failed; trying again (repeats of this are logged once a minute)", err,
				watermill.LogFields{"wait_time": b.retry})
		}
		return b.retry
	}
	b.errorLog.reset()
	gen, _ := b.wake.generation(b.stream)
	switch {
	case !noMsg:
		b.pending = 0
	case gen != b.seen:
		// Something committed since this query began; it may not have been
		// readable yet.
		b.pending = min(max(2*b.pending, 5*time.Millisecond), notReadablePause, b.safety)
		b.waited = b.pending
		b.seen = gen
		return b.pending
	case b.pending > 0 && b.waited < b.safety:
		// Still waiting for a notified commit to become readable.
		b.pending = min(2*b.pending, notReadablePause, b.safety)
		b.waited += b.pending
		return b.pending
	default:
		b.pending = 0
		gen = b.wake.Wait(b.stream, b.seen, spread(b.safety), b.done)
	}
	b.seen = gen
	return 0
}

// spread is the safety interval give or take a quarter, at random. Every
// subscriber of an instance starts, and is woken by a commit, at the same
// moment: at one fixed interval their idle asks stayed in step, each
// holding a pooled connection at the same instant, so an idle instance
// kept up to a connection per subscriber open (6 to 10 in repeated runs of
// TestIdleInstanceIsIdle; 5 with the spread).
func spread(d time.Duration) time.Duration {
	return d*3/4 + rand.N(d/2+1)
}

// throttledLog lets a repeated error through once per interval.
type throttledLog struct {
	mu    sync.Mutex
	every time.Duration
	last  time.Time
}

func (l *throttledLog) due() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); now.Sub(l.last) >= l.every {
		l.last = now
		return true
	}
	return false
}

func (l *throttledLog) reset() {
	l.mu.Lock()
	l.last = time.Time{}
	l.mu.Unlock()
}
