package wakeup

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"

	"shipd/platform/postgres"
)

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

// NewReaderBackoff is the backoff of a subscriber of stream: it waits on
// wake, at most safety when idle, retry after an error, and ends a wait when
// done closes.
func NewReaderBackoff(wake *Wakeup, stream string, safety, retry time.Duration, done <-chan struct{}) *readerBackoff {
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
