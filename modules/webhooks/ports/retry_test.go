package ports_test

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

// The whole schedule on the injected clock: attempts at exactly +5 min,
// +1 h, +6 h and +24 h from the first failure, none in between, then final.
func TestRetryScheduleFromFirstFailure(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t)
	key := env.NewKey("acme")
	rc := newReceiver(t, answering(http.StatusServiceUnavailable))
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipping_channel.created"}})
	id := sub["id"].(string)
	newChannel(t, env, key, "Main")
	first := rc.await(t, 1)[0]
	logs := awaitLogs(t, env, key, id, 1)
	if l := logs[0]; l["status"] != "failed" || l["response_status"] != 503.0 || l["error_message"] != "the receiver answered HTTP 503" ||
		l["attempt"] != 1.0 || l["next_retry_at"] != "2026-11-21T09:05:00Z" {
		t.Fatalf("first attempt: %v", l)
	}
	offsets := []time.Duration{5 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}
	nexts := []any{"2026-11-21T10:00:00Z", "2026-11-21T15:00:00Z", "2026-11-22T09:00:00Z", nil}
	for i, off := range offsets {
		clk.Set(t0.Add(off - time.Second))
		rc.quiet(t, env, i+1)
		clk.Set(t0.Add(off))
		got := rc.await(t, i+2)
		last := got[len(got)-1]
		if string(last.Body) != string(first.Body) || last.Header.Get("Webhook-Id") != first.Header.Get("Webhook-Id") ||
			last.Header.Get("X-Service-Delivery") == first.Header.Get("X-Service-Delivery") {
			t.Fatalf("attempt %d: the event (body, id) must stay, the delivery id must change", i+2)
		}
		logs = awaitLogs(t, env, key, id, i+2)
		if l := logs[0]; l["attempt"] != float64(i+2) || l["next_retry_at"] != nexts[i] || l["status"] != "failed" ||
			l["created_at"] != t0.Add(off).Format(time.RFC3339) || l["id"] != last.Header.Get("X-Service-Delivery") {
			t.Fatalf("attempt %d log: %v", i+2, l)
		}
	}
	clk.Set(t0.Add(72 * time.Hour))
	rc.quiet(t, env, 5) // permanently failed
	if failed := logsOf(t, env, key, id, "?status=failed"); len(failed) != 5 {
		t.Fatalf("%d failed logs", len(failed))
	}
	if ok := logsOf(t, env, key, id, "?status=success"); len(ok) != 0 {
		t.Fatalf("success logs: %v", ok)
	}
}

func TestSuccessfulRetryLogsSuccess(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t)
	key := env.NewKey("acme")
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipping_channel.created"}})
	newChannel(t, env, key, "Main")
	rc.await(t, 1)
	awaitLogs(t, env, key, sub["id"].(string), 1)
	clk.Advance(5 * time.Minute)
	logs := awaitLogs(t, env, key, sub["id"].(string), 2)
	if l := logs[0]; l["status"] != "success" || l["attempt"] != 2.0 || l["next_retry_at"] != nil || l["response_status"] != 204.0 || l["error_message"] != nil {
		t.Fatalf("retry log: %v", l)
	}
	clk.Advance(24 * time.Hour)
	rc.quiet(t, env, 2)
}

func TestPauseAndDeleteCancelRetries(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t)
	key := env.NewKey("acme")
	rc := newReceiver(t, answering(http.StatusBadGateway))
	paused := subscribe(t, env, key, map[string]any{"name": "paused", "url": rc.URL + "/paused", "events": []string{"shipping_channel.created"}})
	deleted := subscribe(t, env, key, map[string]any{"name": "deleted", "url": rc.URL + "/deleted", "events": []string{"shipping_channel.created"}})
	// The witness tells when an event has been fanned out (asynchronously).
	witness := newReceiver(t, answering(http.StatusNoContent))
	subscribe(t, env, key, map[string]any{"name": "witness", "url": witness.URL, "events": []string{"shipping_channel.created"}})
	newChannel(t, env, key, "Main")
	rc.await(t, 2)
	awaitLogs(t, env, key, paused["id"].(string), 1)
	awaitLogs(t, env, key, deleted["id"].(string), 1)

	pausePath := subsPath + "/" + paused["id"].(string)
	if res := env.Do(apptest.Request{Method: http.MethodPut, Path: pausePath, Key: key, Body: map[string]any{"name": "paused", "status": "inactive"}}); res.Status != http.StatusOK {
		t.Fatalf("pause: %d %s", res.Status, res.Body)
	}
	if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: subsPath + "/" + deleted["id"].(string), Key: key}); res.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	// No retries for either, and nothing new for the paused one.
	newChannel(t, env, key, "Second")
	witness.await(t, 2) // fanned out while paused, not at the resume below
	clk.Advance(25 * time.Hour)
	rc.quiet(t, env, 2)

	// Logs of the deleted subscription stay readable; neither attempt's
	// retry is due any more.
	if logs := logsOf(t, env, key, deleted["id"].(string), ""); len(logs) != 1 || logs[0]["status"] != "failed" || logs[0]["next_retry_at"] != nil {
		t.Fatalf("logs after delete: %v", logs)
	}
	if logs := logsOf(t, env, key, paused["id"].(string), ""); len(logs) != 1 || logs[0]["next_retry_at"] != nil {
		t.Fatalf("logs after pause: %v, want no next retry", logs)
	}
	one := env.Do(apptest.Request{Method: http.MethodGet, Path: pausePath + "/logs/" + logsOf(t, env, key, paused["id"].(string), "")[0]["id"].(string), Key: key})
	if l := one.Data(t); l["next_retry_at"] != nil {
		t.Fatalf("one log after pause: %v, want no next retry", l)
	}
	// Resumed: new events are delivered, the cancelled retry stays cancelled.
	if res := env.Do(apptest.Request{Method: http.MethodPatch, Path: pausePath, Key: key, Body: map[string]any{"active": true}}); res.Status != http.StatusOK {
		t.Fatalf("resume: %d %s", res.Status, res.Body)
	}
	newChannel(t, env, key, "Third")
	got := rc.await(t, 3)
	if !strings.Contains(string(got[2].Body), `"Third"`) || got[2].Header.Get("X-Service-Event") != "shipping_channel.created" {
		t.Fatalf("after resuming: %s", got[2].Body)
	}
	// The attempt is logged before the clock moves: a jump past its lease
	// while it is still being recorded would make it again (at least once).
	awaitLogs(t, env, key, paused["id"].(string), 2)
	clk.Advance(5 * time.Minute) // the Third delivery's own retry
	rc.await(t, 4)
	rc.quiet(t, env, 4)
}

// A pause while an attempt is in flight: the attempt is logged as it went,
// and the retry its failure would have scheduled is not.
func TestPauseDuringAttemptCancelsItsRetry(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t)
	key := env.NewKey("acme")
	arrived, release := make(chan struct{}), make(chan struct{})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			close(arrived)
			<-release
		}
		w.WriteHeader(http.StatusBadGateway)
	})
	sub := subscribe(t, env, key, map[string]any{"name": "paused mid-attempt", "url": rc.URL, "events": []string{"shipping_channel.created"}})
	newChannel(t, env, key, "Main")
	<-arrived
	if res := env.Do(apptest.Request{Method: http.MethodPatch, Path: subsPath + "/" + sub["id"].(string), Key: key, Body: map[string]any{"active": false}}); res.Status != http.StatusOK {
		t.Fatalf("pause: %d %s", res.Status, res.Body)
	}
	close(release)

	logs := awaitLogs(t, env, key, sub["id"].(string), 1)
	if l := logs[0]; l["status"] != "failed" || l["response_status"] != float64(http.StatusBadGateway) || l["next_retry_at"] != nil {
		t.Fatalf("log of the attempt in flight: %v", l)
	}
	clk.Advance(25 * time.Hour)
	rc.quiet(t, env, 1)
}

func TestRetentionPurgesOldLogs(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t, apptest.WithConfig(func(c *config.Config) { c.WebhookPurgeInterval = 50 * time.Millisecond }))
	key := env.NewKey("acme")
	rc := newReceiver(t, answering(200))
	sub := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipping_channel.created"}})
	id := sub["id"].(string)
	newChannel(t, env, key, "Old")
	awaitLogs(t, env, key, id, 1)
	clk.Advance(20 * 24 * time.Hour)
	newChannel(t, env, key, "Newer")
	awaitLogs(t, env, key, id, 2)
	clk.Advance(10*24*time.Hour + time.Second) // the first log is 30 days and 1 s old
	apptest.Eventually(t, 10*time.Second, "the old log purged", func() bool { return len(logsOf(t, env, key, id, "")) == 1 })
	if logs := logsOf(t, env, key, id, ""); !strings.Contains(logs[0]["request_body"].(string), `"Newer"`) {
		t.Fatalf("kept the wrong log: %v", logs)
	}
	// Both deliveries succeeded, so neither is kept; the newer log keeps
	// its event's body, the older event's body went with its log (a
	// statement of the purge after the logs' one: waited for).
	var deliveries, bodies int
	counted := func() bool {
		_ = env.DB.Get(&deliveries, `SELECT count(*) FROM webhooks.deliveries`)
		_ = env.DB.Get(&bodies, `SELECT count(*) FROM webhooks.event_bodies`)
		return deliveries == 0 && bodies == 1
	}
	deadline := time.Now().Add(10 * time.Second)
	for !counted() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // between polls; the counts name what is missing if they never come
	}
	if deliveries != 0 || bodies != 1 {
		t.Fatalf("%d deliveries and %d bodies kept, want none and 1", deliveries, bodies)
	}
}

// A log shows its delivery's body, which it does not copy: the delivery is
// kept while any of its logs is, past 30 days from its creation.
func TestRetentionKeepsTheBodyWhileItsLogsStay(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t, apptest.WithConfig(func(c *config.Config) { c.WebhookPurgeInterval = 50 * time.Millisecond }))
	key := env.NewKey("acme")
	rc := newReceiver(t, answering(http.StatusServiceUnavailable))
	id := subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipping_channel.created"}})["id"].(string)
	newChannel(t, env, key, "Kept")
	body := string(rc.await(t, 1)[0].Body)
	awaitLogs(t, env, key, id, 1)
	for i, off := range []time.Duration{5 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
		clk.Set(t0.Add(off))
		rc.await(t, i+2)
		awaitLogs(t, env, key, id, i+2)
	}
	clk.Set(t0.Add(30*24*time.Hour + time.Second)) // the first attempt's log is 30 days and 1 s old
	apptest.Eventually(t, 10*time.Second, "the first log purged", func() bool { return len(logsOf(t, env, key, id, "")) == 4 })
	for _, l := range logsOf(t, env, key, id, "") {
		if l["request_body"] != body {
			t.Fatalf("log %v attempt %v shows the body %q, want %q", l["id"], l["attempt"], l["request_body"], body)
		}
	}
	clk.Set(t0.Add(24*time.Hour + 30*24*time.Hour + time.Second)) // the last attempt is 30 days and 1 s old
	apptest.Eventually(t, 10*time.Second, "the delivery and the body purged with the last log", func() bool {
		var deliveries, bodies int
		_ = env.DB.Get(&deliveries, `SELECT count(*) FROM webhooks.deliveries`)
		_ = env.DB.Get(&bodies, `SELECT count(*) FROM webhooks.event_bodies`)
		return deliveries == 0 && bodies == 0 && len(logsOf(t, env, key, id, "")) == 0
	})
}

func TestSSRFGuardRefusesNonPublicAddresses(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.WebhookAllowPrivateNetworks = false }))
	key := env.NewKey("acme")
	rc := newReceiver(t, answering(200))
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rc.URL, "http://"))
	urls := []string{
		rc.URL,                            // loopback, a receiver really listening
		"http://localhost:" + port + "/h", // a name resolving to loopback
		"http://169.254.169.254/latest/meta-data", // cloud metadata
		"http://10.0.0.1/h", "http://192.168.1.1/h", "http://[::1]:" + port + "/h",
	}
	var subs []string
	for i, u := range urls {
		subs = append(subs, subscribe(t, env, key, map[string]any{"name": "s" + string(rune('a'+i)), "url": u, "events": []string{"shipping_channel.created"}})["id"].(string))
	}
	newChannel(t, env, key, "Main")
	for i, id := range subs {
		l := awaitLogs(t, env, key, id, 1)[0]
		msg, _ := l["error_message"].(string)
		if l["status"] != "failed" || l["response_status"] != 0.0 || !strings.HasPrefix(msg, "the destination is not allowed") ||
			!strings.Contains(msg, "WEBHOOK_ALLOW_PRIVATE_NETWORKS") || strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, "::1") {
			t.Errorf("%s: %v", urls[i], l)
		}
	}
	// Every attempt is logged, so each was made: one the guard let through
	// would have reached the receiver before its answer was logged. (The
	// guard would refuse a marker's loopback receiver: no quiet here.)
	if got := len(rc.requests()); got != 0 {
		t.Fatalf("%d requests reached the loopback receiver, want none", got)
	}
}
