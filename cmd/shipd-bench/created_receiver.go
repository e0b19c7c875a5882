package main

import (
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"sync"
	"time"
)

// createdReceiver is a merchant's webhook endpoint on loopback: it answers
// 204 at once and notes when it first saw each shipment's
// shipment.created, without checking signatures (what the bench times is
// the service, not the receiver).
type createdReceiver struct {
	url string
	srv *http.Server

	mu    sync.Mutex
	first map[string]time.Time // shipment id → first shipment.created
}

func startCreatedReceiver() (*createdReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &createdReceiver{url: "http://" + ln.Addr().String() + "/hook", first: map[string]time.Time{}}
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.receive)}
	go func() { _ = rc.srv.Serve(ln) }()
	return rc, nil
}

func (rc *createdReceiver) receive(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	w.WriteHeader(http.StatusNoContent)
	var event struct {
		Type string `json:"type"`
		Data struct {
			Shipment struct {
				ID string `json:"id"`
			} `json:"shipment"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &event) != nil || event.Type != "shipment.created" || event.Data.Shipment.ID == "" {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if _, seen := rc.first[event.Data.Shipment.ID]; !seen {
		rc.first[event.Data.Shipment.ID] = at
	}
}

// seen is how many shipments' shipment.created arrived.
func (rc *createdReceiver) seen() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.first)
}

// arrivals is a copy of the first arrivals by shipment id.
func (rc *createdReceiver) arrivals() map[string]time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return maps.Clone(rc.first)
}

func (rc *createdReceiver) close() { _ = rc.srv.Close() }
