package ports_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

// Every way a receiver can fail is a logged failure with a reason; nothing
// crashes and the next delivery still goes out.
func TestReceiverFailuresAreLogged(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.WebhookTimeout = 2 * time.Second }))
	key := env.NewKey("acme")
	release := make(chan struct{})
	followed := make(chan struct{}, 10)
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, _ *http.Request) {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/target", func(w http.ResponseWriter, _ *http.Request) { followed <- struct{}{} })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no such hook", http.StatusGone) })
	mux.HandleFunc("/reset", func(w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 100<<10)))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tlsSrv := httptest.NewTLSServer(mux) // a certificate nobody trusts
	defer tlsSrv.Close()
	defer close(release) // before the servers close: they wait for handlers

	cases := []struct {
		url, status string
		code        float64
		says        string
	}{
		{srv.URL + "/slow", "failed", 0, "did not answer within 2s"},
		{srv.URL + "/moved", "failed", 301, "the receiver answered HTTP 301; redirects are not followed"},
		{srv.URL + "/gone", "failed", 410, "the receiver answered HTTP 410"},
		{srv.URL + "/reset", "failed", 0, "the receiver closed the connection before answering"},
		{tlsSrv.URL + "/gone", "failed", 0, "certificate"},
		{"http://127.0.0.1:1/nothing-listens", "failed", 0, "the receiver refused the connection"},
		{srv.URL + "/big", "success", 200, ""},
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = subscribe(t, env, key, map[string]any{"name": fmt.Sprint("s", i), "url": c.url, "events": []string{"shipping_channel.created"}})["id"].(string)
	}
	newChannel(t, env, key, "Main")
	for i, c := range cases {
		l := awaitLogs(t, env, key, ids[i], 1)[0]
		msg, _ := l["error_message"].(string)
		if l["status"] != c.status || l["response_status"] != c.code || !strings.Contains(msg, c.says) || (c.says == "" && l["error_message"] != nil) {
			t.Errorf("%s: status %v %v, error %q", c.url, l["status"], l["response_status"], msg)
		}
		if c.status == "failed" && l["next_retry_at"] == nil {
			t.Errorf("%s: no retry scheduled", c.url)
		}
		if strings.HasSuffix(c.url, "/big") && len(l["response_body"].(string)) != 64<<10 {
			t.Errorf("response body kept %d bytes, want 64 KiB", len(l["response_body"].(string)))
		}
	}
	select {
	case <-followed:
		t.Fatal("a redirect was followed")
	default:
	}
}

// Two instances on one database deliver every event exactly once.
func TestTwoInstancesDeliverEachAttemptOnce(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	env.StartInstance()
	key := env.NewKey("acme")
	var mu sync.Mutex
	perEvent := map[string]int{}
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		perEvent[r.Header.Get("Webhook-Id")]++
		mu.Unlock()
	})
	subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipping_channel.created", "shipping_channel.updated"}})
	const channels = 40
	for i := range channels {
		id := newChannel(t, env, key, fmt.Sprint("ch-", i))
		env.Do(apptest.Request{Method: http.MethodPut, Path: "/v1/shipping-channels/" + id, Key: key, Body: map[string]any{"name": fmt.Sprint("renamed-", i)}})
	}
	rc.await(t, 2*channels)
	rc.quiet(t, env, 2*channels)
	mu.Lock()
	defer mu.Unlock()
	if len(perEvent) != 2*channels {
		t.Fatalf("%d distinct events, want %d", len(perEvent), 2*channels)
	}
	for id, n := range perEvent {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
}
