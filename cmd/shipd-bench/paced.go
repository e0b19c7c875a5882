package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// paced offers requests on a fixed clock, whatever the answers take: each
// tick starts its request in a goroutine of its own, so a slow server does
// not slow the offered rate down, and the rate achieved is what the server
// answered. Some requests are probes: after their answer, the probe polls
// until their effect shows and the time it took is a lag sample.
type paced struct {
	every time.Duration // one request per tick
	// probeEvery makes every probeEvery-th request a probe (0: none).
	probeEvery int
	// request makes request i. A probe returns from (when its lag starts)
	// and seen, which says whether its effect shows yet.
	request func(i int, probe bool) (from time.Time, seen func() (bool, error), err error)
	// timeout bounds how long a probe's effect may take to show; one that
	// does not show by then is counted apart and has no lag.
	timeout time.Duration
}

// pacedResult is what one paced run offered, achieved and saw.
type pacedResult struct {
	offered  int             // ticks, each one request
	answered int             // requests answered as asked
	failed   int             // requests that failed, probes that could not be polled
	unseen   int             // probes whose effect did not show within the timeout
	firstErr error           // the first failure, to say what failed
	window   time.Duration   // the clock's start to its last tick
	elapsed  time.Duration   // the clock's start to the last answer
	lags     []time.Duration // probes' lags, sorted
	probes   []probeLag      // the same lags with when each probe was offered
	targetHz float64         // requests/s the clock offers
}

// probeLag is one probe's lag and when, from the clock's start, it was offered.
type probeLag struct{ offeredAt, lag time.Duration }

// quarterP99s is the p99 lag of the probes offered in each quarter of the
// window, in order: a lag that stays flat under the load gives four
// figures alike, one that grows gives rising ones.
func (r pacedResult) quarterP99s() []time.Duration {
	quarters := make([][]time.Duration, 4)
	for _, p := range r.probes {
		q := min(3, int(4*p.offeredAt/max(r.window, 1)))
		quarters[q] = append(quarters[q], p.lag)
	}
	out := make([]time.Duration, 4)
	for i, q := range quarters {
		slices.Sort(q)
		out[i] = pct(q, 99)
	}
	return out
}

// achieved is requests answered per second, from the clock's start to the last answer.
func (r pacedResult) achieved() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.answered) / r.elapsed.Seconds()
}

// describe says offered against achieved, and the failures.
func (r pacedResult) describe() string {
	s := fmt.Sprintf("target %.1f/s: %d offered in %.1f s, %d answered in %.1f s: **%.1f/s achieved**, %d failed", r.targetHz,
		r.offered, r.window.Seconds(), r.answered, r.elapsed.Seconds(), r.achieved(), r.failed)
	if r.unseen > 0 {
		s += fmt.Sprintf(", **%d not seen in time** (left out of the lags below)", r.unseen)
	}
	if r.firstErr != nil {
		s += fmt.Sprintf(" (first: %s)", oneLine(r.firstErr.Error(), 120))
	}
	return s
}

// run offers requests for d, then waits for every request and probe
// started: none is dropped at the end.
func (p paced) run(d time.Duration) pacedResult {
	stop := make(chan struct{})
	time.AfterFunc(d, func() { close(stop) })
	return p.runUntil(stop)
}

// runUntil is run until stop closes.
func (p paced) runUntil(stop <-chan struct{}) pacedResult {
	var (
		mu   sync.Mutex
		res  = pacedResult{targetHz: float64(time.Second) / float64(p.every)}
		last time.Time
		wg   sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		res.failed++
		if res.firstErr == nil {
			res.firstErr = err
		}
	}
	start := time.Now() // before the clock, so the n-th tick is at least n periods on
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	offer := func(i int) {
		probe := p.probeEvery > 0 && i%p.probeEvery == 0
		wg.Go(func() {
			from, seen, err := p.request(i, probe)
			answeredAt := time.Now()
			mu.Lock()
			if answeredAt.After(last) {
				last = answeredAt
			}
			mu.Unlock()
			if err != nil {
				fail(err)
				return
			}
			mu.Lock()
			res.answered++
			mu.Unlock()
			if seen == nil {
				return
			}
			lag, err := awaitSeen(from, seen, p.timeout)
			if err != nil {
				fail(fmt.Errorf("probe %d: %w", i, err))
				return
			}
			mu.Lock()
			res.lags = append(res.lags, lag)
			res.probes = append(res.probes, probeLag{offeredAt: time.Duration(i) * p.every, lag: lag})
			mu.Unlock()
		})
	}
offering:
	for {
		select {
		case <-stop:
			break offering
		case at := <-tick.C:
			// Ticks a busy machine coalesced are made up for: the clock
			// offers every request due by now.
			res.window = at.Sub(start)
			for due := int(res.window / p.every); res.offered < due; res.offered++ {
				offer(res.offered)
			}
		}
	}
	wg.Wait()
	res.elapsed = last.Sub(start)
	slices.Sort(res.lags)
	return res
}

// pollNote says how probes poll, for the report.
const pollNote = "polled 10 ms apart at first, then every tenth of the time waited so far, so a sample overstates the lag by at most 10 ms or 10 %"

// errUnseen is a probe whose effect did not show within its timeout.
var errUnseen = errors.New("not seen in time")

// awaitSeen polls seen until it holds and returns the time since from. Polls
// grow apart with the time waited (every tenth of it, at least 10 ms), so a
// backlog of slow probes does not load the server it measures with polls:
// each poll is a request that also counts against the rate limit.
func awaitSeen(from time.Time, seen func() (bool, error), timeout time.Duration) (time.Duration, error) {
	for {
		ok, err := seen()
		waited := time.Since(from)
		if err != nil {
			return 0, err
		}
		if ok {
			return waited, nil
		}
		if waited > timeout {
			return 0, errUnseen
		}
		time.Sleep(max(waited/10, 10*time.Millisecond))
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
