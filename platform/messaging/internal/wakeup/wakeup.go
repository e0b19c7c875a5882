// Package wakeup tells a stream's idle readers that something was committed
// on it: a committing transaction notifies (PostgreSQL's NOTIFY), a Wakeup
// listens on a connection of its own, and a reader's backoff waits for it,
// with a poll at a safety interval beneath.
package wakeup

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

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
	return NotifyAll(ctx, q, []string{stream})
}

// NotifyAll is Notify of each of streams.
func NotifyAll(ctx context.Context, q sqlx.ExecerContext, streams []string) error {
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

// New listens for commits on dsn's database until Close. Without a
// listener (dsn empty) readers fall back to polling at their safety interval.
func New(dsn string, logger *slog.Logger) (*Wakeup, error) {
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
