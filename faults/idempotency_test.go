//go:build faults

package faults

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Keyed POSTs (shipments, and every fourth a webhook subscription) from four
// writers while shipd is killed with -9 over
// and over: half the kills at random instants, half by the failpoint exactly
// between a request's commit and its answer (the window that used to give a
// retry a second shipment). Every request without a final answer is retried
// with its key and body. At the end every key has exactly one resource, no
// key is left running, and every retry either replayed the first answer or
// created the resource once.
func TestKeyedWritesSurviveKills(t *testing.T) {
	const randomKills, failpointKills = 12, 12
	dsn, db := newDatabase(t, "faults_keys")
	acc := newAccount(t, dsn, "keys", 1_000_000)
	failpoint := "SHIPD_TEST_FAILPOINT=idempotency-after-commit=0.05"
	// Rounds alternate: even ones end by a kill from outside, odd ones by
	// the failpoint of the instance started for them.
	armedFor := func(round int) []string {
		if round%2 == 1 {
			return []string{failpoint}
		}
		return nil
	}
	current := startInstance(t, "shipd-keys-0", dsn, armedFor(0)...)
	channel := sandboxChannel(t, current.client(acc), "Keys main", true)
	w := startKeyedWriters(4, channel)
	w.aim(current.client(acc))

	var randomDone, failpointDone, inFlightAtKills int
	for round := 0; randomDone < randomKills || failpointDone < failpointKills; round++ {
		before := w.acknowledged()
		if round%2 == 1 {
			eventually(t, 60*time.Second, fmt.Sprintf("round %d: the failpoint kills shipd", round), func() string {
				if current.Running() {
					return "still running"
				}
				return ""
			})
			if ws, ok := current.Cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("round %d: shipd ended with %v, not by its failpoint's SIGKILL:\n%s", round, current.Cmd.ProcessState, current.Tail(20))
			}
			failpointDone++
		} else {
			// A kill from outside hits an instance in full swing.
			eventually(t, 30*time.Second, fmt.Sprintf("round %d: writes acknowledged by the new instance", round), func() string {
				if n := w.acknowledged() - before; n < 20 {
					return fmt.Sprintf("%d so far", n)
				}
				return ""
			})
			time.Sleep(time.Duration(50+rand.IntN(500)) * time.Millisecond) // a random moment of the writes to kill at
			inFlightAtKills += int(w.inFlight.Load())
			current.Kill()
			randomDone++
		}
		current = startInstance(t, fmt.Sprintf("shipd-keys-%d", round+1), dsn, armedFor(round+1)...)
		w.aim(current.client(acc))
	}
	// The last instance may carry the failpoint; a clean one answers the
	// final retries.
	current.Kill()
	current = startInstance(t, "shipd-keys-final", dsn)
	w.aim(current.client(acc))
	w.halt()

	// Retry every key once more, and every unanswered one until it has an
	// answer: a careful client's last word on each request it sent.
	final := map[string]answer{}
	for _, p := range w.all() {
		var a answer
		eventually(t, 30*time.Second, "a final answer for "+p.key, func() string {
			a = current.client(acc).callWith(http.MethodPost, p.path, map[string]string{"Idempotency-Key": p.key}, p.body)
			if a.err != nil || a.status == http.StatusConflict || a.status >= 500 {
				return a.String()
			}
			return ""
		})
		final[p.key] = a
	}

	var problems []string
	var lostThenReplayed, lostThenCreated int
	for _, p := range w.all() {
		answers := append(append([]answer(nil), p.answers...), final[p.key])
		if a := final[p.key]; a.status != http.StatusCreated {
			problems = append(problems, fmt.Sprintf("%s: final answer %s", p.key, a))
			continue
		}
		// Walk the answers in order: the one that created the shipment
		// (not replayed) may come at most once; before it, only silence,
		// 409 or 5xx; an answer lost to a kill may have created it unseen.
		ids := map[string]bool{}
		created, lost, createdAfterLoss := 0, false, false
		for _, a := range answers {
			switch {
			case a.ok():
				id, _ := a.data()["id"].(string)
				ids[id] = true
				if a.header.Get("Idempotent-Replayed") != "true" {
					created++
					createdAfterLoss = lost
				}
			case a.err != nil:
				lost = true
			case a.status == http.StatusConflict || a.status >= 500:
			default:
				problems = append(problems, fmt.Sprintf("%s: answered %s", p.key, a))
			}
		}
		switch {
		case len(ids) != 1 || created > 1:
			problems = append(problems, fmt.Sprintf("%s: shipments %v, created by %d answers", p.key, keysOf(ids), created))
		case created == 0 && !lost:
			problems = append(problems, fmt.Sprintf("%s: only replays, yet no attempt was lost", p.key))
		case created == 0:
			lostThenReplayed++ // committed at a kill, its answer lost; the retry replayed it
		case createdAfterLoss:
			lostThenCreated++ // the kill came before the commit; the retry created it
		}
	}

	// What the database holds: one shipment or subscription per reference,
	// none unknown, no key still running.
	var duplicates []string
	rows, err := db.Query(`SELECT ref, count(*) FROM (
			SELECT state->>'reference_number' AS ref FROM shipments.shipments WHERE account_id = $1
			UNION ALL SELECT name FROM webhooks.subscriptions WHERE account_id = $1) r
		GROUP BY 1 HAVING count(*) > 1`, acc.id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ref string
		var n int
		if err := rows.Scan(&ref, &n); err != nil {
			t.Fatal(err)
		}
		duplicates = append(duplicates, fmt.Sprintf("%s × %d", ref, n))
	}
	rows.Close()
	var stored, running int
	if err := db.QueryRow(`SELECT count(DISTINCT ref) FROM (
			SELECT state->>'reference_number' AS ref FROM shipments.shipments WHERE account_id = $1
			UNION ALL SELECT name FROM webhooks.subscriptions WHERE account_id = $1 AND name LIKE 'KEYS-%') r`, acc.id).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM platform.idempotency_keys WHERE account_id = $1 AND state = 'running'`, acc.id).Scan(&running); err != nil {
		t.Fatal(err)
	}
	if len(duplicates) > 0 {
		t.Errorf("references with more than one shipment: %s", summarise(duplicates))
	}
	if stored != len(w.all()) {
		t.Errorf("%d references stored, %d keys sent", stored, len(w.all()))
	}
	if running != 0 {
		t.Errorf("%d keys still running after every retry", running)
	}
	if len(problems) > 0 {
		t.Errorf("%d keys broke their promise: %s", len(problems), summarise(problems))
	}
	t.Logf("keyed kills: %d kills (%d at random instants, %d at the failpoint between commit and answer), %d requests in flight at the random kills",
		randomDone+failpointDone, randomDone, failpointDone, inFlightAtKills)
	t.Logf("keyed kills: %d keys, %d requests (%s); retries after a lost answer: %d replayed a resource committed at a kill, %d created one no earlier attempt had; duplicates: %d; keys left running: %d",
		len(w.all()), w.requests(), outcomes(w.answers()), lostThenReplayed, lostThenCreated, len(duplicates), running)
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// keyedWriters send shipment POSTs, each with a key of its own, and retry
// a request that got no final answer (no answer, 409, 5xx) with the same
// key and body before sending new ones.
type keyedWriters struct {
	channelID string
	target    atomic.Pointer[client]
	stop      chan struct{}
	wg        sync.WaitGroup
	inFlight  atomic.Int64

	mu    sync.Mutex
	posts []*keyedPost
	count int // requests answered or not
	oks   int // of them answered 2xx
}

// keyedPost is one request, by key, and every answer it got.
type keyedPost struct {
	key, ref, path string
	body           map[string]any
	answers        []answer
}

// newKeyedPost makes the n-th request of a writer: three shipments, then a
// webhook subscription (a resource with no unique field that could hide a
// second one), named by ref.
func newKeyedPost(channelID string, writer, n int) *keyedPost {
	ref := fmt.Sprintf("KEYS-%d-%d", writer, n)
	p := &keyedPost{key: "key-" + strings.ToLower(ref), ref: ref, path: "/v1/shipments", body: shipmentBody(channelID, ref)}
	if n%4 == 3 {
		// An event this suite never fires, at an address nobody listens on.
		p.path, p.body = "/v1/webhook-subscriptions", map[string]any{"name": ref, "url": "http://127.0.0.1:9/" + ref,
			"events": []string{"tracking_parcel.deleted"}}
	}
	return p
}

func startKeyedWriters(n int, channelID string) *keyedWriters {
	w := &keyedWriters{channelID: channelID, stop: make(chan struct{})}
	for i := range n {
		w.wg.Go(func() { w.write(i) })
	}
	return w
}

func (w *keyedWriters) aim(c client) { w.target.Store(&c) }

func (w *keyedWriters) write(writer int) {
	var open []*keyedPost
	for n := 0; ; {
		select {
		case <-w.stop:
			return
		default:
		}
		var p *keyedPost
		if len(open) > 0 {
			p = open[0]
		} else {
			p = newKeyedPost(w.channelID, writer, n)
			n++
			w.mu.Lock()
			w.posts = append(w.posts, p)
			w.mu.Unlock()
			open = append(open, p)
		}
		c := *w.target.Load()
		w.inFlight.Add(1)
		a := c.callWith(http.MethodPost, p.path, map[string]string{"Idempotency-Key": p.key}, p.body)
		w.inFlight.Add(-1)
		w.mu.Lock()
		p.answers = append(p.answers, a)
		w.count++
		if a.ok() {
			w.oks++
		}
		w.mu.Unlock()
		if a.err == nil && a.status != http.StatusConflict && a.status < 500 {
			open = open[1:]
			time.Sleep(20 * time.Millisecond) // a writer's pace, not a wait
		} else {
			time.Sleep(50 * time.Millisecond) // the instance is down or the key busy
		}
	}
}

func (w *keyedWriters) halt() {
	close(w.stop)
	w.wg.Wait()
}

func (w *keyedWriters) acknowledged() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.oks
}

func (w *keyedWriters) all() []*keyedPost {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*keyedPost(nil), w.posts...)
}

func (w *keyedWriters) requests() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.count
}

func (w *keyedWriters) answers() []answer {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []answer
	for _, p := range w.posts {
		out = append(out, p.answers...)
	}
	return out
}
