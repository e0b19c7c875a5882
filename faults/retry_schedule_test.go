//go:build faults

package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// promisedRetries is the schedule of the spec ("retried at 5 minutes, 1
// hour, 6 hours and 24 hours after the first failure. After that the
// delivery is permanently failed"), written here rather than read from the
// code, so the code cannot move the promise unnoticed.
var promisedRetries = []time.Duration{5 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// early is how far before a promised offset the clock is set to see that
// no attempt comes there: it outlasts, with room to spare, the real time
// the suite takes to see the worker idle (idle, below), which the clock
// runs on meanwhile.
const early = 10 * time.Second

// A receiver down for the whole retry schedule, walked through on shipd's
// test clock (SHIPD_TEST_CLOCK_FILE): no attempt before each promised
// offset, one attempt at it, then the delivery is final. "Down" is a
// receiver that answers every POST with 503 (rather than a closed port), so
// the suite sees each attempt arrive as well as its log.
func TestRetryScheduleOnTestClock(t *testing.T) {
	dsn, db := newDatabase(t, "faults_retries")
	clk := newTestClock(t)
	rc := newReceiver(t)
	rc.status.Store(http.StatusServiceUnavailable)
	acc := newAccount(t, dsn, "retries", 1_000_000)
	in := startInstance(t, "shipd", dsn, clk.env(), "WORKER_POLL_INTERVAL=100ms")
	c := in.client(acc)
	sub := subscribe(t, c, rc, "/down", []string{"shipping_channel.created"})
	sandboxChannel(t, c, "Retry main", false) // its shipping_channel.created is the one delivery

	logs := func() []deliveryLog {
		var page struct {
			Data []deliveryLog `json:"data"`
		}
		a := c.call(http.MethodGet, "/v1/webhook-subscriptions/"+sub+"/logs?per_page=100", nil)
		if !a.ok() || json.Unmarshal(a.body, &page) != nil {
			t.Fatalf("delivery logs: %s", a)
		}
		return page.Data // newest first
	}
	logged := func(n int) func() string {
		return func() string {
			if got := len(logs()); got < n {
				return fmt.Sprintf("%d attempts logged", got)
			}
			return ""
		}
	}

	// idle returns once the delivery worker has nothing left to do at the
	// clock's present, at or after at. A marker, a channel made in an
	// account of its own once shipd's clock reads at, has been delivered:
	// the fan-out got past every earlier event, and the worker claimed
	// since the clock moved, the longest overdue first. Then no delivery is
	// leased: every attempt due by now has been made and recorded.
	markers := newReceiver(t)
	marker := in.client(newAccount(t, dsn, "retries-marker", 1_000_000))
	subscribe(t, marker, markers, "/marker", []string{"shipping_channel.created"})
	made := 0
	idle := func(at time.Time) {
		t.Helper()
		// shipd reads the clock file anew every few milliseconds: a marker
		// it made before it saw the move is made again.
		for {
			made++
			ch := marker.must(t, http.MethodPost, "/v1/shipping-channels", map[string]any{"name": fmt.Sprintf("Marker %d", made), "provider": "sandbox",
				"settings": map[string]any{"clientId": "fault-suite", "clientSecret": "fault-suite-secret"}}, http.StatusCreated)
			if created, err := time.Parse(time.RFC3339, fmt.Sprint(ch["created_at"])); err != nil {
				t.Fatalf("marker channel: %v", err)
			} else if !created.Before(at.Truncate(time.Second)) {
				break
			}
		}
		eventually(t, 15*time.Second, fmt.Sprintf("%d markers delivered", made), func() string {
			if got := len(markers.received("/marker")); got < made {
				return fmt.Sprintf("%d delivered", got)
			}
			return ""
		})
		eventually(t, 15*time.Second, "no delivery in flight", func() string {
			var leased int
			if err := db.QueryRow(`SELECT count(*) FROM webhooks.deliveries WHERE outcome = 'pending' AND lease_until IS NOT NULL`).Scan(&leased); err != nil {
				t.Fatal(err)
			}
			if leased > 0 {
				return fmt.Sprintf("%d deliveries leased", leased)
			}
			return ""
		})
	}

	began := time.Now()
	eventually(t, 15*time.Second, "the first attempt logged", logged(1))
	first := logs()[0]
	t0 := first.CreatedAt // the first failure: every retry is measured from it
	checkAttempt(t, first, 1, 0, t0)
	var report []string

	for i, offset := range promisedRetries {
		number := i + 2
		hits, attempts := len(rc.received("/down")), len(logs())
		// Nothing is in flight: the previous attempt is logged, its lease
		// cleared. Just before the offset, nothing may happen.
		clk.setTo(t, t0.Add(offset-early))
		idle(t0.Add(offset - early))
		if len(rc.received("/down")) != hits || len(logs()) != attempts {
			t.Fatalf("attempt %d came before its promised offset %s (clock at offset - %s): %+v", number, offset, early, logs()[0])
		}
		jumped := time.Now()
		clk.setTo(t, t0.Add(offset))
		eventually(t, 10*time.Second, fmt.Sprintf("attempt %d at +%s", number, offset), logged(number))
		waited := time.Since(jumped)
		got := logs()[0]
		checkAttempt(t, got, number, offset, t0)
		if n := len(rc.received("/down")); n != hits+1 {
			t.Errorf("attempt %d: the receiver got %d POSTs, want 1", number, n-hits)
		}
		report = append(report, fmt.Sprintf("#%d promised +%s, made at +%s (%s real after the jump)",
			number, offset, got.CreatedAt.Sub(t0), waited.Round(time.Millisecond)))
	}

	// Final: a day later still, no attempt comes.
	hits, attempts := len(rc.received("/down")), len(logs())
	final := t0.Add(promisedRetries[len(promisedRetries)-1] + 24*time.Hour)
	clk.setTo(t, final)
	idle(final)
	if len(rc.received("/down")) != hits || len(logs()) != attempts {
		t.Errorf("an attempt after the last retry: %+v", logs()[0])
	}
	var outcome string
	var stored int
	var next *time.Time
	if err := db.QueryRow(`SELECT outcome, attempts, next_attempt_at FROM webhooks.deliveries WHERE account_id = $1`, acc.id).Scan(&outcome, &stored, &next); err != nil {
		t.Fatal(err)
	}
	if outcome != "failed" || stored != 1+len(promisedRetries) || next != nil {
		t.Errorf("the delivery is %s after %d attempts, next %v; want failed for good after %d", outcome, stored, next, 1+len(promisedRetries))
	}
	t.Logf("retry schedule (receiver answers 503): first attempt at t0 = %s (shipd clock); %v", t0.Format(time.RFC3339), report)
	t.Logf("retry schedule: after #%d next_retry_at is null, the delivery is %s with %d attempts, and nothing came at +48h (the worker idle there); the receiver got %d POSTs; whole schedule walked in %s real",
		attempts, outcome, stored, len(rc.received("/down")), time.Since(began).Round(100*time.Millisecond))
}

// deliveryLog is the part of an attempt log the suite checks.
type deliveryLog struct {
	ID             string     `json:"id"`
	Attempt        int        `json:"attempt"`
	Status         string     `json:"status"`
	ResponseStatus int        `json:"response_status"`
	CreatedAt      time.Time  `json:"created_at"`
	NextRetryAt    *time.Time `json:"next_retry_at"`
}

// checkAttempt checks the number-th attempt's log: failed with the
// receiver's 503, made within 3 s (shipd clock) after its promised offset,
// and naming the next promised retry, or none after the last.
func checkAttempt(t *testing.T, l deliveryLog, number int, offset time.Duration, t0 time.Time) {
	t.Helper()
	if l.Attempt != number || l.Status != "failed" || l.ResponseStatus != http.StatusServiceUnavailable {
		t.Errorf("attempt %d: log %+v, want attempt %d failed with 503", number, l, number)
	}
	if at := l.CreatedAt.Sub(t0); at < offset || at > offset+3*time.Second {
		t.Errorf("attempt %d made at +%s, promised +%s", number, at, offset)
	}
	switch {
	case number-1 < len(promisedRetries):
		if want := t0.Add(promisedRetries[number-1]); l.NextRetryAt == nil || !l.NextRetryAt.Equal(want) {
			t.Errorf("attempt %d: next_retry_at %v, want %s (+%s)", number, l.NextRetryAt, want, promisedRetries[number-1])
		}
	case l.NextRetryAt != nil:
		t.Errorf("attempt %d is the last, yet next_retry_at is %s", number, l.NextRetryAt)
	}
}
