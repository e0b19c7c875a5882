package server_test

import (
	"bufio"
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
	time.Sleep(200 * time.Millisecond) // the handler is reading the body

	stopped := make(chan error, 1)
	go func() { stopped <- env.Stop() }()
	time.Sleep(300 * time.Millisecond) // shutdown has begun
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
