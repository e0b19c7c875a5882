//go:build faults

package faults

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// receiver is the suite's webhook endpoint. Each subscription gets a path of
// its own, so a hit says which subscription it was for. It answers every
// POST with status (204 unless told otherwise) and keeps what came.
type receiver struct {
	srv    *httptest.Server
	status atomic.Int32

	mu     sync.Mutex
	hits   []hit
	active map[string]hit // by delivery id: attempts still waiting for their answer
	gate   chan struct{}  // while not nil, answers wait until it is closed
}

// hit is one delivery attempt as the receiver saw it.
type hit struct {
	at         time.Time
	path       string         // the subscription
	source     string         // the sender's address (host:port)
	eventID    string         // webhook-id: the event, the same on every attempt
	deliveryID string         // X-Service-Delivery: this attempt's log id
	eventType  string         // X-Service-Event
	resource   map[string]any // data.shipment, data.shipping_channel, ...
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{active: map[string]hit{}}
	rc.status.Store(http.StatusNoContent)
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(func() {
		rc.release()
		rc.srv.Close()
	})
	return rc
}

func (rc *receiver) url(path string) string { return rc.srv.URL + path }

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Data map[string]any `json:"data"`
	}
	_ = json.Unmarshal(raw, &body)
	h := hit{at: time.Now(), path: r.URL.Path, source: r.RemoteAddr, eventID: r.Header.Get("Webhook-Id"),
		deliveryID: r.Header.Get("X-Service-Delivery"), eventType: r.Header.Get("X-Service-Event")}
	resource, _, _ := strings.Cut(h.eventType, ".") // shipment.created: data.shipment
	h.resource, _ = body.Data[resource].(map[string]any)
	rc.mu.Lock()
	rc.hits = append(rc.hits, h)
	rc.active[h.deliveryID] = h
	rc.mu.Unlock()
	rc.mu.Lock()
	gate := rc.gate
	rc.mu.Unlock()
	if gate != nil {
		<-gate
	}
	w.WriteHeader(int(rc.status.Load()))
	rc.mu.Lock()
	delete(rc.active, h.deliveryID)
	rc.mu.Unlock()
}

// received returns the hits so far on path (every path when empty).
func (rc *receiver) received(path string) []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []hit
	for _, h := range rc.hits {
		if path == "" || h.path == path {
			out = append(out, h)
		}
	}
	return out
}

// inFlight returns the attempts that arrived and have not been answered yet.
func (rc *receiver) inFlight() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]hit, 0, len(rc.active))
	for _, h := range rc.active {
		out = append(out, h)
	}
	return out
}

// hold keeps every attempt from being answered until release, so attempts
// seen in flight stay unanswered while the sender is killed.
func (rc *receiver) hold() {
	rc.mu.Lock()
	if rc.gate == nil {
		rc.gate = make(chan struct{})
	}
	rc.mu.Unlock()
}

// release answers the held attempts and stops holding.
func (rc *receiver) release() {
	rc.mu.Lock()
	if rc.gate != nil {
		close(rc.gate)
		rc.gate = nil
	}
	rc.mu.Unlock()
}
