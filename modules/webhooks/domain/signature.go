package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"time"
)

// UserAgent names shipd to receivers.
const UserAgent = "shipd-webhooks/1"

// Request is one signed POST of a delivery's body.
type Request struct {
	LogID   string // the attempt's log id, sent as X-Service-Delivery
	URL     string
	Headers []Header // sent, and logged, in this order
	Body    []byte
}

// Header is one header of a request. Its name is in canonical form
// (Webhook-Id), the form Go's net/http keys headers by.
type Header struct{ Name, Value string }

// Header returns the value of the header named name, "" without one.
func (r Request) Header(name string) string {
	for _, h := range r.Headers {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// SignedRequest builds the attempt's POST. Two signatures travel with it:
// X-Service-Signature, "sha256=" and the hex HMAC-SHA256 of the raw body
// (GitHub's scheme), and webhook-signature, "v1," and the base64
// HMAC-SHA256 of "id.timestamp.body" (Standard Webhooks), both keyed with
// the secret's bytes. webhook-id is the event id, the same on every attempt,
// so receivers can drop repeats.
func SignedRequest(d Delivery, url, secret, logID string, at time.Time) Request {
	ts := strconv.FormatInt(at.Unix(), 10)
	return Request{LogID: logID, URL: url, Body: d.Body, Headers: []Header{
		{"Content-Type", "application/json"},
		{"User-Agent", UserAgent},
		{"X-Service-Event", d.EventType},
		{"X-Service-Delivery", logID},
		{"X-Service-Timestamp", ts},
		{"X-Service-Signature", BodySignature([]byte(secret), d.Body)},
		{"Webhook-Id", d.EventID},
		{"Webhook-Timestamp", ts},
		{"Webhook-Signature", StandardSignature([]byte(secret), d.EventID, ts, d.Body)},
	}}
}

// BodySignature is the X-Service-Signature value of body.
func BodySignature(key, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// StandardSignature is the Standard Webhooks signature of one message.
func StandardSignature(key []byte, id, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + timestamp + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}
