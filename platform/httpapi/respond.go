// Package httpapi is the HTTP side every module shares: the router, the
// envelopes and error shape, pagination, request decoding and middleware,
// and what every module's port does alike for its resources (Resource).
package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
)

// Single is the envelope of one resource. Every answer of one resource
// carries a message, a read's as a write's (the spec's shape; the
// product's documentation shows "Label retrieved successfully").
type Single struct {
	Data    any    `json:"data"`
	Message string `json:"message"`
}

// WriteJSON writes v as the JSON body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		slog.Error("encoding response", "err", err)
		status = http.StatusInternalServerError
		body = []byte(`{"message":"Internal server error."}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// WriteData writes a single-resource envelope.
func WriteData(w http.ResponseWriter, status int, data any, message string) {
	WriteJSON(w, status, Single{Data: data, Message: message})
}

// WriteMessage writes a body that is only a message (e.g. after a delete).
func WriteMessage(w http.ResponseWriter, status int, message string) {
	WriteJSON(w, status, map[string]string{"message": message})
}
