//go:build faults

package faults

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two shipd instances on one database under a write load spread over both:
// every event is delivered to every subscription exactly once (a receiver
// that answers 204 gives no reason to retry, so a second attempt would be a
// double claim), one account's rate limit holds across both instances, and
// both list the acknowledged shipments exactly.
func TestTwoInstancesOneDatabase(t *testing.T) {
	dsn, db := newDatabase(t, "faults_two")
	rc := newReceiver(t)
	acc := newAccount(t, dsn, "two", 1_000_000)
	a, b := startInstance(t, "shipd-a", dsn), startInstance(t, "shipd-b", dsn)
	ca, cb := a.client(acc), b.client(acc)
	paths := []string{"/two-1", "/two-2"}
	subscribe(t, ca, rc, paths[0], loadEvents)
	subscribe(t, cb, rc, paths[1], loadEvents)
	channel := sandboxChannel(t, ca, "Two main", true)
	spares := []string{sandboxChannel(t, cb, "Two spare 1", false), sandboxChannel(t, ca, "Two spare 2", false)}

	load := startWriteLoad([]client{ca, cb}, channel, "TWO", spares)
	eventually(t, 60*time.Second, "shipments acknowledged through both instances", func() string {
		if n := len(load.acknowledged()); n < 300 {
			return fmt.Sprintf("only %d", n)
		}
		return ""
	})
	// The rate limit is tried while the load runs.
	const limit, burst = 30, 80
	allowed, limited, windows := rateLimitBurst(t, dsn, a, b, limit, burst)
	load.halt()

	if d := allowed - limit; d < -1 || d > 1 {
		t.Errorf("%d of %d concurrent requests through two instances passed a limit of %d per minute (%d refused); want %d ± 1",
			allowed, burst, limit, limited, limit)
	}
	if allowed+limited != burst {
		t.Errorf("%d passed and %d got 429 of %d requests: some got something else", allowed, limited, burst)
	}

	posts := load.posts()
	if failed := len(load.allAnswers()) - countOK(load.allAnswers()); failed > 0 {
		t.Errorf("without a fault every write must succeed; %d did not: %s", failed, outcomes(load.allAnswers()))
	}
	// Exactly as acknowledged, read through either instance.
	f := afterFault{c: ca, db: db, acc: acc, load: load, rc: rc, path: paths[0], within: 60 * time.Second}.nothingLost(t)
	acked := load.acknowledged()
	for _, c := range []client{ca, cb} {
		items, total, problem := c.listAll("/v1/shipments")
		if problem != "" || total != len(acked) || len(items) != total {
			t.Errorf("%s lists %d shipments (meta.total %d), %d acknowledged %s", c.base, len(items), total, len(acked), problem)
		}
		var strangers []string
		for _, it := range items {
			if _, ok := acked[it["id"].(string)]; !ok {
				strangers = append(strangers, fmt.Sprint(it["id"]))
			}
		}
		if len(strangers) > 0 {
			t.Errorf("%s lists shipments never acknowledged: %s", c.base, summarise(strangers))
		}
	}
	attempts, repeats := deliveredExactlyOnce(t, db, rc, acc, loadEvents, paths, 60*time.Second)
	senders := attemptsBySender(rc, a, b)
	t.Logf("two instances: %d shipment POSTs over both (%s); %s", len(posts), outcomes(answersOf(posts)), f)
	t.Logf("two instances: %d events × %d subscriptions = %d deliveries, %d attempts received, %d of them repeats; sent by %v",
		f.published, len(paths), f.published*len(paths), attempts, repeats, senders)
	if senders[a.name] == 0 || senders[b.name] == 0 {
		t.Errorf("one instance made every attempt (%v): the exactly-once check saw no competition", senders)
	}
	t.Logf("two instances: rate limit %d/min, %d concurrent requests split over both: %d passed, %d got 429 (window resets %v)",
		limit, burst, allowed, limited, windows)
}

// rateLimitBurst sends burst concurrent requests of a fresh account limited
// to limit per minute, half through each instance, and counts what passed.
// A burst that straddles a minute boundary counts in two windows, so it is
// repeated with another account when its answers name two window resets.
func rateLimitBurst(t *testing.T, dsn string, a, b *instance, limit, burst int) (allowed, limited int, resets []string) {
	t.Helper()
	for try := range 3 {
		acc := newAccount(t, dsn, fmt.Sprintf("limited-%d", try), limit)
		var mu sync.Mutex
		var wg sync.WaitGroup
		allowed, limited = 0, 0
		seen := map[string]bool{}
		for i := range burst {
			in := a
			if i%2 == 1 {
				in = b
			}
			wg.Go(func() {
				ans := in.client(acc).call(http.MethodGet, "/v1/shipping-channels", nil)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case ans.err == nil && ans.status == http.StatusTooManyRequests:
					limited++
				case ans.ok():
					allowed++
				default:
					t.Errorf("rate-limited account got %s", ans)
				}
				if ans.err == nil {
					seen[ans.header.Get("X-RateLimit-Reset")] = true
				}
			})
		}
		wg.Wait()
		resets = resets[:0]
		for r := range seen {
			resets = append(resets, r)
		}
		if len(resets) == 1 {
			return allowed, limited, resets
		}
	}
	t.Fatal("three bursts in a row straddled a minute boundary")
	return 0, 0, nil
}

// attemptsBySender counts the receiver's hits per shipd instance, by the
// source port of each attempt's connection.
func attemptsBySender(rc *receiver, ins ...*instance) map[string]int {
	pids := map[int]string{}
	for _, in := range ins {
		pids[in.Cmd.Process.Pid] = in.name
	}
	owners := localPortOwners(pids)
	out := map[string]int{}
	for _, h := range rc.received("") {
		_, port, _ := strings.Cut(h.source, ":")
		n, _ := strconv.Atoi(port)
		if name, ok := owners[n]; ok {
			out[name]++
		} else {
			out["unknown (connection closed)"]++
		}
	}
	return out
}

func countOK(answers []answer) int {
	n := 0
	for _, a := range answers {
		if a.ok() {
			n++
		}
	}
	return n
}
