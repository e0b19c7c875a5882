package server_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// webhookReceiver takes every delivery sent to its URL (any path), answering
// 204, and counts them; it is closed when the test ends, before the
// instance started ahead of it stops.
func webhookReceiver(t *testing.T) (url string, delivered *atomic.Int32) {
	t.Helper()
	delivered = &atomic.Int32{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		delivered.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	return receiver.URL, delivered
}
