package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// loadSpec is one load: rate POST /v1/shipments per second offered on a
// fixed clock for duration, then at most drainLimit for what they set off.
type loadSpec struct {
	rate       int
	duration   time.Duration
	drainLimit time.Duration
}

// loadResult is what one load run on a fleet saw. Times are from the
// load's start unless said otherwise.
type loadResult struct {
	spec      loadSpec
	instances int
	writes    pacedResult
	failed    int // writes not answered 201
	probes    []*shipmentProbe
	// webhooks is every shipment whose shipment.created reached the
	// receiver: its lag from the 201, by when it was offered.
	webhooks     []probeLag
	undelivered  []time.Duration // when each shipment whose shipment.created never arrived was offered
	created      int             // shipments answered 201
	lastDelivery time.Duration   // from the writes' end to the last shipment.created's arrival
	samples      []loadSample
	writesEnd    time.Duration
	rss          [][]rssSample        // by instance
	handled      []map[string]float64 // by instance: messages each consumer group handled during the run
	// cpu is the CPU used from the first write until the wait after the
	// writes ended: by everything the writes set off, bookings included.
	cpu cpuReading
}

// loadSample is one reading, every second during the writes and every
// 250 ms after them: each consumer group's lag from /metrics, the
// shipments awaiting their booking and those whose shipment.created has
// not arrived.
type loadSample struct {
	at          time.Duration
	groups      map[string]groupBehind
	bookingsDue int
	undelivered int
}

type rssSample struct {
	at  time.Duration
	kib int64
}

// runLoad offers the load to the fleet, the requests split between its
// instances in turn, and waits, up to the drain limit after the writes,
// until every consumer group has caught up, every booking is done and
// every shipment.created has arrived. probesPerSecond writes a second are
// followed through list, booking and tracking (shipmentProbe); every
// write's webhook is timed.
func runLoad(ctx context.Context, f *fleet, spec loadSpec) (*loadResult, error) {
	r := &loadResult{spec: spec, instances: len(f.instances)}
	before, err := f.handled()
	if err != nil {
		return nil, err
	}
	cpuBefore := f.cpu()
	start := time.Now()
	stopRSS, rssDone := make(chan struct{}), make(chan [][]rssSample, 1)
	go func() { rssDone <- f.traceRSS(start, stopRSS) }()
	defer func() {
		if stopRSS != nil {
			close(stopRSS)
		}
	}()

	var (
		mu       sync.Mutex
		written  = map[string]shipmentWrite{}
		inflight atomic.Int64
		created  atomic.Int64
		failed   atomic.Int64
		seq      atomic.Int64
	)
	seq.Store(3 << 40) // references of their own
	every := time.Second / time.Duration(spec.rate)
	p := paced{every: every, probeEvery: max(1, spec.rate/probesPerSecond), timeout: spec.drainLimit,
		request: func(i int, probe bool) (time.Time, func() (bool, error), error) {
			inflight.Add(1)
			defer inflight.Add(-1)
			s := f.instances[i%len(f.instances)].service
			n := seq.Add(1)
			status, body, err := s.do(http.MethodPost, "/v1/shipments", shipmentJSON(s.channel, n))
			at := time.Now()
			if err == nil && status != http.StatusCreated {
				err = fmt.Errorf("POST /v1/shipments: %d %s", status, body)
			}
			var answer struct {
				Data struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			if err == nil {
				err = json.Unmarshal(body, &answer)
			}
			if err != nil {
				failed.Add(1)
				return at, nil, err
			}
			offeredAt := time.Duration(i) * every
			mu.Lock()
			written[answer.Data.ID] = shipmentWrite{at: at, offeredAt: offeredAt}
			mu.Unlock()
			created.Add(1)
			if !probe {
				return at, nil, nil
			}
			pr := &shipmentProbe{s: s, from: at, offeredAt: offeredAt, id: answer.Data.ID, reference: "BENCH-" + strconv.FormatInt(n, 10)}
			mu.Lock()
			r.probes = append(r.probes, pr)
			mu.Unlock()
			return at, pr.seen, nil
		}}
	// The clock stops on time, however long a reading of the lag takes.
	stop, writesDone := make(chan struct{}), make(chan pacedResult, 1)
	stopWrites := sync.OnceFunc(func() { close(stop) })
	defer time.AfterFunc(spec.duration, stopWrites).Stop()
	go func() { writesDone <- p.runUntil(stop) }()

	sample := func() error {
		at := time.Since(start)
		m, err := scrapeMetrics(f.instances[0].service) // the lag is the group's, whichever instance tells it
		if err != nil {
			return err
		}
		var due int
		if err := f.instances[0].db.GetContext(ctx, &due, `SELECT count(*) FROM shipments.shipments WHERE booking_due`); err != nil {
			return err
		}
		r.samples = append(r.samples, loadSample{at: at, groups: m.groupsBehind(), bookingsDue: due,
			undelivered: int(created.Load()) - f.receiver.seen()})
		return nil
	}
	for time.Since(start) < spec.duration {
		if err := sample(); err != nil {
			stopWrites()
			<-writesDone
			return nil, err
		}
		if err := sleepCtx(ctx, min(time.Second, spec.duration-time.Since(start))); err != nil {
			stopWrites()
			<-writesDone
			return nil, err
		}
	}
	<-stop
	r.writesEnd = spec.duration
	for {
		if err := sample(); err != nil {
			<-writesDone
			return nil, err
		}
		last := r.samples[len(r.samples)-1]
		caughtUp := last.bookingsDue == 0 && last.undelivered == 0 && inflight.Load() == 0
		for _, g := range last.groups {
			caughtUp = caughtUp && g.messages == 0
		}
		if caughtUp || time.Since(start)-r.writesEnd > spec.drainLimit {
			break
		}
		if err := sleepCtx(ctx, 250*time.Millisecond); err != nil {
			<-writesDone
			return nil, err
		}
	}
	r.cpu = f.cpu().since(cpuBefore)
	r.writes = <-writesDone // the probes end within the drain limit of their 201
	close(stopRSS)
	stopRSS = nil
	r.rss = <-rssDone
	r.created, r.failed = int(created.Load()), int(failed.Load())

	end := start.Add(r.writesEnd)
	arrivals := f.receiver.arrivals()
	for id, w := range written {
		at, ok := arrivals[id]
		if !ok {
			r.undelivered = append(r.undelivered, w.offeredAt)
			continue
		}
		r.webhooks = append(r.webhooks, probeLag{offeredAt: w.offeredAt, lag: max(0, at.Sub(w.at))})
		r.lastDelivery = max(r.lastDelivery, at.Sub(end))
	}
	after, err := f.handled()
	if err != nil {
		return nil, err
	}
	for i := range after {
		for g, n := range before[i] {
			after[i][g] -= n
		}
	}
	r.handled = after
	return r, nil
}

// shipmentWrite is when a shipment's 201 came and when its write was offered.
type shipmentWrite struct {
	at        time.Time
	offeredAt time.Duration
}

// handled reads how many messages each instance's consumer groups have
// handled so far.
func (f *fleet) handled() ([]map[string]float64, error) {
	out := make([]map[string]float64, len(f.instances))
	for i, in := range f.instances {
		m, err := scrapeMetrics(in.service)
		if err != nil {
			return nil, err
		}
		out[i] = m.handled()
	}
	return out, nil
}

// traceRSS reads every instance's RSS every 100 ms until stop closes.
func (f *fleet) traceRSS(start time.Time, stop <-chan struct{}) [][]rssSample {
	out := make([][]rssSample, len(f.instances))
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return out
		case <-t.C:
			for i, in := range f.instances {
				if kib, err := rssKiB(in.pid); err == nil {
					out[i] = append(out[i], rssSample{at: time.Since(start), kib: kib})
				}
			}
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// lagsOf sorts the lags of the given probe lags.
func lagsOf(ps []probeLag) []time.Duration {
	out := make([]time.Duration, len(ps))
	for i, p := range ps {
		out[i] = p.lag
	}
	slices.Sort(out)
	return out
}
