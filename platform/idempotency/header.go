package idempotency

import (
	"encoding/json"
	"net/http"
)

// replayedHeaders are the response headers worth replaying; per-request ones
// (X-Request-Id, rate-limit counters) are set afresh.
var replayedHeaders = []string{"Content-Type", "Location", "Content-Disposition"}

func encodeHeader(h http.Header) ([]byte, error) {
	keep := map[string]string{}
	for _, k := range replayedHeaders {
		if v := h.Get(k); v != "" {
			keep[k] = v
		}
	}
	return json.Marshal(keep)
}

func decodeHeader(raw []byte, into http.Header) error {
	if len(raw) == 0 {
		return nil
	}
	var kept map[string]string
	if err := json.Unmarshal(raw, &kept); err != nil {
		return errBadHeader
	}
	for k, v := range kept {
		into.Set(k, v)
	}
	return nil
}
