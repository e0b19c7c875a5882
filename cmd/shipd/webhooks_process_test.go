package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd/platform/postgres/pgtest"
)

// kill -9 of shipd while a delivery is in flight: after a restart the
// attempt is made again (at-least-once), with the same event id and body
// and a new delivery id, and it is the one logged.
func TestDeliveryInFlightSurvivesKill(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	env := []string{"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "WEBHOOK_TIMEOUT=2s"}
	type hit struct {
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	var hits []hit
	inFlight := make(chan struct{})
	release := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits = append(hits, hit{r.Header.Clone(), body})
		n := len(hits)
		mu.Unlock()
		if n == 1 {
			close(inFlight)
			<-release // the first attempt hangs until shipd is gone
		}
	}))
	defer rc.Close()
	defer close(release)

	out := runShipd(t, dsn, "keys", "create", "--account", "acme", "--plan", "enterprise")
	key := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	p := startServe(t, dsn, env...)
	sub := post(t, p.url+"/v1/webhook-subscriptions", key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipping_channel.created"}})
	post(t, p.url+"/v1/shipping-channels", key, map[string]any{"name": "Main", "provider": "sandbox", "settings": map[string]any{"clientId": "c", "clientSecret": "s"}})
	select {
	case <-inFlight:
	case <-time.After(15 * time.Second):
		t.Fatalf("no delivery within 15 s:\n%s", p.Log())
	}
	if err := p.Cmd.Process.Kill(); err != nil { // SIGKILL: nothing is recorded
		t.Fatal(err)
	}
	_ = p.Wait()

	killed := time.Now()
	q := startServe(t, dsn, env...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(hits)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the attempt was not made again within 30 s of the restart:\n%s", q.Log())
		}
		time.Sleep(50 * time.Millisecond) // between looks at the receiver
	}
	t.Logf("the attempt was made again %s after the kill (lease: WEBHOOK_TIMEOUT + 5 s)", time.Since(killed))
	mu.Lock()
	first, again := hits[0], hits[1]
	mu.Unlock()
	if !bytes.Equal(first.body, again.body) || first.header.Get("Webhook-Id") != again.header.Get("Webhook-Id") ||
		first.header.Get("X-Service-Delivery") == again.header.Get("X-Service-Delivery") {
		t.Fatalf("redelivery differs: %s %v / %s %v", first.body, first.header, again.body, again.header)
	}
	var logs struct {
		Data []struct {
			ID      string `json:"id"`
			Status  string `json:"status"`
			Attempt int    `json:"attempt"`
		} `json:"data"`
	}
	for time.Now().Before(deadline) {
		getJSON(t, q.url+"/v1/webhook-subscriptions/"+sub["id"].(string)+"/logs", key, &logs)
		if len(logs.Data) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond) // between polls of the logs
	}
	if len(logs.Data) != 1 || logs.Data[0].ID != again.header.Get("X-Service-Delivery") || logs.Data[0].Status != "success" || logs.Data[0].Attempt != 1 {
		t.Fatalf("logs after the restart: %+v\n%s", logs.Data, q.Log())
	}
}

func post(t *testing.T, url, key string, body map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(body)
	res := send(t, http.MethodPost, url, key, bytes.NewReader(raw))
	defer res.Body.Close()
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST %s: %d %v", url, res.StatusCode, err)
	}
	return out.Data
}

func getJSON(t *testing.T, url, key string, out any) {
	t.Helper()
	res := send(t, http.MethodGet, url, key, nil)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
