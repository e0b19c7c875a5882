package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
)

// A request still arriving when shutdown begins is served in full: the
// server stops taking new connections but finishes the ones in flight.
func TestShutdownFinishesRequestsInFlight(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	body := `{"name":"Main","provider":"sandbox","settings":{"clientId":"c","clientSecret":"s"}}`
	conn, err := net.Dial("tcp", strings.TrimPrefix(env.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	half := len(body) / 2
	fmt.Fprintf(conn, "POST /v1/shipping-channels HTTP/1.1\r\nHost: shipd\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", key, len(body), body[:half])
	// The rate limiter counts a request after authenticating it, just before
	// the handler that is now waiting for the rest of the body.
	apptest.Eventually(t, 10*time.Second, "the request counted by the rate limiter", func() bool {
		var counted int
		if err := env.DB.Get(&counted, `SELECT coalesce(sum(count), 0) FROM platform.rate_limit_windows`); err != nil {
			t.Fatal(err)
		}
		return counted == 1
	})

	stopped := make(chan error, 1)
	go func() { stopped <- env.Stop() }()
	addr := strings.TrimPrefix(env.URL(), "http://")
	apptest.Eventually(t, 10*time.Second, "the instance logging its shutdown and refusing new connections", func() bool {
		if !strings.Contains(env.Logs.String(), "shipd shutting down") {
			return false
		}
		probe, err := net.Dial("tcp", addr)
		if err != nil {
			return true
		}
		probe.Close()
		return false
	})
	select {
	case err := <-stopped:
		t.Fatalf("the instance stopped with a request in flight: %v", err)
	default:
	}
	if _, err := conn.Write([]byte(body[half:])); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to the request in flight: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("request in flight answered %d, want 201", res.StatusCode)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM channels.channels`); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d channels stored, want the one the request made", n)
	}
}

// A normal run and a clean shutdown log no ERROR: an error line always means
// something an operator must look at. Writes of every module, their events
// through every handler and a webhook delivery happen first, so the
// shutdown finds handlers and subscribers busy or polling.
func TestCleanRunAndShutdownLogNoError(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	receiver, _ := webhookReceiver(t)
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key, Body: map[string]any{
		"name": "all", "url": receiver, "events": []string{"shipping_channel.created", "shipment.created", "shipment.updated", "tracking_parcel.created"}}}); res.Status != http.StatusCreated {
		t.Fatalf("subscribing: %d %s", res.Status, res.Body)
	}
	ch := env.ActiveSandboxChannel(key, "Main", nil)
	var made []string
	for range 10 {
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: shipment(ch)})
		if res.Status != http.StatusCreated {
			t.Fatalf("creating a shipment: %d %s", res.Status, res.Body)
		}
		id, _ := res.Data(t)["id"].(string)
		made = append(made, id)
	}
	apptest.Eventually(t, 30*time.Second, "every shipment booked and listed", func() bool {
		list := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments?status=created", Key: key}).JSON(t)
		return list["meta"].(map[string]any)["total"] == float64(len(made))
	})
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	var errors []string
	for line := range strings.Lines(env.Logs.String()) {
		var entry struct{ Level string }
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Level == "ERROR" {
			errors = append(errors, line)
		}
	}
	if len(errors) > 0 {
		t.Errorf("%d lines logged at ERROR (or not JSON), want none:\n%s", len(errors), strings.Join(errors, ""))
	}
	if !strings.Contains(env.Logs.String(), "shipd stopped") {
		t.Error("the log does not show the shutdown")
	}
}
