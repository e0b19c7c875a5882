// Package contract is the channels module's published language: the record
// other modules and webhooks see, the events it publishes and the facade
// other modules may call. The record is the events' snapshot, stored for
// good; the API answer and webhook payloads render it, so a change of its
// shape is a new event version (testdata/events, ADR 0030).
package contract

import "time"

// ShippingChannel is the public record of a channel, secrets masked. It is
// the API's answer and the payload of every channel event.
type ShippingChannel struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	Provider        string         `json:"provider"`
	Status          string         `json:"status"`
	Settings        map[string]any `json:"settings"`
	ValidationError *string        `json:"validation_error"`
	ValidatedAt     *time.Time     `json:"validated_at"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}
