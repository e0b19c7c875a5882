package ports_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shipd/platform/apptest"
)

const subsPath = "/v1/webhook-subscriptions"

// received is one POST a receiver got, body as the raw bytes on the wire.
type received struct {
	Header http.Header
	Body   []byte
}

// receiver is a real HTTP server on loopback that records every request,
// checks it against the OpenAPI document's webhooks and answers as the test
// says (n counts from 1).
type receiver struct {
	*httptest.Server
	t      *testing.T
	mu     sync.Mutex
	got    []received
	answer func(n int, w http.ResponseWriter, r *http.Request)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	rc := &receiver{t: t, answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

// answering always answers status.
func answering(status int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	apptest.CheckDelivery(rc.t, r.Header, body)
	rc.mu.Lock()
	rc.got = append(rc.got, received{Header: r.Header.Clone(), Body: body})
	n := len(rc.got)
	rc.mu.Unlock()
	rc.answer(n, w, r)
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// await waits for at least n requests and returns them all.
func (rc *receiver) await(t *testing.T, n int) []received {
	t.Helper()
	apptest.Eventually(t, 10*time.Second, strconv.Itoa(n)+" deliveries", func() bool { return len(rc.requests()) >= n })
	return rc.requests()
}

// quiet checks that the receiver has still had n requests once the
// delivery worker has nothing left to do (awaitDeliveriesIdle): how a test
// sees that something did not happen.
func (rc *receiver) quiet(t *testing.T, env *apptest.Env, n int) {
	t.Helper()
	awaitDeliveriesIdle(t, env)
	if got := len(rc.requests()); got != n {
		t.Fatalf("%d deliveries, want still %d", got, n)
	}
}

// markers numbers the accounts awaitDeliveriesIdle makes.
var markers atomic.Int64

// awaitDeliveriesIdle waits until the webhooks module has caught up with
// what the test did and has nothing left to do at the instances' clock.
// First a marker: a channel made now, in an account of its own, whose
// event a subscription of that account receives. Its delivery means the
// fan-out got past every earlier event of the stream (a group reads in
// order) and the worker claimed since the clock last moved. Then no pending
// delivery is due or leased: every attempt due by now has been made and
// recorded. What has not arrived by then will not before the clock moves.
func awaitDeliveriesIdle(t *testing.T, env *apptest.Env) {
	t.Helper()
	key := env.NewKey("marker-" + strconv.FormatInt(markers.Add(1), 10))
	witness := newReceiver(t, answering(http.StatusNoContent))
	subscribe(t, env, key, map[string]any{"name": "marker", "url": witness.URL, "events": []string{"shipping_channel.created"}})
	newChannel(t, env, key, "Marker")
	witness.await(t, 1)
	apptest.Eventually(t, 10*time.Second, "no webhook delivery due or in flight", func() bool {
		var busy int
		if err := env.ModuleDB("webhooks").Get(&busy, `SELECT count(*) FROM webhooks.deliveries
			WHERE outcome = 'pending' AND (lease_until IS NOT NULL OR next_attempt_at <= $1)`, env.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		return busy == 0
	})
}

func subscribe(t *testing.T, env *apptest.Env, key string, body map[string]any) map[string]any {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key, Body: body})
	if res.Status != http.StatusCreated {
		t.Fatalf("create subscription: %d %s", res.Status, res.Body)
	}
	return res.Data(t)
}

// newChannel creates a sandbox channel: one shipping_channel.created event.
func newChannel(t *testing.T, env *apptest.Env, key, name string) string {
	t.Helper()
	return env.SandboxChannel(key, name, nil)
}

func logsOf(t *testing.T, env *apptest.Env, key, subID, query string) []map[string]any {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: subsPath + "/" + subID + "/logs" + query, Key: key})
	if res.Status != http.StatusOK {
		t.Fatalf("logs: %d %s", res.Status, res.Body)
	}
	var out []map[string]any
	for _, item := range res.JSON(t)["data"].([]any) {
		out = append(out, item.(map[string]any))
	}
	return out
}

// awaitLogs waits until the subscription has n logs and returns them, newest first.
func awaitLogs(t *testing.T, env *apptest.Env, key, subID string, n int) []map[string]any {
	t.Helper()
	var logs []map[string]any
	apptest.Eventually(t, 10*time.Second, strconv.Itoa(n)+" logs", func() bool {
		logs = logsOf(t, env, key, subID, "?per_page=100")
		return len(logs) >= n
	})
	return logs
}
