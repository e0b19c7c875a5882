package ports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/app/command"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

// firstSight is a receiver on loopback that notes, per shipment, the order
// in which the first attempt of each of its events arrived. answer decides
// each request's answer from the shipment, the event's seq and the attempt
// number the receiver counted.
type firstSight struct {
	*httptest.Server
	mu       sync.Mutex
	attempts map[string]int   // event id → attempts seen
	order    map[string][]int // shipment id → seqs in first-arrival order
	answer   func(shipmentID string, seq, attempt int) int
}

func newFirstSight(t *testing.T, answer func(shipmentID string, seq, attempt int) int) *firstSight {
	fs := &firstSight{attempts: map[string]int{}, order: map[string][]int{}, answer: answer}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			ID   string `json:"id"`
			Data struct {
				Shipment struct {
					ID  string `json:"id"`
					Seq int    `json:"seq"`
				} `json:"shipment"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			t.Errorf("body: %v", err)
		}
		fs.mu.Lock()
		fs.attempts[b.ID]++
		n := fs.attempts[b.ID]
		if n == 1 {
			fs.order[b.Data.Shipment.ID] = append(fs.order[b.Data.Shipment.ID], b.Data.Shipment.Seq)
		}
		fs.mu.Unlock()
		w.WriteHeader(fs.answer(b.Data.Shipment.ID, b.Data.Shipment.Seq, n))
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *firstSight) seen() (events, attempts int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, n := range fs.attempts {
		events++
		attempts += n
	}
	return events, attempts
}

// fanOut is what the event handlers run for each event: the fan-out
// command, on the test's database.
func fanOut(t *testing.T, env *apptest.Env) func(account, shipmentID string, seq int) {
	h := command.NewFanOutEventHandler(adapters.NewDeliveryStore(env.DB, nil, env.Clock), env.Clock)
	return func(account, shipmentID string, seq int) {
		err := h.Handle(context.Background(), command.FanOutEvent{
			ID: fmt.Sprintf("evt_%s_%d", shipmentID, seq), Type: "shipment.updated", AccountID: account, CreatedAt: t0,
			Data: map[string]any{"shipment": map[string]any{"id": shipmentID, "seq": seq}}})
		if err != nil {
			t.Error(err)
		}
	}
}

// accountOf is the subscription's account.
func accountOf(t *testing.T, env *apptest.Env, subID string) string {
	var account string
	if err := env.DB.Get(&account, `SELECT account_id FROM webhooks.subscriptions WHERE id = $1`, subID); err != nil {
		t.Fatal(err)
	}
	return account
}

// Many shipments changed at once, each fanned out in its own order, while
// many slots deliver and the receiver answers after random pauses: each
// shipment's first attempts still arrive in the order of its events.
func TestFirstAttemptsOfOneResourceArriveInEventOrder(t *testing.T) {
	env, _ := manualEnv(t, apptest.WithConfig(func(c *config.Config) { c.WebhookConcurrency = 32 }))
	key := env.NewKey("acme")
	rc := newFirstSight(t, func(string, int, int) int {
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		return http.StatusNoContent
	})
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipment.updated"}})
	account := accountOf(t, env, sub["id"].(string))
	fan := fanOut(t, env)
	const shipments, events = 40, 8
	var wg sync.WaitGroup
	for s := range shipments {
		wg.Go(func() {
			for seq := range events {
				fan(account, fmt.Sprintf("sh_%02d", s), seq)
			}
		})
	}
	wg.Wait()
	apptest.Eventually(t, 30*time.Second, "every event delivered", func() bool { n, _ := rc.seen(); return n == shipments*events })
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for s := range shipments {
		id := fmt.Sprintf("sh_%02d", s)
		for i, seq := range rc.order[id] {
			if seq != i {
				t.Fatalf("%s: first attempts arrived in the order %v", id, rc.order[id])
			}
		}
	}
}

// A first attempt in flight holds back the next event's; once it has
// failed, the next events go at once, and its retry comes at its own time,
// not before.
func TestFailedFirstAttemptDoesNotHoldBackTheNextEvent(t *testing.T) {
	env, clk := manualEnv(t)
	key := env.NewKey("acme")
	arrived, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // a failing test must not leave the receiver's handler waiting
	rc := newFirstSight(t, func(shipmentID string, seq, attempt int) int {
		if shipmentID == "sh_1" && seq == 0 && attempt == 1 {
			close(arrived)
			<-release
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipment.updated"}})
	account := accountOf(t, env, sub["id"].(string))
	fan := fanOut(t, env)
	fan(account, "sh_1", 0)
	<-arrived
	fan(account, "sh_1", 1)
	fan(account, "sh_1", 2)
	fan(account, "sh_2", 0) // another shipment waits for nothing
	apptest.Eventually(t, 10*time.Second, "the other shipment's event", func() bool { n, _ := rc.seen(); return n >= 2 })
	time.Sleep(300 * time.Millisecond) // the workers poll several times
	if n, _ := rc.seen(); n != 2 {
		t.Fatalf("%d events arrived while the first attempt of the shipment's first event was in flight, want 2", n)
	}
	free()
	apptest.Eventually(t, 10*time.Second, "the next events after the failure", func() bool { n, _ := rc.seen(); return n == 4 })
	awaitLogs(t, env, key, sub["id"].(string), 4)
	clk.Set(t0.Add(5*time.Minute - time.Second))
	time.Sleep(300 * time.Millisecond)
	if _, attempts := rc.seen(); attempts != 4 {
		t.Fatalf("%d attempts before the retry is due, want 4", attempts)
	}
	clk.Set(t0.Add(5 * time.Minute))
	apptest.Eventually(t, 10*time.Second, "the retry", func() bool { _, n := rc.seen(); return n == 5 })
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if got := fmt.Sprint(rc.order["sh_1"]); got != "[0 1 2]" {
		t.Fatalf("first attempts in the order %s", got)
	}
}

// The next event of a resource is claimed as soon as the first attempt
// before it is recorded, not at the worker's next poll: a burst of one
// resource's events goes at the receiver's pace.
func TestHeldBackEventsGoWhenTheEarlierIsRecorded(t *testing.T) {
	const poll = 3 * time.Second
	env, _ := manualEnv(t, apptest.WithConfig(func(c *config.Config) { c.WorkerPollInterval = poll }))
	key := env.NewKey("acme")
	arrived, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free)
	rc := newFirstSight(t, func(_ string, seq, _ int) int {
		if seq == 0 {
			close(arrived)
			<-release
		}
		return http.StatusNoContent
	})
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipment.updated"}})
	account := accountOf(t, env, sub["id"].(string))
	fan := fanOut(t, env)
	fan(account, "sh_1", 0)
	<-arrived
	const events = 4
	for seq := 1; seq < events; seq++ {
		fan(account, "sh_1", seq)
	}
	time.Sleep(poll + poll/2) // a poll has found them held back
	start := time.Now()
	free()
	apptest.Eventually(t, 10*time.Second, "the held-back events", func() bool { n, _ := rc.seen(); return n == events })
	if took := time.Since(start); took > poll {
		t.Fatalf("%d held-back events took %s, longer than one poll (%s)", events-1, took, poll)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if got := fmt.Sprint(rc.order["sh_1"]); got != "[0 1 2 3]" {
		t.Fatalf("first attempts in the order %s", got)
	}
}
